/**
 * What an identity resolving key adds to decoding: the sender's name when its resolvable
 * private address resolves, and a reading even when the advertisement carries no known frame
 * (a phone's Apple Nearby Info, or nothing at all), which would otherwise be dropped.
 */
import type { Advertisement } from '../advertisement.js'
import type { BeaconReading, FrameKind } from '../reading.js'
import type { IdentityResolver } from '../secure/identity-resolver.js'
import { isValidEnvelope } from './decode.js'
import { accuracy, proximity, type ProximityThresholds } from './distance.js'

const NO_FRAMES: readonly FrameKind[] = Object.freeze([])

/**
 * `reading` (the frames' reading, or null) with `irk` set when `adv`'s address resolves; a
 * frame-less reading for a resolved address; `reading` unchanged otherwise.
 */
export function withIdentity(
  reading: BeaconReading | null,
  adv: Advertisement,
  resolver: IdentityResolver,
  thresholds: ProximityThresholds | undefined,
): BeaconReading | null {
  if (reading === null && !isValidEnvelope(adv)) return null
  const name = resolver.resolve(adv.address, adv.addressType)
  if (name === undefined) return reading
  if (reading !== null) {
    reading.irk = name
    return reading
  }
  // No measured power without a frame: the distance is unknown (-1), as for any such beacon.
  const acc = accuracy(adv.rssi, undefined)
  return {
    address: adv.address,
    timestamp: adv.timestamp,
    rssi: adv.rssi,
    frames: NO_FRAMES as FrameKind[],
    accuracy: acc,
    proximity: proximity(acc, thresholds),
    irk: name,
  }
}
