/** The evidence a room decision (room-choice.ts) weighs: per room, how strongly the beacon is heard there. */
import type { Site } from '../positioning/site.js'
import type { FleetGatewayReading } from './fleet-beacon.js'

/**
 * A position may break a close call between rooms, not overturn what the gateways say: it counts
 * for a room heard within this many dB of the strongest room (#39).
 */
export const POSITION_WITHIN_DB = 6

/** Per site, the rooms that have a gateway of their own (computed once: a site never changes). */
const roomsWithGateways = new WeakMap<Site, ReadonlySet<string>>()

function gatewayRooms(site: Site): ReadonlySet<string> {
  let rooms = roomsWithGateways.get(site)
  if (rooms === undefined) {
    rooms = new Set(site.anchorList().flatMap((a) => (a.room === undefined ? [] : [a.room])))
    roomsWithGateways.set(site, rooms)
  }
  return rooms
}

/**
 * Evidence per room: its strongest gateway; a position inside a room's polygon (`at`) counts as
 * that room leading by the margin, so a positioned beacon follows the plan — but only where the
 * radio agrees (#39): a room with gateways of its own none of which hears the beacon never wins
 * on a position alone (its gateways' silence says it is not there), and a room heard more than
 * {@link POSITION_WITHIN_DB} below the strongest keeps its place (a position near a wall must not
 * outvote a clear RSSI lead). A room without a gateway is found by position alone. Fills `into`
 * (cleared first) and returns it: one map reused for every beacon, as a new one per beacon per
 * tick was most of the tick's garbage.
 */
export function roomEvidence(
  into: Map<string, number>,
  site: Site,
  gateways: readonly FleetGatewayReading[],
  at: string | undefined,
  marginDb: number,
): Map<string, number> {
  into.clear()
  for (const g of gateways) {
    const room = site.anchor(g.gateway)?.room
    if (room !== undefined && g.rssi > (into.get(room) ?? -Infinity)) into.set(room, g.rssi)
  }
  if (at !== undefined) {
    let best = -Infinity
    for (const v of into.values()) if (v > best) best = v
    const own = into.get(at)
    const agrees = own === undefined ? !gatewayRooms(site).has(at) : own >= best - POSITION_WITHIN_DB
    if (agrees) into.set(at, (best === -Infinity ? -100 : best) + marginDb)
  }
  return into
}
