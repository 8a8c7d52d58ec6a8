/** The fused state's record of one beacon, and the view of it that the fleet publishes. */
import { accuracy } from '../decode/distance.js'
import type { RssiReading } from '../mqtt/payloads.js'
import type { RoomState } from './room-choice.js'
import type { SeedState } from './wire.js'
import type { FleetBeacon, FleetDescriber, FleetGatewayReading, FleetPosition } from './fleet-beacon.js'

/** One beacon as the fused state holds it (fleet-state.ts). */
export interface Fused extends RoomState {
  id: string
  gateways: FleetGatewayReading[]
  firstSeen: number
  lastSeen: number
  position?: FleetPosition
  /** Its floor, decided by the room method (positioning/room-locator.ts) when the fleet has one. */
  floor?: string
  /**
   * Where it was when `moved` last reported it (or first placed): a move is measured from here,
   * not from the previous tick, so a tag walking slower than `moveThresholdM` a second still moves.
   */
  reported?: FleetPosition
}

/** The published view of `b` at `now` (copies: the record stays the state's), strongest gateway first. */
export function viewOf(b: Fused, now: number, describe: FleetDescriber | undefined): FleetBeacon {
  const gateways = b.gateways.map((g) => ({ ...g })).sort((x, y) => y.rssi - x.rssi)
  const out: FleetBeacon = {
    id: b.id,
    time: now,
    present: true,
    gateways,
    firstSeen: b.firstSeen,
    lastSeen: b.lastSeen,
  }
  if (b.room !== undefined) out.room = b.room
  if (b.floor !== undefined) out.floor = b.floor
  if (b.position !== undefined) out.position = { ...b.position }
  const more = describe?.(b.id)
  if (more?.name !== undefined) out.name = more.name
  if (more?.values !== undefined) out.values = more.values
  return out
}

/** `gateway` heard `b` at `seen` (tracker clock): its reading of the beacon, made or updated. */
export function hearFrom(b: Fused, gateway: string, r: RssiReading, seen: number): void {
  let g: FleetGatewayReading | undefined
  for (const x of b.gateways) if (x.gateway === gateway) g = x
  if (g === undefined) b.gateways.push((g = { gateway, rssi: r.rssi, lastSeen: seen }))
  // A batch delayed in transit must not move time backwards.
  if (seen >= g.lastSeen) {
    g.rssi = r.rssi
    g.lastSeen = seen
    const d = accuracy(Math.round(r.rssi), r.measuredPower)
    if (d >= 0) g.distance = d
    else delete g.distance
  }
  if (seen > b.lastSeen) b.lastSeen = seen
}

/**
 * The record of a beacon taken over from the retained state another tracker left (scale-out),
 * its room kept. Times come from another process's clock: never in the future of this one.
 */
export function seededRecord(s: SeedState, now: number): Fused {
  const gateways = s.gateways.map((g) => ({ ...g, lastSeen: Math.min(g.lastSeen, now) }))
  const b: Fused = {
    id: s.id,
    gateways,
    firstSeen: Math.min(s.firstSeen, now),
    lastSeen: Math.min(s.lastSeen, now),
    candidateSince: 0,
  }
  if (s.room !== undefined) b.room = s.room
  if (s.floor !== undefined) b.floor = s.floor
  return b
}
