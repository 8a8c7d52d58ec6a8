/**
 * The grid filter (a discrete Bayes filter, an HMM over the walkable cells): the beacon's
 * position is a probability per cell; between updates it spreads by a walking-speed random walk
 * and leaks little into blocked cells; each update multiplies in how well every cell's expected
 * RSSI explains the window's per-anchor means. Robust (Student-t) likelihood, because body
 * shadowing and multipath give RSSI heavy tails a Gaussian would over-trust; wider below the
 * expected value than above it by the radio map's skew (fades and bodies only ever take signal
 * away).
 */
import type { WindowMeans, Fix } from './baselines.js'
import type { RadioMap } from './radio-map.js'

/** Tuning of the grid filter; the defaults are physical, not fitted to any recording. */
export interface GridFilterParams {
  /** m/s: per-axis spread of the random walk per second (a walker covers ~1 m/s). */
  speed: number
  /** dB added in quadrature to every anchor's model error: the body and orientation of a carried tag, which a still survey does not see. */
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
export const DEFAULT_GRID_FILTER: Readonly<GridFilterParams> = Object.freeze({ speed: 1.0, dynamicSd: 3, nu: 4, blockedWeight: 0.05, biasTau: 30, biasMax: 6 })

/**
 * m: the posterior's RMS radius below which the filter trusts itself enough to learn anchor
 * offsets — about the survey's spacing between reference points (1.7 m on tetam), below which
 * the radio map itself cannot say more. Fixed a priori.
 */
const CONFIDENT_M = 1.5

/** Scratch arrays shared by every beacon's filter of one positioner (single-threaded, so safe). */
export class FilterScratch {
  readonly tmp: Float64Array
  readonly prior: Float64Array
  constructor(readonly map: RadioMap, params: GridFilterParams) {
    this.tmp = new Float64Array(map.grid.size)
    this.prior = Float64Array.from(map.grid.walkable, (w) => (w === 1 ? 1 : params.blockedWeight))
  }
}

/** One beacon's posterior over the cells. */
export class GridFilter {
  /** Probability per cell, sums to 1. */
  readonly p: Float32Array
  /** ms: the time of the last update, NaN before the first. */
  time = Number.NaN
  /** dB per anchor: how far its readings sit from the radio map, learned (see `biasTau`). */
  private readonly bias: Float64Array

  constructor(
    private readonly scratch: FilterScratch,
    private readonly params: GridFilterParams,
  ) {
    const prior = scratch.prior
    let s = 0
    for (let i = 0; i < prior.length; i++) s += prior[i]
    this.p = Float32Array.from(prior, (v) => v / s)
    this.bias = new Float64Array(scratch.map.anchors.length)
  }

  /** Spreads the posterior over `dtMs` of walking, then weighs in one window of readings taken at `time`. */
  update(w: WindowMeans, time: number): void {
    // The offsets learn per second of the clock, not per update: packets may be folded one by one.
    const dt = Number.isNaN(this.time) ? 0 : Math.max(0, (time - this.time) / 1000)
    if (dt > 0) this.predict(dt)
    this.time = Number.isNaN(this.time) ? time : Math.max(this.time, time)
    const { map, tmp } = this.scratch
    const size = map.grid.size
    tmp.fill(0)
    const { nu, dynamicSd } = this.params
    const half = (nu + 1) / 2
    for (let a = 0; a < w.mean.length; a++) {
      if (Number.isNaN(w.mean[a]) || w.count[a] === 0) continue
      const m = map.anchors[a]
      const s2 = m.modelSd * m.modelSd + dynamicSd * dynamicSd + (m.packetSd * m.packetSd) / w.count[a]
      const k = 1 / (nu * s2)
      const kWeak = k / (map.skew * map.skew)
      const base = a * size
      const obs = w.mean[a] - this.bias[a]
      for (let c = 0; c < size; c++) {
        const e = obs - map.mean[base + c]
        tmp[c] -= half * Math.log1p(e * e * (e < 0 ? kWeak : k))
      }
    }
    let max = -Infinity
    for (let c = 0; c < size; c++) if (tmp[c] > max) max = tmp[c]
    let s = 0
    for (let c = 0; c < size; c++) {
      const v = this.p[c] * Math.exp(tmp[c] - max)
      this.p[c] = v
      s += v
    }
    if (!(s > 0)) this.reset()
    else {
      for (let c = 0; c < size; c++) this.p[c] /= s
      this.learnBias(w, dt)
    }
  }

