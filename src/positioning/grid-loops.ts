// The filter's inner loops, as small functions of typed arrays: each is called with the same
// shapes every time, so the JIT optimises it once and keeps it (inside one large method, a loop
// first reached after the method was optimised deoptimised it, again and again).

/**
 * Blurs each of `oh` rows of `from` (width `ow`) along x into `to` (width `nw`): old column i
 * lands in new column i + shift + t with weight kernel[t + radius]; columns outside `to` are dropped.
 */
export function blurRows(
  from: Float32Array,
  ow: number,
  oh: number,
  to: Float64Array,
  nw: number,
  kernel: Float64Array,
  radius: number,
  shift: number,
): void {
  to.fill(0, 0, oh * nw)
  for (let iy = 0; iy < oh; iy++) {
    const src = iy * ow
    for (let t = -radius; t <= radius; t++) {
      const k = kernel[t + radius]
      const s = shift + t
      const dst = iy * nw + s
      const hi = Math.min(ow, nw - s)
      for (let i = Math.max(0, -s); i < hi; i++) to[dst + i] += k * from[src + i]
    }
  }
}

/**
 * Blurs `oh` rows of `from` (width `nw`) along y into the `nh` rows of `to`: old row iy lands in
 * new row iy + shift + t with weight kernel[t + radius], whole rows at a time.
 */
export function blurColumns(
  from: Float64Array,
  nw: number,
  oh: number,
  to: Float32Array,
  nh: number,
  kernel: Float64Array,
  radius: number,
  shift: number,
): void {
  to.fill(0, 0, nw * nh)
  for (let iy = 0; iy < oh; iy++) {
    const src = iy * nw
    const at = iy + shift
    const hi = Math.min(nh - 1, at + radius)
    for (let cy = Math.max(0, at - radius); cy <= hi; cy++) {
      const k = kernel[cy - at + radius]
      const dst = cy * nw
      for (let cx = 0; cx < nw; cx++) to[dst + cx] += k * from[src + cx]
    }
  }
}

/** Multiplies the window `p` (nw × nh) by the grid's `prior` from cell `start` (grid width `nx`); returns the sum. */
export function weighByPrior(
  p: Float32Array,
  nw: number,
  nh: number,
  prior: Float64Array,
  start: number,
  nx: number,
): number {
  let total = 0
  for (let cy = 0; cy < nh; cy++) {
    const row = cy * nw
    const cell = start + cy * nx
    for (let cx = 0; cx < nw; cx++) {
      const v = p[row + cx] * prior[cell + cx]
      p[row + cx] = v
      total += v
    }
  }
  return total
}

/**
 * One anchor's Student-t factors into `prod` over the window (ww × wh): 1 + e²·k per cell, with
 * e the reading `obs` less the radio map's mean from `base` (grid width `nx`), `kWeak` where the
 * reading is the weaker.
 */
export function multiplyFactors(
  prod: Float64Array,
  mean: Float32Array,
  base: number,
  nx: number,
  ww: number,
  wh: number,
  obs: number,
  k: number,
  kWeak: number,
): void {
  for (let iy = 0; iy < wh; iy++) {
    const from = base + iy * nx
    const row = iy * ww
    for (let ix = 0; ix < ww; ix++) {
      const e = obs - mean[from + ix]
      prod[row + ix] *= 1 + e * e * (e < 0 ? kWeak : k)
    }
  }
}

/** Copies the first `n` cells of `from` to `to` (a loop: no subarray view allocated per call). */
export function copyCells(from: Float32Array, to: Float32Array, n: number): void {
  for (let c = 0; c < n; c++) to[c] = from[c]
}
