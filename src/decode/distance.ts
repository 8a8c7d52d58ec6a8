/**
 * Distance estimate from signal strength (docs/protocol.md, "Distance"). The coefficients are the
 * ones the vendor SDK and the common iOS approximation share, so numbers agree with the platform's
 * apps.
 * Physics, not range-table state: it sits below decoding, which computes a reading's accuracy,
 * and the range table, which computes it again from the smoothed RSSI, both call it.
 */
import type { Proximity } from '../reading.js'
import { InvalidOptionError } from '../errors.js'

/** Upper bounds (metres) of the proximity zones: below `immediate` → immediate; up to `near` → near. */
export interface ProximityThresholds {
  immediate: number
  near: number
}

/** Defaults: 0.5 m ("very near") and 4 m. */
export const DEFAULT_PROXIMITY_THRESHOLDS: Readonly<ProximityThresholds> = Object.freeze({ immediate: 0.5, near: 4 })

/**
 * Estimated distance in metres, rounded to 4 decimals; -1 when either input is 0, missing
 * or not finite (nothing can be estimated).
 */
export function accuracy(rssi: number, measuredPower: number | undefined): number {
  if (
    measuredPower === undefined ||
    measuredPower === 0 ||
    rssi === 0 ||
    !Number.isFinite(rssi) ||
    !Number.isFinite(measuredPower)
  ) {
    return -1
  }
  // Raw RSSI and measured power are whole dBm in narrow ranges, so every pair that a packet can
  // carry is computed once and then looked up: the fractional power costs ~100 ns per call.
  if (
    Number.isInteger(rssi) &&
    Number.isInteger(measuredPower) &&
    rssi >= RSSI_LOW &&
    rssi <= RSSI_HIGH &&
    measuredPower >= -128 &&
    measuredPower <= 127
  ) {
    let row = tables[measuredPower + 128]
    if (row === undefined) {
      row = new Float64Array(RSSI_HIGH - RSSI_LOW + 1).fill(Number.NaN)
      tables[measuredPower + 128] = row
    }
    const i = rssi - RSSI_LOW
    const cached = row[i]
    if (cached === cached) return cached // not NaN: computed before
    return (row[i] = estimate(rssi, measuredPower))
  }
  return estimate(rssi, measuredPower)
}

/** RSSI range a controller reports; the lookup tables cover it. */
const RSSI_LOW = -128
const RSSI_HIGH = 127
/** One lazily filled row per measured power (at most 256 rows of 2 KiB). */
const tables: (Float64Array | undefined)[] = new Array(256).fill(undefined)

function estimate(rssi: number, measuredPower: number): number {
  const r = rssi / measuredPower
  // A negative ratio (a positive measured power, as some misconfigured beacons send) still
  // goes through the r^10 branch, as in the platform's SDKs, so the numbers stay comparable.
  const metres = r < 1 ? r ** 10 : 0.89976 * r ** 7.7095 + 0.111
  if (!Number.isFinite(metres)) return -1
  return Math.round(metres * 10_000) / 10_000
}

/** Proximity zone of an accuracy. */
export function proximity(metres: number, thresholds: ProximityThresholds = DEFAULT_PROXIMITY_THRESHOLDS): Proximity {
  if (!(metres >= 0)) return 'unknown'
  if (metres < thresholds.immediate) return 'immediate'
  if (metres <= thresholds.near) return 'near'
  return 'far'
}

/** Validates user-supplied thresholds; throws InvalidOptionError with what is wrong. */
export function checkProximityThresholds(t: unknown, option = 'proximityThresholds'): ProximityThresholds {
  const v = t as Partial<ProximityThresholds> | null
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.immediate !== 'number' ||
    typeof v.near !== 'number' ||
    !(v.immediate > 0) ||
    !(v.near >= v.immediate) ||
    !Number.isFinite(v.near)
  ) {
    throw new InvalidOptionError(
      'invalid_option',
      `${option} must be { immediate, near } in metres with 0 < immediate <= near, e.g. { immediate: 0.5, near: 4 }.`,
      { option },
    )
  }
  return { immediate: v.immediate, near: v.near }
}
