/**
 * The shapes the positioning engine takes and gives: observations in, position estimates out,
 * survey samples for calibration. Shared by the radio map, the methods and the positioner.
 */

/** One received packet: `anchor` heard `beacon` (or, in the mobile case, the scanner heard fixed beacon `anchor`). */
export interface Observation {
  /** ms, any epoch, non-decreasing per beacon. */
  time: number
  /** The fixed side of the link: a receiver id, or a fixed beacon's id in the mobile case. */
  anchor: string
  /** The moving side: the beacon being tracked, or the scanner in the mobile case. */
  beacon: string
  /** dBm. */
  rssi: number
}

/** A position on the site's plan. */
export interface PositionEstimate {
  /** Metres on the site's plan. */
  x: number
  y: number
  /** Metres: a 1-sigma-like radius (about 63 % of errors fall inside it when the model holds). */
  accuracy: number
  /** The room whose polygon holds the position, when the site has rooms. */
  room?: string
}

/** One packet of a site survey: the beacon held still at a known point (x, y), heard by `anchor`. */
export interface SurveySample {
  x: number
  y: number
  anchor: string
  rssi: number
}

/** How a {@link Positioner} turns observations into positions. */
export type PositioningMethod = 'filter' | 'nearest' | 'centroid' | 'multilateration' | 'knn'

/** Every method, the default first. */
export const POSITIONING_METHODS: readonly PositioningMethod[] = [
  'filter',
  'nearest',
  'centroid',
  'multilateration',
  'knn',
]