  /**
   * Moves each heard anchor's offset toward its reading minus what the posterior expects there,
   * but only when the filter is sure where the tag is: an unsure posterior would teach the
   * offsets its own error. Causal (this step's readings and posterior only) and O(cells) per anchor.
   */
  private learnBias(w: WindowMeans, dt: number): void {
    const { biasTau, biasMax } = this.params
    if (!(biasTau > 0) || !(dt > 0)) return
    if (this.estimate(this.time).accuracy > CONFIDENT_M) return
    const { map } = this.scratch
    const size = map.grid.size
    const alpha = 1 - Math.exp(-dt / biasTau)
    for (let a = 0; a < w.mean.length; a++) {
      if (Number.isNaN(w.mean[a]) || w.count[a] === 0) continue
      let expected = 0
      const base = a * size
      for (let c = 0; c < size; c++) expected += this.p[c] * map.mean[base + c]
      const b = this.bias[a] + alpha * (w.mean[a] - expected - this.bias[a])
      this.bias[a] = Math.max(-biasMax, Math.min(biasMax, b))
    }
  }

  /** Becomes a copy of `other` (same grid): the positioner's look-ahead over the newest packets. */
  copyFrom(other: GridFilter): void {
    this.p.set(other.p)
    this.time = other.time
    this.bias.set(other.bias)
  }

  /** Back to the prior: nothing known. */
  reset(): void {
    const prior = this.scratch.prior
    let s = 0
    for (let i = 0; i < prior.length; i++) s += prior[i]
    for (let i = 0; i < prior.length; i++) this.p[i] = prior[i] / s
    this.bias.fill(0)
  }

  /** The posterior mean and the RMS radius around it, grown by the walk since the last update. */
  estimate(at: number): Fix {
    const g = this.scratch.map.grid
    let sx = 0
    let sy = 0
    let sxx = 0
    let syy = 0
    for (let iy = 0; iy < g.ny; iy++) {
      const y = g.y(iy)
      for (let ix = 0; ix < g.nx; ix++) {
        const v = this.p[ix + iy * g.nx]
        const x = g.x(ix)
        sx += v * x
        sy += v * y
        sxx += v * x * x
        syy += v * y * y
      }
    }
    const since = Number.isNaN(this.time) ? 0 : Math.max(0, (at - this.time) / 1000)
    const walk = this.params.speed * since
    // The grid cannot resolve below a cell: a quarter cell of spread is always there.
    const variance = Math.max(0, sxx - sx * sx) + Math.max(0, syy - sy * sy) + 2 * walk * walk + (g.cell * g.cell) / 6
    return { x: sx, y: sy, accuracy: Math.sqrt(variance) }
  }

  private predict(dt: number): void {
    const g = this.scratch.map.grid
    const sigma = (this.params.speed * dt) / g.cell
    if (sigma < 0.25) return
    const radius = Math.ceil(3 * sigma)
    if (radius > Math.max(g.nx, g.ny)) {
      this.reset()
      return
    }
    const kernel = new Float64Array(2 * radius + 1)
    for (let i = -radius; i <= radius; i++) kernel[i + radius] = Math.exp((-i * i) / (2 * sigma * sigma))
    const { tmp, prior } = this.scratch
    const { nx, ny } = g
    // Separable blur: rows into tmp, then columns back into p. Mass blurred off the edge is
    // renormalised away, which is right: the beacon is on the site.
    for (let iy = 0; iy < ny; iy++) {
      const row = iy * nx
      for (let ix = 0; ix < nx; ix++) {
        let s = 0
        const lo = Math.max(0, ix - radius)
        const hi = Math.min(nx - 1, ix + radius)
        for (let j = lo; j <= hi; j++) s += this.p[row + j] * kernel[j - ix + radius]
        tmp[row + ix] = s
      }
    }
    let total = 0
    for (let ix = 0; ix < nx; ix++) {
      for (let iy = 0; iy < ny; iy++) {
        let s = 0
        const lo = Math.max(0, iy - radius)
        const hi = Math.min(ny - 1, iy + radius)
        for (let j = lo; j <= hi; j++) s += tmp[ix + j * nx] * kernel[j - iy + radius]
        const v = s * prior[ix + iy * nx]
        this.p[ix + iy * nx] = v
        total += v
      }
    }
    if (!(total > 0)) this.reset()
    else for (let c = 0; c < this.p.length; c++) this.p[c] /= total
  }
}
