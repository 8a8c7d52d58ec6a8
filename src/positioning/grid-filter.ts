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
import type { FilterScratch } from './filter-scratch.js'
import type { GridFilterParams } from './grid-filter-params.js'
import { blurColumns, blurRows, copyCells, multiplyFactors, weighByPrior } from './grid-loops.js'

/**
 * m: the posterior's RMS radius below which the filter trusts itself enough to learn anchor
 * offsets — about the survey's spacing between reference points (1.7 m on tetam), below which
 * the radio map itself cannot say more. Fixed a priori.
 */
const CONFIDENT_M = 1.5

/**
 * Anchors whose likelihood factors are multiplied before one logarithm. Each factor is at most
 * 1 + (150 dB)² · k, and k ≤ 1 for ν ≥ 1 and the radio map's model spread of at least 1 dB:
 * 16 of them stay below 10⁷⁰, far inside a double's range.
 */
const GROUP = 16

/**
 * Cells whose probability falls below this share of the most probable cell's are let go: the
 * posterior is kept on the smallest rectangle of cells holding the rest. On a large site a
 * beacon's posterior covers a few metres, not the whole floor, and both its memory and its work
 * per update follow the rectangle. Mass let go is below a millionth of the peak per cell, far
 * below what moves an estimate; the walk widens the rectangle again every step, so a beacon
 * that moves is followed. Fixed a priori (a cost setting, not fitted to a recording).
 */
const LET_GO = 1e-4

/**
 * One beacon's posterior over the cells, held on a window (a rectangle of the grid; cells
 * outside it have probability 0).
 */
export class GridFilter {
  /** Probability per cell of the window, row-major (`(ix - x0) + (iy - y0) * w`); sums to 1. */
  private p: Float32Array
  /**
   * The beacon's own storage, sized to its window. During an update `p` is the shared scratch
   * (the walk widens the window before the readings narrow it again); the result is copied
   * back, so a beacon keeps only its narrowed window between updates.
   */
  private own: Float32Array
  /** The window: first column and row, width and height in cells. */
  private x0 = 0
  private y0 = 0
  private w: number
  private h: number
  /** ms: the time of the last update, NaN before the first. */
  time = Number.NaN
  /** dB per anchor: how far its readings sit from the radio map, learned (see `biasTau`). */
  private readonly bias: Float32Array

  constructor(
    private readonly scratch: FilterScratch,
    private readonly params: GridFilterParams,
  ) {
    const g = scratch.map.grid
    this.w = g.nx
    this.h = g.ny
    this.own = new Float32Array(g.size)
    this.p = this.own
    // Float32: an offset is a few dB learned over tens of seconds; a site may have hundreds of anchors.
    this.bias = new Float32Array(scratch.map.anchors.length)
    this.fillPrior()
  }

  /** Cells in the window now (for memory and cost accounting). */
  get cells(): number {
    return this.w * this.h
  }

  /** Bytes of the posterior's storage. */
  get bytes(): number {
    return this.own.byteLength + this.bias.byteLength
  }

