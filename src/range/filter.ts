/**
 * Which beacons a scanner reports. Identity filters are matched against the merged beacon,
 * not single readings, because a serial number and a proximity UUID usually arrive in
 * different frames of the same device.
 */
import { InvalidOptionError } from '../errors.js'
import type { BeaconRecord } from './record.js'

/**
 * Scanner filter options. Every given criterion must hold; an empty filter passes everything.
 * Identity criteria are checked on the merged beacon until it first matches; a beacon that
 * matched stays reported for the rest of its visit (until gone), so a rotating iBeacon
 * identity cannot make it flap.
 */
export interface BeaconFilter {
  /** Only these serial numbers (case-insensitive). */
  serialNumbers?: Iterable<string>
  /** Only these proximity UUIDs (case-insensitive, with dashes). */
  proximityUUIDs?: Iterable<string>
  /** Only these beaconIDs, `UUID|major|minor` (UUID case-insensitive). */
  beaconIDs?: Iterable<string>
  /** Readings weaker than this (raw RSSI, dBm) are ignored. */
  minRssi?: number
  /** Only beacons whose private broadcast has been confirmed (two verified frames). */
  verifiedOnly?: boolean
}

/** A validated filter, ready for fast matching. */
export interface CompiledFilter {
  serialNumbers?: ReadonlySet<string>
  proximityUUIDs?: ReadonlySet<string>
  beaconIDs?: ReadonlySet<string>
  minRssi?: number
  verifiedOnly: boolean
  /** True when an identity criterion exists (so merged beacons must be checked). */
  identity: boolean
}

function upperSet(
  values: Iterable<string> | undefined,
  option: string,
  check: (v: string) => boolean,
  expected: string,
): ReadonlySet<string> | undefined {
  if (values === undefined) return undefined
  if (typeof values === 'string' || typeof (values as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw new InvalidOptionError(
      'invalid_option',
      `filter.${option} must be an array (or other iterable) of ${expected}.`,
      { option: `filter.${option}` },
    )
  }
  const out = new Set<string>()
  for (const v of values) {
    if (typeof v !== 'string' || !check(v)) {
      throw new InvalidOptionError(
        'invalid_option',
        `filter.${option} holds ${JSON.stringify(v)}; each entry must be ${expected}.`,
        { option: `filter.${option}` },
      )
    }
    out.add(v.toUpperCase())
  }
  return out
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const SERIAL = /^[0-9a-f]{12}$/i

/** Validates filter options; throws InvalidOptionError (code `invalid_option`) naming the option. */
export function compileFilter(filter: BeaconFilter | undefined): CompiledFilter {
  if (filter === undefined) return { verifiedOnly: false, identity: false }
  if (typeof filter !== 'object' || filter === null) {
    throw new InvalidOptionError(
      'invalid_option',
      'filter must be an object such as { serialNumbers: [...], minRssi: -90 }.',
      { option: 'filter' },
    )
  }
  const serialNumbers = upperSet(
    filter.serialNumbers,
    'serialNumbers',
    (v) => SERIAL.test(v),
    '12 hex digits, e.g. "0117C5456A36"',
  )
  const proximityUUIDs = upperSet(
    filter.proximityUUIDs,
    'proximityUUIDs',
    (v) => UUID.test(v),
    'a UUID like "23A01AF0-232A-4518-9C0E-323FB773F5EF"',
  )
  const beaconIDs = upperSet(
    filter.beaconIDs,
    'beaconIDs',
    isBeaconID,
    'a beaconID like "23A01AF0-232A-4518-9C0E-323FB773F5EF|1|2"',
  )
  if (filter.minRssi !== undefined && !(typeof filter.minRssi === 'number' && Number.isFinite(filter.minRssi))) {
    throw new InvalidOptionError('invalid_option', 'filter.minRssi must be a number of dBm, e.g. -90.', {
      option: 'filter.minRssi',
    })
  }
  if (filter.verifiedOnly !== undefined && typeof filter.verifiedOnly !== 'boolean') {
    throw new InvalidOptionError('invalid_option', 'filter.verifiedOnly must be true or false.', {
      option: 'filter.verifiedOnly',
    })
  }
  const out: CompiledFilter = { verifiedOnly: filter.verifiedOnly === true, identity: false }
  if (serialNumbers !== undefined) out.serialNumbers = serialNumbers
  if (proximityUUIDs !== undefined) out.proximityUUIDs = proximityUUIDs
  if (beaconIDs !== undefined) out.beaconIDs = beaconIDs
  if (filter.minRssi !== undefined) out.minRssi = filter.minRssi
  out.identity =
    serialNumbers !== undefined || proximityUUIDs !== undefined || beaconIDs !== undefined || out.verifiedOnly
  return out
}

function isBeaconID(v: string): boolean {
  const parts = v.split('|')
  if (parts.length !== 3 || !UUID.test(parts[0])) return false
  return parts.slice(1).every((p) => /^\d{1,5}$/.test(p) && Number(p) <= 0xffff)
}

/** Whether a merged beacon passes the identity criteria (minRssi is applied per reading). */
export function matchesFilter(b: BeaconRecord, f: CompiledFilter): boolean {
  if (f.verifiedOnly && b.secure?.verified !== true) return false
  if (
    f.serialNumbers !== undefined &&
    (b.serialNumber === undefined || !f.serialNumbers.has(b.serialNumber.toUpperCase()))
  )
    return false
  if (
    f.proximityUUIDs !== undefined &&
    (b.proximityUUID === undefined || !f.proximityUUIDs.has(b.proximityUUID.toUpperCase()))
  )
    return false
  if (f.beaconIDs !== undefined && (b.beaconID === undefined || !f.beaconIDs.has(b.beaconID.toUpperCase())))
    return false
  return true
}
