/**
 * Shape checks for what the fleet reads off the network: RSSI readings of a gateway batch and
 * the retained fused states another tracker left (read when taking over its partitions).
 * Anything else is skipped and counted by the caller, never thrown.
 */

import type { RssiBatch, RssiReading } from '../mqtt/payloads.js'
import { FLOOR_ID } from '../positioning/site-floors.js'
import { GATEWAY_ID } from '../mqtt/topics.js'
import { isTopicLevel } from '../util/topic-level.js'

/** Gateway ids (the one pattern, in mqtt/topics.ts), for the fleet's shape checks. */
export { GATEWAY_ID }

/**
 * A beacon id the fleet can use: it becomes a topic level of `<p>/fleet/beacons/<id>`, so a
 * '/', a wildcard, a control character or anything else Mosquitto refuses would publish
 * elsewhere or make the broker close the connection (mqtt/topics.ts isTopicLevel).
 */
export function isBeaconId(id: unknown): id is string {
  return isTopicLevel(id)
}

/** A reading of the published shape (payloads.ts). */
export function isReading(r: unknown): r is RssiReading {
  if (typeof r !== 'object' || r === null) return false
  const o = r as Record<string, unknown>
  return (
    isBeaconId(o.id) &&
    typeof o.rssi === 'number' &&
    o.rssi >= -127 &&
    o.rssi <= 20 &&
    typeof o.lastSeen === 'number' &&
    Number.isFinite(o.lastSeen) &&
    (o.measuredPower === undefined || (typeof o.measuredPower === 'number' && Number.isFinite(o.measuredPower)))
  )
}

/**
 * The head of an RSSI batch of the published shape (payloads.ts): its gateway (the topic's, when
 * `from` is known), its time and its readings, not yet checked one by one. Undefined otherwise.
 */
export function readBatchHead(
  batch: unknown,
  from: string | undefined,
): { gateway: string; time: number; readings: unknown[] } | undefined {
  if (typeof batch !== 'object' || batch === null) return undefined
  const { gateway, time, readings } = batch as Partial<RssiBatch>
  if (
    typeof gateway !== 'string' ||
    !GATEWAY_ID.test(gateway) ||
    (from !== undefined && gateway !== from) ||
    typeof time !== 'number' ||
    !Number.isFinite(time) ||
    !Array.isArray(readings)
  )
    return undefined
  return { gateway, time, readings }
}

/**
 * A gateway in a retained fleet state (the shape of fleet-beacon.ts's FleetGatewayReading, kept
 * here so the shape checks depend on nothing).
 */
export interface SeedGateway {
  gateway: string
  rssi: number
  distance?: number
  lastSeen: number
}

/** The part of a retained `<p>/fleet/beacons/<id>` state a tracker seeds a beacon from. */
export interface SeedState {
  id: string
  room?: string
  /** Its floor (#39), with the room method. */
  floor?: string
  gateways: SeedGateway[]
  firstSeen: number
  lastSeen: number
}

function isGatewayReading(g: unknown): g is SeedGateway {
  if (typeof g !== 'object' || g === null) return false
  const o = g as Record<string, unknown>
  return (
    typeof o.gateway === 'string' &&
    GATEWAY_ID.test(o.gateway) &&
    typeof o.rssi === 'number' &&
    o.rssi >= -127 &&
    o.rssi <= 20 &&
    typeof o.lastSeen === 'number' &&
    Number.isFinite(o.lastSeen) &&
    (o.distance === undefined || (typeof o.distance === 'number' && Number.isFinite(o.distance)))
  )
}

/** A retained fleet state of the published shape for beacon `id`, or undefined. */
export function parseSeed(id: string, body: unknown): SeedState | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const o = body as Record<string, unknown>
  if (o.id !== id || !isBeaconId(id) || o.present !== true || !Array.isArray(o.gateways) || o.gateways.length > 1024)
    return undefined
  if (
    typeof o.firstSeen !== 'number' ||
    !Number.isFinite(o.firstSeen) ||
    typeof o.lastSeen !== 'number' ||
    !Number.isFinite(o.lastSeen)
  )
    return undefined
  if (o.room !== undefined && (typeof o.room !== 'string' || o.room.length > 256)) return undefined
  if (o.floor !== undefined && (typeof o.floor !== 'string' || !FLOOR_ID.test(o.floor))) return undefined
  const gateways: SeedGateway[] = []
  for (const g of o.gateways as unknown[]) {
    if (!isGatewayReading(g)) return undefined
    gateways.push({
      gateway: g.gateway,
      rssi: g.rssi,
      lastSeen: g.lastSeen,
      ...(g.distance === undefined ? {} : { distance: g.distance }),
    })
  }
  return {
    id,
    ...(o.room === undefined ? {} : { room: o.room as string }),
    ...(o.floor === undefined ? {} : { floor: o.floor as string }),
    gateways,
    firstSeen: o.firstSeen,
    lastSeen: o.lastSeen,
  }
}
