/** The grid filter's tuning and its defaults (see docs/positioning.md). */
/** Tuning of the grid filter; the defaults are physical, not fitted to any recording. */
export interface GridFilterParams {
  /** m/s: per-axis spread of the random walk per second (a walker covers ~1 m/s). */
  speed: number
  /**
   * dB added in quadrature to every anchor's model error: the body and orientation of a carried
   * tag, which a still survey does not see.
   */
  dynamicSd: number
  /** Degrees of freedom of the Student-t likelihood (smaller: heavier tails). */
  nu: number
  /**
   * Weight of a blocked (non-walkable) cell relative to a walkable one, applied to where the
   * walk lands each second. Not 0: the occupancy grid is coarse (0.5 m) and a survey's points
   * may stand on "occupied" cells (tetam: 41 %), so it cannot be a hard wall. 0.05 is what
   * leave-one-track-out chose on tetam (three rotations of four; 0.1 the fourth); see
   * docs/positioning.md.
   */
  blockedWeight: number
  /**
   * s: time constant of each anchor's learned offset from the radio map (0: off). Receivers
   * drift and the survey was taken on another day, so each anchor's readings may sit a few dB
   * off the map for hours; 30 s is far longer than a person's body shadowing one receiver
   * (seconds), so the offset follows the slow part and not the body.
   */
  biasTau: number
  /** dB: the learned offset is held within ± this (a receiver's calibration, not a wall). */
  biasMax: number
}

/** Defaults of {@link GridFilterParams}. */
export const DEFAULT_GRID_FILTER: Readonly<GridFilterParams> = Object.freeze({
  speed: 1.0,
  dynamicSd: 3,
  nu: 4,
  blockedWeight: 0.05,
  biasTau: 30,
  biasMax: 6,
})
