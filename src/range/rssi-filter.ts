/**
 * RSSI smoothing. Raw RSSI of a still beacon jumps by ±5–10 dB from packet to packet
 * (multipath, body shadowing); distance is exponential in RSSI, so unsmoothed accuracy is
 * useless. Two filters, both cheap in memory because a scanner may track 10,000 beacons.
 */
import { InvalidOptionError } from '../errors.js'

/** Smooths the RSSI samples of one beacon. */
export interface RssiFilter {
  /** Adds a sample (dBm) received at clock time `t` (ms). Samples arrive in time order. */
  add(rssi: number, t: number): void
  /** The smoothed RSSI at clock time `t`; NaN before the first sample. */
  value(t: number): number
}

/**
 * How RSSI is smoothed.
 * - `arma` (default): auto-regressive moving average, `s += factor × (rssi − s)` per sample.
 * - `trimmed-mean`: mean of the samples of the last `windowMs`, after dropping the `trim`
 *   fraction of highest and lowest values (at most `maxSamples` of the newest are kept).
 * - `none`: the latest raw sample.
 */
export type SmoothingOptions =
  | { method: 'arma'; factor?: number }
  | { method: 'trimmed-mean'; windowMs?: number; trim?: number; maxSamples?: number }
  | { method: 'none' }

/**
 * Default smoothing. Chosen by scripts/compare-smoothing.mjs (simulated walks, path-loss
 * model with 4 dB noise and 10 % lost packets, 10 Hz): see that script's header for the
 * numbers. ARMA matched the trimmed mean's error at a shorter lag and costs O(1) time and
 * 16 bytes per beacon, where the trimmed mean sorts a window on every read.
 */
export const DEFAULT_SMOOTHING: SmoothingOptions = { method: 'arma', factor: 0.1 }

/** `s += factor × (rssi − s)`; the first sample initialises `s`. */
export class ArmaFilter implements RssiFilter {
  private smoothed = Number.NaN

  constructor(private readonly factor: number) {}

  add(rssi: number): void {
    this.smoothed = Number.isNaN(this.smoothed) ? rssi : this.smoothed + this.factor * (rssi - this.smoothed)
  }

  value(): number {
    return this.smoothed
  }
}

/** The latest sample, unsmoothed. */
export class RawFilter implements RssiFilter {
  private last = Number.NaN

  add(rssi: number): void {
    this.last = rssi
  }

  value(): number {
    return this.last
  }
}

/**
 * Trimmed running mean over a time window (the Android Beacon Library's default filter,
 * with a shorter window). Samples live in a fixed ring so a beacon never holds more than
 * `maxSamples`; the mean is computed on read and cached until the next sample.
 */
export class TrimmedMeanFilter implements RssiFilter {
  private readonly rssi: Float32Array
  private readonly times: Float64Array
  private count = 0
  private next = 0
  private cachedAt = Number.NaN
  private cached = Number.NaN
  private scratch: number[] = []

  constructor(
    private readonly windowMs: number,
    private readonly trim: number,
    maxSamples: number,
  ) {
    this.rssi = new Float32Array(maxSamples)
    this.times = new Float64Array(maxSamples)
  }

  add(rssi: number, t: number): void {
    this.rssi[this.next] = rssi
    this.times[this.next] = t
    this.next = (this.next + 1) % this.rssi.length
    if (this.count < this.rssi.length) this.count++
    this.cachedAt = Number.NaN
  }

  value(t: number): number {
    if (this.count === 0) return Number.NaN
    if (t === this.cachedAt) return this.cached
    const from = t - this.windowMs
    const values = this.scratch
    values.length = 0
    for (let i = 0; i < this.count; i++) if (this.times[i] > from) values.push(this.rssi[i])
    // A beacon heard only long ago still has a value: its newest sample.
    if (values.length === 0) values.push(this.rssi[(this.next - 1 + this.rssi.length) % this.rssi.length])
    values.sort((a, b) => a - b)
    const drop = Math.floor(values.length * this.trim)
    let sum = 0
    for (let i = drop; i < values.length - drop; i++) sum += values[i]
    this.cached = sum / (values.length - 2 * drop)
    this.cachedAt = t
    return this.cached
  }
}

/** Checks smoothing options; throws InvalidOptionError naming what is allowed. */
export function validateSmoothing(options: SmoothingOptions): void {
  const bad = (what: string): never => {
    throw new InvalidOptionError('invalid_option', `smoothing: ${what}`, { option: 'smoothing' })
  }
  if (typeof options !== 'object' || options === null) bad("expected { method: 'arma' | 'trimmed-mean' | 'none', ... }")
  switch (options.method) {
    case 'arma':
      if (options.factor !== undefined && !(options.factor > 0 && options.factor <= 1)) bad('factor must be in (0, 1]')
      return
    case 'trimmed-mean':
      if (options.windowMs !== undefined && !(Number.isFinite(options.windowMs) && options.windowMs > 0)) bad('windowMs must be a positive number')
      if (options.trim !== undefined && !(options.trim >= 0 && options.trim < 0.5)) bad('trim must be in [0, 0.5)')
      if (options.maxSamples !== undefined && !(Number.isInteger(options.maxSamples) && options.maxSamples >= 1 && options.maxSamples <= 1000)) bad('maxSamples must be an integer from 1 to 1000')
      return
    case 'none':
      return
    default:
      bad(`unknown method ${JSON.stringify((options as { method: unknown }).method)}; use 'arma', 'trimmed-mean' or 'none'`)
  }
}

/** A factory so each tracked beacon gets its own filter state. */
export function rssiFilterFactory(options: SmoothingOptions = DEFAULT_SMOOTHING): () => RssiFilter {
  validateSmoothing(options)
  switch (options.method) {
    case 'arma': {
      const factor = options.factor ?? 0.1
      return () => new ArmaFilter(factor)
    }
    case 'trimmed-mean': {
      const windowMs = options.windowMs ?? 3000
      const trim = options.trim ?? 0.1
      const maxSamples = options.maxSamples ?? 32
      return () => new TrimmedMeanFilter(windowMs, trim, maxSamples)
    }
    case 'none':
      return () => new RawFilter()
  }
}
