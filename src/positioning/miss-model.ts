/**
 * How likely a receiver is to miss a packet, as a function of the RSSI it would have heard: a
 * receiver misses weak packets more often (they fall under its sensitivity, or lose to noise and
 * collisions), so a receiver that heard nothing in a second says the tag is more likely where
 * it would be weak there. Fitted on the survey: at each reference point the anchor that heard
 * the most packets counts what was sent, and every other anchor's shortfall is its miss rate.
 */
import type { SurveyPoint } from './survey.js'

/** Per-packet miss probability q(μ) = exp(intercept + slope · μ), μ the expected RSSI in dBm, held within [MIN_Q, MAX_Q]. */
export interface MissModel {
  intercept: number
  slope: number
}

/** A miss rate is never taken as zero (a receiver hears most, not all) nor as near-certain. */
export const MIN_Q = 0.005
export const MAX_Q = 0.9

/** log q(μ), held within the bounds. */
export function logMiss(m: MissModel, rssi: number): number {
  const v = m.intercept + m.slope * rssi
  return Math.min(Math.log(MAX_Q), Math.max(Math.log(MIN_Q), v))
}

/**
 * Least squares of log(miss rate) on the mean RSSI over every (point, anchor) of the survey;
 * undefined with fewer than 10 pairs, a flat spread of means, or a slope that says stronger
 * signals are missed more (no information then).
 */
export function fitMissModel(points: readonly SurveyPoint[]): MissModel | undefined {
  const xs: number[] = []
  const ys: number[] = []
  for (const p of points) {
    let sent = 0
    for (const c of p.anchors.values()) sent = Math.max(sent, c.count)
    if (sent < 10) continue
    for (const c of p.anchors.values()) {
      const q = Math.min(MAX_Q, Math.max(MIN_Q, 1 - c.count / sent))
      xs.push(c.mean)
      ys.push(Math.log(q))
    }
  }
  if (xs.length < 10) return undefined
  const mx = xs.reduce((s, v) => s + v, 0) / xs.length
  const my = ys.reduce((s, v) => s + v, 0) / ys.length
  let sxx = 0
  let sxy = 0
  for (let i = 0; i < xs.length; i++) {
    sxx += (xs[i] - mx) ** 2
    sxy += (xs[i] - mx) * (ys[i] - my)
  }
  if (!(sxx > 1)) return undefined
  const slope = sxy / sxx
  if (!(slope < 0)) return undefined
  return { intercept: my - slope * mx, slope }
}
