/**
 * A site survey reduced while it streams: per reference point and anchor, the count, mean and
 * spread of the RSSI. A survey of millions of packets becomes a few kilobytes, so calibration
 * never holds the raw samples.
 */
import type { SurveySample } from './types.js'

/** What one anchor heard at one reference point. */
export interface SurveyCell {
  count: number
  mean: number
  /** dB, the packets' standard deviation around the mean. */
  sd: number
}

/** One reference point of the survey. */
export interface SurveyPoint {
  x: number
  y: number
  /** Per anchor id. */
  anchors: Map<string, SurveyCell>
}

interface Running {
  n: number
  sum: number
  sq: number
}

/** Below this many packets at a spot its running mean is too rough to call a packet weak or strong. */
const SKEW_AFTER = 10

/** Accumulates survey samples; feed millions with `add`, read the reduced points with `points()`. */
export class SurveyPoints {
  private readonly byPoint = new Map<string, { x: number; y: number; anchors: Map<string, Running> }>()
  /** Samples refused (non-finite numbers, empty anchor id). */
  skipped = 0
  // Squared departures of single packets below and above their spot's running mean: fading and
  // shadowing make weak readings spread further than strong ones, and the filter's likelihood
  // takes that asymmetry from here.
  private readonly tails = { lowSq: 0, lowN: 0, highSq: 0, highN: 0 }

  /** Adds one sample; a malformed one is skipped and counted. */
  add(s: SurveySample): void {
    this.addAggregate(s.x, s.y, s.anchor, { count: 1, mean: s.rssi, sd: 0 })
  }

  /**
   * Adds what an anchor heard at a point, already reduced (`count` packets of `mean` and `sd`
   * dB): a survey kept as a summary, or a test fixture. Malformed input is skipped and counted.
   */
  addAggregate(x: number, y: number, anchor: string, c: SurveyCell): void {
    if (
      ![x, y, c.mean, c.sd].every(Number.isFinite) ||
      !(c.count >= 1) ||
      typeof anchor !== 'string' ||
      anchor === ''
    ) {
      this.skipped++
      return
    }
    const s = { x, y, anchor }
    // Reference points are marked spots: centimetre rounding merges the same spot's rows.
    const key = `${Math.round(s.x * 100)},${Math.round(s.y * 100)}`
    let p = this.byPoint.get(key)
    if (p === undefined) this.byPoint.set(key, (p = { x: s.x, y: s.y, anchors: new Map() }))
    let a = p.anchors.get(s.anchor)
    if (a === undefined) p.anchors.set(s.anchor, (a = { n: 0, sum: 0, sq: 0 }))
    if (c.count === 1 && a.n >= SKEW_AFTER) {
      const e = c.mean - a.sum / a.n
      if (e < 0) {
        this.tails.lowSq += e * e
        this.tails.lowN++
      } else {
        this.tails.highSq += e * e
        this.tails.highN++
      }
    }
    a.n += c.count
    a.sum += c.count * c.mean
    a.sq += c.count * (c.sd * c.sd + c.mean * c.mean)
  }

  /**
   * How much further weak packets stray below their spot's mean than strong ones above it: the
   * ratio of the two semi-deviations over every spot and anchor (1 is symmetric). Undefined
   * when the survey came as summaries or has too few packets to tell.
   */
  skew(): number | undefined {
    const t = this.tails
    if (t.lowN < 100 || t.highN < 100 || t.highSq === 0) return undefined
    return Math.sqrt(t.lowSq / t.lowN) / Math.sqrt(t.highSq / t.highN)
  }

  /** Number of reference points so far. */
  get size(): number {
    return this.byPoint.size
  }

  /** The reference points with each anchor's count, mean and spread. */
  points(): SurveyPoint[] {
    const out: SurveyPoint[] = []
    for (const p of this.byPoint.values()) {
      const anchors = new Map<string, SurveyCell>()
      for (const [id, a] of p.anchors) {
        const mean = a.sum / a.n
        anchors.set(id, { count: a.n, mean, sd: Math.sqrt(Math.max(0, a.sq / a.n - mean * mean)) })
      }
      out.push({ x: p.x, y: p.y, anchors })
    }
    return out
  }
}
