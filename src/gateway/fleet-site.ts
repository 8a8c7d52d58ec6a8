/**
 * A new site for a running fleet (an edited site file, #40): each started part that holds the
 * site takes it without a restart. The tracker applies it on its next tick (FleetTracker.setSite)
 * with the room method the settings decide for it (fleet-rooms.ts: the plan method rebuilt on the
 * new site, made or dropped when the site now does or no longer places every gateway); the map's
 * details believe the new site's gateways; the map's pages get its plan (`event: site`); the
 * recording notes it (its replay draws it from then on); the foreign-input bridge's known,
 * reserved and foreign node ids follow it (nodes already bridged keep their names); the metrics
 * read the room method the fleet has now (fleet-parts.ts).
 *
 * Left as it started, until a restart: for a fleet that started with the strongest gateway, the
 * room method's metrics (made only with the plan method).
 */
import type { Site } from '../positioning/site.js'
import type { FleetRunning } from './fleet-context.js'

/**
 * The foreign-input bridge's node ids from a site (at the start and on each new site): every
 * gateway it declares is known; which it may use as foreign nodes are those declared `foreign`,
 * and once the site declares any, the others are native and reserved. A site that declares none
 * keeps working as before (its nodes named by their plain ids), guarded by the statuses seen on
 * the broker.
 */
export function siteNodes(site: Site): {
  knownNodes: Set<string>
  nativeNodes?: Set<string>
  foreignNodes?: Set<string>
} {
  const anchors = site.anchorList()
  const knownNodes = new Set(anchors.map((a) => a.id))
  if (!anchors.some((a) => a.foreign === true)) return { knownNodes }
  const ids = (foreign: boolean): Set<string> =>
    new Set(anchors.filter((a) => (a.foreign === true) === foreign).map((a) => a.id))
  return { knownNodes, nativeNodes: ids(false), foreignNodes: ids(true) }
}

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
  running.inputs?.setSiteNodes(siteNodes(site))
}
