/**
 * A new site for a running fleet (an edited site file, #40): each started part that holds the
 * site takes it without a restart. The tracker applies it on its next tick (FleetTracker.setSite)
 * with the room method the settings decide for it (fleet-rooms.ts: the plan method rebuilt on the
 * new site, made or dropped when the site now does or no longer places every gateway); the map's
 * details believe the new site's gateways; the map's pages get its plan (`event: site`); the
 * recording notes it (its replay draws it from then on); the metrics read the room method the
 * fleet has now (fleet-parts.ts).
 *
 * Left as they started, until a restart: the foreign-input bridge's native and foreign nodes,
 * and for a fleet that started with the strongest gateway the room method's metrics (made only
 * with the plan method).
 */
import type { Site } from '../positioning/site.js'
import type { FleetRunning } from './fleet-context.js'

/** Applies `site` to the fleet's started parts (see the file comment). */
export function applyFleetSite(running: FleetRunning, site: Site): void {
  const tracker = running.tracker
  if (tracker === undefined) return
  const rooms = running.rooms
  if (rooms === undefined) tracker.setSite(site)
  else tracker.setSite(site, { rooms: rooms.setSite(site) ?? false })
  running.detailsGateways?.setSite(site)
  running.web?.setSite(site)
  running.recorder?.site(site, tracker.clock.now())
}