  /** Spreads the posterior over `dtMs` of walking, then weighs in one window of readings taken at `time`. */
  update(w: WindowMeans, time: number): void {
    // The offsets learn per second of the clock, not per update: packets may be folded one by one.
    const dt = Number.isNaN(this.time) ? 0 : Math.max(0, (time - this.time) / 1000)
    if (dt > 0) this.predict(dt)
    this.time = Number.isNaN(this.time) ? time : Math.max(this.time, time)
    const { map, tmp } = this.scratch
    const { nx, size } = map.grid
    const { x0, y0, w: ww, h: wh } = this
    const n = ww * wh
    const { nu, dynamicSd } = this.params
    const half = (nu + 1) / 2
    // Σ log(1 + x) is taken as log Π (1 + x), a product per cell over up to GROUP anchors: one
    // logarithm per cell instead of one per anchor and cell (it was most of the filter's cost).
    // With one group and a half-integer exponent (ν = 4 gives 2.5) the posterior's factor
    // (Π_best / Π)^half needs only a square root: no logarithm or exponential at all.
    const prod = this.scratch.prod
    tmp.fill(0, 0, n)
    let heard = 0
    for (let a = 0; a < w.mean.length; a++) {
      if (Number.isNaN(w.mean[a]) || w.count[a] === 0) continue
      if (heard % GROUP === 0) {
        if (heard > 0) this.foldGroup(n, half)
        prod.fill(1, 0, n)
      }
      heard++
      const m = map.anchors[a]
      const s2 = m.modelSd * m.modelSd + dynamicSd * dynamicSd + (m.packetSd * m.packetSd) / w.count[a]
      const k = 1 / (nu * s2)
      const kWeak = k / (map.skew * map.skew)
      multiplyFactors(prod, map.mean, a * size + x0 + y0 * nx, nx, ww, wh, w.mean[a] - this.bias[a], k, kWeak)
    }
    const p = this.p
    let s = 0
    const whole = Math.floor(half)
    if (heard > 0 && heard <= GROUP && (half === whole || half - whole === 0.5)) {
      let best = Infinity
      for (let c = 0; c < n; c++) if (prod[c] < best) best = prod[c]
      const root = half !== whole
      for (let c = 0; c < n; c++) {
        const r = best / prod[c]
        let f = root ? Math.sqrt(r) : 1
        for (let i = 0; i < whole; i++) f *= r
        const v = p[c] * f
        p[c] = v
        s += v
      }
    } else {
      if (heard > 0) this.foldGroup(n, half)
      let max = -Infinity
      for (let c = 0; c < n; c++) if (tmp[c] > max) max = tmp[c]
      for (let c = 0; c < n; c++) {
        const v = p[c] * Math.exp(tmp[c] - max)
        p[c] = v
        s += v
      }
    }
    if (!(s > 0)) this.reset()
    else {
      this.shrink(s)
      this.settle()
      this.learnBias(w, dt)
    }
  }

  /** Adds one group's log-likelihood, −half · log Π, to the scratch sums. */
  private foldGroup(n: number, half: number): void {
    const { tmp, prod } = this.scratch
    for (let c = 0; c < n; c++) tmp[c] -= half * Math.log(prod[c])
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
    const { nx, size } = map.grid
    const { x0, y0, w: ww, h: wh, p } = this
    const alpha = 1 - Math.exp(-dt / biasTau)
    for (let a = 0; a < w.mean.length; a++) {
      if (Number.isNaN(w.mean[a]) || w.count[a] === 0) continue
      let expected = 0
      for (let iy = 0; iy < wh; iy++) {
        const base = a * size + x0 + (y0 + iy) * nx
        const row = iy * ww
        for (let ix = 0; ix < ww; ix++) expected += p[row + ix] * map.mean[base + ix]
      }
      const b = this.bias[a] + alpha * (w.mean[a] - expected - this.bias[a])
      this.bias[a] = Math.max(-biasMax, Math.min(biasMax, b))
    }
  }

  /** Becomes a copy of `other` (same grid): the positioner's look-ahead over the newest packets. */
  copyFrom(other: GridFilter): void {
    const n = other.w * other.h
    this.p = this.ownFor(n)
    copyCells(other.p, this.p, n)
    this.x0 = other.x0
    this.y0 = other.y0
    this.w = other.w
    this.h = other.h
    this.time = other.time
    this.bias.set(other.bias)
  }

  /** Back to the prior: nothing known. */
  reset(): void {
    this.fillPrior()
    this.bias.fill(0)
  }

  /** The window becomes the whole grid, holding the prior. */
  private fillPrior(): void {
    const { grid } = this.scratch.map
    const prior = this.scratch.prior
    this.x0 = 0
    this.y0 = 0
    this.w = grid.nx
    this.h = grid.ny
    this.p = this.ownFor(grid.size)
    let s = 0
    for (let i = 0; i < prior.length; i++) s += prior[i]
    for (let i = 0; i < prior.length; i++) this.p[i] = prior[i] / s
  }

  /**
   * The own storage, reallocated when it cannot hold `n` cells (then with a quarter to spare:
   * windows breathe by a row or two every second, and a window one row larger than any before
   * should not cost an allocation) or holds more than twice that.
   */
  private ownFor(n: number): Float32Array {
    if (this.own.length < n || this.own.length > 2 * n + 64) this.own = new Float32Array(n + (n >> 2) + 16)
    return this.own
  }

