/**
 * Kriging (a Gaussian process) over the survey's departures from each anchor's path-loss curve:
 * the radio map's mean between reference points *and how sure it is there*. Near a surveyed
 * point the expected RSSI is known to the survey's own point-to-point noise; halfway to the next
 * point, or outside the surveyed area, the map is a guess and says so with a larger spread, so
 * the filter trusts a reading less where the map knows less. Hyperparameters (length scale,
 * spread of the departures, the nugget) are chosen by leave-one-point-out predictive density on
 * the survey alone, in closed form.
 */

/** The survey seen by the kriging: per reference point its position and each anchor's residual (NaN: unheard). */
export interface KrigingInput {
  x: readonly number[]
  y: readonly number[]
  /** `residual[i][a]`: dB above the path-loss curve at point i for anchor a. */
  residual: readonly Float64Array[]
}

/** The chosen hyperparameters and how well they predicted left-out points. */
export interface KrigingChoice {
  lengthScale: number
  /** dB: prior spread of the departures from the curve (far from every point the map is this unsure, plus the nugget). */
  signalSd: number
  /** dB: the nugget, what a point's mean departs from its neighbours' by that no smooth field explains. */
  noiseSd: number
  /** dB: root-mean-square leave-one-point-out error over all anchors and points. */
  looRmsDb: number
  /** Per anchor, its leave-one-point-out RMS error. */
  perAnchorRms: number[]
}

/** Per anchor: the points it was heard at, the inverse covariance and its weights. */
interface AnchorSystem {
  idx: number[]
  inv: Float64Array
  alpha: Float64Array
}

/** Inverse of a symmetric positive-definite n×n matrix (Cholesky); undefined when it is not. */
function spdInverse(m: Float64Array, n: number): Float64Array | undefined {
  const l = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = m[i * n + j]
      for (let k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k]
      if (i === j) {
        if (!(s > 0)) return undefined
        l[i * n + i] = Math.sqrt(s)
      } else l[i * n + j] = s / l[j * n + j]
    }
  }
  // inv(L), lower triangular, then inv = inv(L)ᵀ inv(L).
  const li = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    li[i * n + i] = 1 / l[i * n + i]
    for (let j = 0; j < i; j++) {
      let s = 0
      for (let k = j; k < i; k++) s -= l[i * n + k] * li[k * n + j]
      li[i * n + j] = s / l[i * n + i]
    }
  }
  const inv = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0
      for (let k = i; k < n; k++) s += li[k * n + i] * li[k * n + j]
      inv[i * n + j] = s
      inv[j * n + i] = s
    }
  }
  return inv
}

function system(input: KrigingInput, a: number, lengthScale: number, signalSd: number, noiseSd: number): AnchorSystem | undefined {
  const idx: number[] = []
  for (let i = 0; i < input.residual.length; i++) if (!Number.isNaN(input.residual[i][a])) idx.push(i)
  const n = idx.length
  if (n === 0) return undefined
  const k = new Float64Array(n * n)
  const g = -1 / (2 * lengthScale * lengthScale)
  const s2 = signalSd * signalSd
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const d2 = (input.x[idx[i]] - input.x[idx[j]]) ** 2 + (input.y[idx[i]] - input.y[idx[j]]) ** 2
      k[i * n + j] = s2 * Math.exp(d2 * g) + (i === j ? noiseSd * noiseSd : 0)
    }
  }
  const inv = spdInverse(k, n)
  if (inv === undefined) return undefined
  const alpha = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    let s = 0
    for (let j = 0; j < n; j++) s += inv[i * n + j] * input.residual[idx[j]][a]
    alpha[i] = s
  }
  return { idx, inv, alpha }
}

/** A fitted kriging: the chosen hyperparameters and a predictor per anchor. */
export class Kriging {
  private constructor(
    readonly choice: KrigingChoice,
    private readonly input: KrigingInput,
    private readonly systems: (AnchorSystem | undefined)[],
  ) {}

  /**
   * Chooses hyperparameters from the grids by the leave-one-point-out log predictive density
   * summed over anchors (closed form: μ₋ᵢ = yᵢ − αᵢ/K⁻¹ᵢᵢ, σ²₋ᵢ = 1/K⁻¹ᵢᵢ), which rewards a
   * spread that is honest as well as a mean that is close.
   */
  static fit(input: KrigingInput, anchors: number, lengthScales: readonly number[], signalSds: readonly number[], noiseSds: readonly number[]): Kriging | undefined {
    let best: { choice: KrigingChoice; systems: (AnchorSystem | undefined)[]; logp: number } | undefined
    for (const lengthScale of lengthScales) {
      for (const signalSd of signalSds) {
        for (const noiseSd of noiseSds) {
          let logp = 0
          const sq = new Array<number>(anchors).fill(0)
          const cnt = new Array<number>(anchors).fill(0)
          const systems: (AnchorSystem | undefined)[] = []
          for (let a = 0; a < anchors; a++) {
            const s = system(input, a, lengthScale, signalSd, noiseSd)
            systems.push(s)
            if (s === undefined) continue
            const n = s.idx.length
            for (let i = 0; i < n; i++) {
              const v = 1 / s.inv[i * n + i]
              const e = s.alpha[i] * v
              logp += -0.5 * Math.log(v) - (e * e) / (2 * v)
              sq[a] += e * e
              cnt[a]++
            }
          }
          const total = cnt.reduce((x, c) => x + c, 0)
          if (total === 0 || (best !== undefined && logp <= best.logp)) continue
          const looRmsDb = Math.sqrt(sq.reduce((x, v) => x + v, 0) / total)
          const perAnchorRms = sq.map((v, a) => (cnt[a] === 0 ? Number.NaN : Math.sqrt(v / cnt[a])))
          best = { choice: { lengthScale, signalSd, noiseSd, looRmsDb, perAnchorRms }, systems, logp }
        }
      }
    }
    return best === undefined ? undefined : new Kriging(best.choice, input, best.systems)
  }

  /** The residual expected for anchor `a` at (x, y) and its variance in dB² (the nugget included). */
  predict(a: number, x: number, y: number): { mean: number; variance: number } {
    const { signalSd, noiseSd, lengthScale } = this.choice
    const s = this.systems[a]
    const s2 = signalSd * signalSd
    if (s === undefined) return { mean: 0, variance: s2 + noiseSd * noiseSd }
    const n = s.idx.length
    const g = -1 / (2 * lengthScale * lengthScale)
    const k = new Float64Array(n)
    let mean = 0
    for (let i = 0; i < n; i++) {
      const p = s.idx[i]
      k[i] = s2 * Math.exp(((this.input.x[p] - x) ** 2 + (this.input.y[p] - y) ** 2) * g)
      mean += k[i] * s.alpha[i]
    }
    let explained = 0
    for (let i = 0; i < n; i++) {
      if (k[i] < 1e-9 * s2) continue
      let row = 0
      for (let j = 0; j < n; j++) row += s.inv[i * n + j] * k[j]
      explained += k[i] * row
    }
    return { mean, variance: Math.max(0, s2 - explained) + noiseSd * noiseSd }
  }
}
