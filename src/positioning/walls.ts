/**
 * What walls take from a radio path: the site simulator's radio model weakens every packet by the
 * walls its straight line crosses, and the room method (room-geometry.ts) expects the same when
 * it predicts what a gateway hears from a point. One place for both, so they agree.
 */
import type { Wall } from './site.js'

/** Whether segments p1–p2 and q1–q2 cross (touching at an end counts; collinear overlap does not). */
function crosses(
  p1: readonly [number, number],
  p2: readonly [number, number],
  q1: readonly [number, number],
  q2: readonly [number, number],
): boolean {
  const d = (p2[0] - p1[0]) * (q2[1] - q1[1]) - (p2[1] - p1[1]) * (q2[0] - q1[0])
  if (d === 0) return false
  const t = ((q1[0] - p1[0]) * (q2[1] - q1[1]) - (q1[1] - p1[1]) * (q2[0] - q1[0])) / d
  const u = ((q1[0] - p1[0]) * (p2[1] - p1[1]) - (q1[1] - p1[1]) * (p2[0] - p1[0])) / d
  return t >= 0 && t <= 1 && u >= 0 && u <= 1
}

/** dB the walls between `a` and `b` take away (`wallDb` for a wall without its own `attenuationDb`). */
export function wallLoss(
  walls: readonly Wall[],
  a: readonly [number, number],
  b: readonly [number, number],
  wallDb: number,
): number {
  let db = 0
  for (const w of walls) if (crosses(a, b, w.from, w.to)) db += w.attenuationDb ?? wallDb
  return db
}