  /** Copies a window left in the shared scratch back into the beacon's own storage. */
  private settle(): void {
    if (this.p === this.own) return
    const n = this.w * this.h
    const from = this.p
    this.p = this.ownFor(n)
    copyCells(from, this.p, n)
  }

  /** The posterior mean and the RMS radius around it, grown by the walk since the last update. */
  estimate(at: number): Fix {
    const g = this.scratch.map.grid
    const { x0, y0, w: ww, h: wh, p } = this
    let sx = 0
    let sy = 0
    let sxx = 0
    let syy = 0
    for (let iy = 0; iy < wh; iy++) {
      const y = g.y(y0 + iy)
      for (let ix = 0; ix < ww; ix++) {
        const v = p[ix + iy * ww]
        const x = g.x(x0 + ix)
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

  /**
   * Normalises the posterior (its cells sum to `total`) and narrows the window to the smallest
   * rectangle holding all but {@link LET_GO} of the mass, letting go of the rest: one pass of
   * marginals, one of division (over the kept cells only).
   */
  private shrink(total: number): void {
    const { x0, y0, w: ww, h: wh } = this
    const p = this.p
    // Marginals along x and y; each side is trimmed while the mass cut off stays within a
    // quarter of the allowance, so at most LET_GO is let go in all.
    const cols = this.scratch.cols
    const rows = this.scratch.rows
    cols.fill(0, 0, ww)
    for (let iy = 0; iy < wh; iy++) {
      let r = 0
      const row = iy * ww
      for (let ix = 0; ix < ww; ix++) {
        const v = p[row + ix]
        r += v
        cols[ix] += v
      }
      rows[iy] = r
    }
    const side = (total * LET_GO) / 4
    let lx = 0
    let hx = ww - 1
    let ly = 0
    let hy = wh - 1
    for (let cut = cols[lx]; lx < hx && cut <= side; cut += cols[++lx]);
    for (let cut = cols[hx]; hx > lx && cut <= side; cut += cols[--hx]);
    for (let cut = rows[ly]; ly < hy && cut <= side; cut += rows[++ly]);
    for (let cut = rows[hy]; hy > ly && cut <= side; cut += rows[--hy]);
    if (lx === 0 && ly === 0 && hx === ww - 1 && hy === wh - 1) {
      for (let c = 0; c < ww * wh; c++) p[c] /= total
      return
    }
    const nw = hx - lx + 1
    const nh = hy - ly + 1
    let s = 0
    // Rows move toward the start of the array only (the new window is inside the old), so in place.
    for (let iy = 0; iy < nh; iy++) {
      const from = lx + (ly + iy) * ww
      const to = iy * nw
      for (let ix = 0; ix < nw; ix++) {
        const v = p[from + ix]
        p[to + ix] = v
        s += v
      }
    }
    for (let c = 0; c < nw * nh; c++) p[c] /= s
    this.x0 = x0 + lx
    this.y0 = y0 + ly
    this.w = nw
    this.h = nh
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
    const kernel = this.scratch.kernel(sigma, radius)
    const { tmp, prior } = this.scratch
    const { nx, ny } = g
    // The walk reaches `radius` cells beyond the window: that is the new window.
    const ox0 = this.x0
    const oy0 = this.y0
    const ow = this.w
    const oh = this.h
    const nx0 = Math.max(0, ox0 - radius)
    const ny0 = Math.max(0, oy0 - radius)
    const nw = Math.min(nx - 1, ox0 + ow - 1 + radius) - nx0 + 1
    const nh = Math.min(ny - 1, oy0 + oh - 1 + radius) - ny0 + 1
    // Separable blur: the old window's rows into tmp (new columns, old rows), then tmp's rows
    // into the new window. Mass blurred off the grid's edge is renormalised away, which is right:
    // the beacon is on the site.
    blurRows(this.p, ow, oh, tmp, nw, kernel, radius, ox0 - nx0)
    const q = this.scratch.work
    this.p = q
    blurColumns(tmp, nw, oh, q, nh, kernel, radius, oy0 - ny0)
    const total = weighByPrior(q, nw, nh, prior, nx0 + ny0 * nx, nx)
    this.x0 = nx0
    this.y0 = ny0
    this.w = nw
    this.h = nh
    // Not normalised here: the update that follows always is (in `shrink`).
    if (!(total > 0)) this.reset()
  }
}
