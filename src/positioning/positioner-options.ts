/**
 * What a {@link Positioner} takes and counts: its options, checked, and which observations are
 * usable at all.
 */
import { InvalidOptionError } from '../errors.js'
import { DEFAULT_GRID_FILTER, type GridFilterParams } from './grid-filter-params.js'
import type { PositioningMethod, Observation } from './types.js'
import type { RadioMap } from './radio-map.js'
import type { Site } from './site.js'

/** Options of {@link Positioner}. */
export interface PositionerOptions {
  site: Site
  /** The observation model; default physics from the site when absent (expect metres of error). */
  radioMap?: RadioMap
  /** Default `'filter'` (the grid filter); the others are the single-shot baselines. */
  method?: PositioningMethod
  /** ms of packets the single-shot methods average (default 2000). */
  windowMs?: number
  /** ms of packets the filter folds into one update (default 1000). */
  stepMs?: number
  /**
   * ms a packet may arrive after an estimate for a later time and still count (default 1000):
   * gateways report in batches, so the newest packets are held back from the filter for good
   * until this old. Packets older than that are counted in `stats.late` and skipped.
   */
  lagMs?: number
  /** Grid filter tuning. */
  filter?: Partial<GridFilterParams>
  /** Neighbours of the kNN method (default 3). */
  k?: number
  /** Packets kept per beacon (default 256). */
  bufferSize?: number
  /** Beacons tracked at once; the one heard least recently is let go beyond it (default 10000). */
  maxBeacons?: number
}

/** Counters of a {@link Positioner}. */
export interface PositionerStats {
  observations: number
  /** From anchors the site does not place. */
  unknownAnchor: number
  /** A time beyond the range of a Date (±8.64e15 ms) or not finite, or RSSI outside −130…20 dBm. */
  invalid: number
  /** Older than what the filter had already folded in for good (see `lagMs`). */
  late: number
  /** Beacons let go because `maxBeacons` was reached. */
  evicted: number
}

/**
 * Latest |time| (ms) taken: the range of a `Date`. Times come from gateways over the network; far
 * beyond it a double cannot tell a time from the next step's (−1e20 + 1000 is −1e20).
 */
export const MAX_TIME_MS = 8.64e15

/**
 * Whether an observation can be taken at all: a time within ±{@link MAX_TIME_MS}, RSSI within
 * −130…20 dBm, a beacon id.
 */
export function usableObservation(o: Observation): boolean {
  return (
    Math.abs(o.time) <= MAX_TIME_MS &&
    Number.isFinite(o.rssi) &&
    o.rssi >= -130 &&
    o.rssi <= 20 &&
    typeof o.beacon === 'string'
  )
}

/** A positive finite setting, or `fallback` when not given. */
export function positiveOption(v: number | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback
  if (!(v > 0) || !Number.isFinite(v))
    throw new InvalidOptionError('invalid_option', `positioner: ${name} is ${v}; give a positive number`, {
      option: name,
    })
  return v
}

/** The grid filter's settings over its defaults; a setting that is not a finite number ≥ 0 is refused. */
export function filterParams(given: Partial<GridFilterParams> | undefined): GridFilterParams {
  const params = { ...DEFAULT_GRID_FILTER, ...given }
  for (const [name, v] of Object.entries(params)) {
    // A NaN or a negative setting would not throw later: it would quietly reset the filter every step.
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new InvalidOptionError(
        'invalid_option',
        `positioner: filter.${name} is ${String(v)}; give a finite number, 0 or more`,
        { option: `filter.${name}` },
      )
  }
  return params
}
