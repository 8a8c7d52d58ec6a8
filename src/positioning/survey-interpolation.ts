/**
 * How a survey's departures from the path-loss curves are spread between its reference points:
 * a Gaussian kernel shrunk toward zero (the curve) far from any point, its width and shrinkage
 * chosen by leave-one-point-out on the survey itself.
 */
import { DEFAULT_PATH_LOSS } from './path-loss.js'

/** A surveyed reference point: its position and each anchor's mean RSSI (NaN when unheard). */
export interface ReferencePoint {
  x: number
  y: number
  mean: Float64Array
}

/** Kernel-weighted mean of the residuals of anchor `a` around (x, y), leaving out point `skip`. */
export function kernelResidual(
  refs: readonly ReferencePoint[],
  residual: readonly Float64Array[],
  a: number,
  x: number,
  y: number,
  lengthScale: number,
  shrinkage: number,
  skip: number,
): number {
  let sw = 0
  let s = 0
  const k = -1 / (2 * lengthScale * lengthScale)
  for (let i = 0; i < refs.length; i++) {
    const r = residual[i][a]
    if (i === skip || Number.isNaN(r)) continue
    const w = Math.exp(((refs[i].x - x) ** 2 + (refs[i].y - y) ** 2) * k)
    sw += w
    s += w * r
  }
  return s / (sw + shrinkage)
}

/**
 * The kernel width and shrinkage toward the path-loss curve that predict each surveyed point
 * best from the others (leave-one-point-out), with that error overall and per anchor.
 */
export function chooseInterpolation(
  refs: readonly ReferencePoint[],
  residual: readonly Float64Array[],
  A: number,
  lengthScales: readonly number[],
  shrinkages: readonly number[],
): { lengthScale: number; shrinkage: number; rms: number; perAnchorRms: number[] } {
  let best = {
    lengthScale: lengthScales[0] ?? 2,
    shrinkage: shrinkages[0] ?? 0.5,
    rms: Infinity,
    perAnchorRms: new Array<number>(A).fill(DEFAULT_PATH_LOSS.sigma),
  }
  for (const lengthScale of lengthScales) {
    for (const shrinkage of shrinkages) {
      const sq = new Array<number>(A).fill(0)
      const cnt = new Array<number>(A).fill(0)
      for (let i = 0; i < refs.length; i++) {
        for (let a = 0; a < A; a++) {
          const r = residual[i][a]
          if (Number.isNaN(r)) continue
          sq[a] += (r - kernelResidual(refs, residual, a, refs[i].x, refs[i].y, lengthScale, shrinkage, i)) ** 2
          cnt[a]++
        }
      }
      const total = cnt.reduce((s, c) => s + c, 0)
      if (total === 0) continue
      const rms = Math.sqrt(sq.reduce((s, v) => s + v, 0) / total)
      if (rms < best.rms)
        best = {
          lengthScale,
          shrinkage,
          rms,
          perAnchorRms: sq.map((v, a) => (cnt[a] === 0 ? DEFAULT_PATH_LOSS.sigma : Math.sqrt(v / cnt[a]))),
        }
    }
  }
  return best
}
