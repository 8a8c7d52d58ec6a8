/** A cached reading's nested members, frozen and shared between the payloads that carry them. */
import type { BeaconFlags, BeaconReading } from '../reading.js'
import { flatString } from '../frames/fields.js'
import { InternTable, internFrames } from './intern.js'

/**
 * Frame lists and flag sets are few (65 orders of the four frame kinds, 729 flag patterns),
 * UUIDs a handful per site: the cache shares one frozen object or flat string per value
 * instead of holding one per remembered payload. The UUID bound keeps random ones from
 * growing the table.
 */
const flagsInterned = new InternTable<number, BeaconFlags>(729)
const uuidsInterned = new InternTable<string, string>(1024)
const FLAG_NAMES = [
  'passwordEnabled',
  'broadcastKeyEnabled',
  'energySaving',
  'aliBeacon',
  'backgroundEnhancement',
  'eddystone',
] as const

function internFlags(flags: BeaconFlags): BeaconFlags {
  // Each member is absent, false or true: a base-3 number names the combination.
  let key = 0
  for (const name of FLAG_NAMES) key = key * 3 + (flags[name] === undefined ? 0 : flags[name] ? 2 : 1)
  return flagsInterned.get(key, () => Object.freeze({ ...flags }))
}

/**
 * Nested members are shared by every reading of a repeated payload, so they are frozen. Strings
 * built by concatenation are ropes of cons strings: the proximity UUID (shared by a site's
 * beacons) is interned and the beaconID made one flat string, ~550 bytes less per template. The
 * reading itself is not: spreading a frozen object is several times slower in V8, and
 * `decode()` copies it on every packet; `decodeShared()` hands it out typed read-only.
 */
export function freezeNested(r: BeaconReading): BeaconReading {
  r.frames = internFrames(r.frames)
  if (r.proximityUUID !== undefined) {
    const uuid = r.proximityUUID
    r.proximityUUID = uuidsInterned.get(uuid, () => flatString(uuid))
  }
  if (r.beaconID !== undefined) r.beaconID = flatString(r.beaconID)
  if (r.secure !== undefined) Object.freeze(r.secure)
  if (r.flags !== undefined) r.flags = internFlags(r.flags)
  if (r.eddystone !== undefined) {
    for (const part of Object.values(r.eddystone)) Object.freeze(part)
    Object.freeze(r.eddystone)
  }
  return r
}
