/**
 * What `beaconkit fleet` logs about the tracker: its broker connection (unreachable, session
 * taken over), each gateway that goes offline and comes back, gateways the site does not
 * declare, gateways whose batches it refuses for their clock, and the tracker's own warnings; each
 * condition once when it starts and once when it clears (log/condition-log.ts). With a site that
 * lists its gateways, only those are watched for going offline: the retained `offline` of a gateway
 * the site does not list (an earlier run's, or a made-up id) is no warning; the status line counts
 * such gateways apart. A site edited while the fleet runs (`--edit`) is followed: a gateway it now
 * declares is no longer unknown (its condition clears), and the gateways watched are the new site's.
 */

import type { FleetTracker } from '../../fleet/tracker.js'
import { connectionConditions } from '../../gateway/connection-conditions.js'
import { ConditionLog } from '../../log/condition-log.js'
import type { Logger } from '../../log/logger.js'
import type { Site } from '../../positioning/site.js'
import { siteGatewayIds } from '../../fleet/gateway-summary.js'

/** Wires the tracker's events to `log`; returns what stops the timers it holds. */
export function logFleetConditions(
  tracker: FleetTracker,
  log: Logger,
  sitePath: string | undefined,
  site?: Site,
  editing = false,
): () => void {
  const conditions = new ConditionLog(log)
  let watched = watchedGateways(site)
  /** Gateways told of as unknown whose condition is on: bounded by the tracker's own bound on them. */
  const unknown = new Set<string>()
  const where = sitePath === undefined ? 'the site' : `the site ${sitePath}`
  const fix = editing
    ? 'place it on the map (Edit, then Gateways)'
    : 'add it under "gateways", or check its --gateway-id'
  const connection = connectionConditions(log, conditions)
  tracker.on('connected', () => connection.connected())
  tracker.on('disconnected', () => connection.disconnected())
  tracker.on('error', (e) => connection.error(e))
  tracker.on('warning', (w) => {
    // A broker that stops acknowledging and resumes is one condition.
    if (w.code === 'acks_stalled') conditions.start('mqtt.acks_stalled', w.message, { code: w.code })
    else if (w.code === 'acks_resumed') conditions.clear('mqtt.acks_stalled', w.message, { code: w.code })
    else log.warn(w.message, { code: w.code })
  })
  tracker.on('unknownGateway', ({ gateway }) => {
    unknown.add(gateway)
    conditions.start(
      `site.unknown_gateway:${gateway}`,
      `gateway ${gateway} publishes RSSI batches but is not in ${where}: its readings give no room; ${fix}`,
      { gateway },
    )
  })
  tracker.on('site', ({ site: now }) => {
    watched = watchedGateways(now)
    for (const gateway of unknown) {
      if (now.anchor(gateway) === undefined) continue
      unknown.delete(gateway)
      conditions.clear(`site.unknown_gateway:${gateway}`, `gateway ${gateway} is in ${where} now`, { gateway })
    }
  })
  tracker.on('gatewayClock', ({ gateway, refused, offsetMs }) => {
    const key = `gateway.clock_refused:${gateway}`
    if (!refused) {
      conditions.clear(key, `gateway ${gateway}'s RSSI batches are on time again: its beacons count`, { gateway })
      return
    }
    const days = Math.round(Math.abs(offsetMs) / 86_400_000)
    const way = offsetMs > 0 ? 'behind' : 'ahead of'
    conditions.start(
      key,
      `gateway ${gateway} stamps its RSSI batches ${days} days ${way} the fleet's clock, more than ` +
        `maxClockOffsetMs allows: the fleet refuses them and shows none of its beacons; ` +
        "set the gateway's clock (NTP), or replay a recording in real time (not --virtual), which " +
        'publishes on the current clock',
      { gateway, offsetMs },
    )
  })
  tracker.on('gateway', ({ gateway, state }) => {
    if (watched !== undefined && !watched.has(gateway)) return
    const key = `gateway.offline:${gateway}`
    if (state === 'offline')
      conditions.start(
        key,
        `gateway ${gateway} is offline (its status topic says so, or its last will): nothing it ` +
          `hears reaches the fleet`,
        { gateway },
      )
    else if (state === 'online') conditions.clear(key, `gateway ${gateway} is online again`, { gateway })
    else conditions.clear(key, `gateway ${gateway} forgotten`, { gateway })
  })
  return () => connection.close()
}

/** The gateways watched for going offline: the site's, when it lists any (see the file comment). */
function watchedGateways(site: Site | undefined): Set<string> | undefined {
  const listed = siteGatewayIds(site)
  return listed === undefined ? undefined : new Set(listed)
}
