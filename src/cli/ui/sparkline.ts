/**
 * RSSI history for the live table: one sample per beacon per scanner tick, kept for a
 * fixed window, drawn as a row of block characters.
 */

/** One RSSI sample on the scanner's clock. */
export interface RssiSample {
  /** ms on the scanner's clock. */
  t: number
  /** dBm. */
  rssi: number
}

const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']

/** Options of {@link sparkline}. */
export interface SparklineOptions {
  /** ms on the same clock as the samples; the window ends here. */
  now: number
  /** Window length, ms. Default 30 000. */
  windowMs?: number
  /** Characters; each covers `windowMs / width`. Default 15. */
  width?: number
  /**
   * dBm mapped to the lowest and highest block. A fixed scale (not per beacon) so that
   * two rows can be compared at a glance. Default −100 … −40.
   */
  min?: number
  max?: number
}

/**
 * Draws the samples of the last `windowMs` as `width` characters, oldest on the left; a
 * bucket without samples is a space (the beacon was not heard), several samples in one
 * bucket are averaged.
 */
export function sparkline(samples: readonly RssiSample[], options: SparklineOptions): string {
  const windowMs = options.windowMs ?? 30_000
  const width = Math.max(1, Math.floor(options.width ?? 15))
  const min = options.min ?? -100
  const max = options.max ?? -40
  const start = options.now - windowMs
  const sums = new Array<number>(width).fill(0)
  const counts = new Array<number>(width).fill(0)
  for (const s of samples) {
    if (s.t <= start || s.t > options.now || !Number.isFinite(s.rssi)) continue
    // (start, now] split into `width` equal buckets; a sample at `now` lands in the last one.
    const i = Math.min(width - 1, Math.floor(((s.t - start) / windowMs) * width - 1e-9))
    sums[i] += s.rssi
    counts[i] += 1
  }
  let out = ''
  for (let i = 0; i < width; i++) {
    if (counts[i] === 0) {
      out += ' '
      continue
    }
    const mean = sums[i] / counts[i]
    const level = Math.round(((mean - min) / (max - min)) * (BLOCKS.length - 1))
    out += BLOCKS[Math.max(0, Math.min(BLOCKS.length - 1, level))]
  }
  return out
}

/**
 * Per-beacon RSSI samples over a sliding window. Memory is bounded: samples older than
 * the window are dropped on every `record`, and beacons missing from a tick lose their
 * history once all of it has aged out.
 */
export class RssiHistory {
  private readonly byId = new Map<string, RssiSample[]>()

  /** @param windowMs how much history to keep, ms. */
  constructor(readonly windowMs = 30_000) {}

  /** Adds one sample per beacon at `now` and forgets what has aged out. */
  record(beacons: readonly { id: string; rssi: number }[], now: number): void {
    for (const b of beacons) {
      let list = this.byId.get(b.id)
      if (list === undefined) {
        list = []
        this.byId.set(b.id, list)
      }
      list.push({ t: now, rssi: b.rssi })
    }
    const cutoff = now - this.windowMs
    for (const [id, list] of this.byId) {
      let drop = 0
      while (drop < list.length && list[drop].t <= cutoff) drop++
      if (drop === list.length) this.byId.delete(id)
      else if (drop > 0) list.splice(0, drop)
    }
  }

  /** The samples of one beacon, oldest first (empty when unknown). */
  samples(id: string): readonly RssiSample[] {
    return this.byId.get(id) ?? []
  }

  /** Forgets one beacon (it is gone). */
  forget(id: string): void {
    this.byId.delete(id)
  }

  /** Number of beacons with history. */
  get size(): number {
    return this.byId.size
  }
}
