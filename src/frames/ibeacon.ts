/**
 * iBeacon in manufacturer data (docs/protocol.md, "iBeacon"): `4c 00 02 15`, 16-byte proximity UUID,
 * major, minor (big-endian), measured power at 1 m (i8).
 */
import { checkInt, i8, u16be, writeHexBytes } from './fields.js'
import { HEX_UPPER } from '../util/hex.js'
import { InvalidOptionError } from '../errors.js'

/** What an iBeacon frame carries. */
export interface IBeaconFrame {
  /** Canonical upper-case `8-4-4-4-12`. */
  proximityUUID: string
  major: number
  minor: number
  /** dBm at 1 m, signed. */
  measuredPower: number
}

/** Length of a complete iBeacon manufacturer-data element, company id included. */
export const IBEACON_LENGTH = 25

/** Vendor default proximity UUID. */
export const VENDOR_DEFAULT_UUID = '23A01AF0-232A-4518-9C0E-323FB773F5EF'

/** True when the bytes start like an iBeacon and are long enough to hold one. */
export function isIBeacon(md: Uint8Array): boolean {
  return md.length >= IBEACON_LENGTH && md[0] === 0x4c && md[1] === 0x00 && md[2] === 0x02 && md[3] === 0x15
}

/** UUID string of 16 bytes at `o`, upper-case with dashes. */
export function uuidString(b: Uint8Array, o: number): string {
  const h = HEX_UPPER
  return (
    h[b[o]] +
    h[b[o + 1]] +
    h[b[o + 2]] +
    h[b[o + 3]] +
    '-' +
    h[b[o + 4]] +
    h[b[o + 5]] +
    '-' +
    h[b[o + 6]] +
    h[b[o + 7]] +
    '-' +
    h[b[o + 8]] +
    h[b[o + 9]] +
    '-' +
    h[b[o + 10]] +
    h[b[o + 11]] +
    h[b[o + 12]] +
    h[b[o + 13]] +
    h[b[o + 14]] +
    h[b[o + 15]]
  )
}

/** The beaconID (docs/protocol.md): `UUID|major|minor`, major and minor in decimal. */
export function beaconIdOf(proximityUUID: string, major: number, minor: number): string {
  return `${proximityUUID}|${major}|${minor}`
}

/** Decodes manufacturer data as iBeacon; `null` when it is not one. Extra trailing bytes are ignored. */
export function decodeIBeacon(md: Uint8Array): IBeaconFrame | null {
  if (!isIBeacon(md)) return null
  return {
    proximityUUID: uuidString(md, 4),
    major: u16be(md, 20),
    minor: u16be(md, 22),
    measuredPower: i8(md[24]),
  }
}

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

/** Encodes an iBeacon manufacturer-data element (company id first, as noble delivers it). */
export function encodeIBeacon(frame: IBeaconFrame): Uint8Array {
  if (typeof frame.proximityUUID !== 'string' || !UUID_PATTERN.test(frame.proximityUUID)) {
    throw new InvalidOptionError(
      'invalid_option',
      'proximityUUID must be 32 hex digits, optionally in 8-4-4-4-12 form.',
      {
        option: 'proximityUUID',
      },
    )
  }
  const out = new Uint8Array(IBEACON_LENGTH)
  out.set([0x4c, 0x00, 0x02, 0x15])
  writeHexBytes(out, 4, frame.proximityUUID.replace(/-/g, ''))
  const major = checkInt('major', frame.major, 0, 0xffff)
  const minor = checkInt('minor', frame.minor, 0, 0xffff)
  out[20] = major >> 8
  out[21] = major & 0xff
  out[22] = minor >> 8
  out[23] = minor & 0xff
  out[24] = checkInt('measuredPower', frame.measuredPower, -128, 127) & 0xff
  return out
}
