/**
 * The log-distance path-loss model, `rssi = p0 − 10 · n · log10(d)`, and its least-squares fit
 * to survey means. The physics every other model starts from: multilateration inverts it, the
 * radio map interpolates the survey's departures from it.
 */

/** One anchor's path-loss parameters. */
export interface PathLoss {
  /** dBm at 1 m. */
  p0: number
  /** Path-loss exponent (2 in free space, 2–4 indoors). */
  n: number
  /** dB: spread of survey means around the fitted curve. */
  sigma: number
}

/** Typical BLE indoors, for a site without a survey: −59 dBm at 1 m, exponent 2.2, 6 dB spread. */
export const DEFAULT_PATH_LOSS: Readonly<PathLoss> = Object.freeze({ p0: -59, n: 2.2, sigma: 6 })

/** Distances below this are clamped: the model has no meaning inside the antenna's near field. */
export const MIN_DISTANCE_M = 0.5

/** Expected RSSI at distance `d` metres. */
export function rssiAt(model: PathLoss, d: number): number {
  return model.p0 - 10 * model.n * Math.log10(Math.max(MIN_DISTANCE_M, d))
}

/** Distance in metres at which the model expects `rssi`. */
export function distanceFor(model: PathLoss, rssi: number): number {
  return Math.max(MIN_DISTANCE_M, 10 ** ((model.p0 - rssi) / (10 * model.n)))
}

/**
 * Least-squares fit of p0 and n to (distance, mean RSSI) pairs. The exponent is held within
 * 1–6 (outside it a fit chases noise); fewer than three pairs or too little spread in distance
 * give the defaults with p0 shifted to the pairs' mean.
 */
export function fitPathLoss(pairs: readonly { d: number; rssi: number }[]): PathLoss {
  const k = pairs.length
  if (k === 0) return { ...DEFAULT_PATH_LOSS }
  let sx = 0
  let sy = 0
  for (const p of pairs) {
    sx += -10 * Math.log10(Math.max(MIN_DISTANCE_M, p.d))
    sy += p.rssi
  }
  const mx = sx / k
  const my = sy / k
  let sxx = 0
  let sxy = 0
  for (const p of pairs) {
    const x = -10 * Math.log10(Math.max(MIN_DISTANCE_M, p.d)) - mx
    sxx += x * x
    sxy += x * (p.rssi - my)
  }
  let n = k >= 3 && sxx > 1 ? sxy / sxx : DEFAULT_PATH_LOSS.n
  n = Math.min(6, Math.max(1, n))
  const p0 = my - n * mx
  let sr = 0
  for (const p of pairs) sr += (p.rssi - (p0 - 10 * n * Math.log10(Math.max(MIN_DISTANCE_M, p.d)))) ** 2
  const sigma = k >= 3 ? Math.sqrt(sr / (k - 2)) : DEFAULT_PATH_LOSS.sigma
  return { p0, n, sigma }
}
