/** The evidence a room decision (room-choice.ts) weighs: per room, how strongly the beacon is heard there. */
import type { Site } from '../positioning/site.js'
import type { FleetGatewayReading } from './fleet-beacon.js'

/**
 * Evidence per room: its strongest gateway; a position inside a room's polygon (`at`) counts as
 * that room leading by the margin, so a positioned beacon follows the plan. Fills `into` (cleared
 * first) and returns it: one map reused for every beacon, as a new one per beacon per tick was
 * most of the tick's garbage.
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
    into.set(at, (best === -Infinity ? -100 : best) + marginDb)
  }
  return into
}
