/**
 * Which tracker holds which RSSI partition: rendezvous (highest-random-weight) hashing. Every
 * tracker computes the same answer from the same set of live trackers with no coordinator,
 * and when a tracker joins or leaves only the partitions it gains or held move (about P/N),
 * the rest stay where they are.
 */

import { stableHash } from '../mqtt/partition.js'

/** The tracker (among `trackers`, non-empty) that holds partition `n`. */
export function ownerOf(n: number, trackers: readonly string[]): string {
  let best = ''
  let bestScore = -1
  for (const t of trackers) {
    const score = stableHash(`${t}/${n}`)
    // Ties (rare) go to the smaller id, so every tracker breaks them the same way.
    if (score > bestScore || (score === bestScore && t < best)) {
      best = t
      bestScore = score
    }
  }
  return best
}

/** The partitions (of `count`) that `self` holds among `trackers` (which include `self`), ascending. */
export function partitionsOf(self: string, trackers: readonly string[], count: number): number[] {
  const out: number[] = []
  for (let n = 0; n < count; n++) if (ownerOf(n, trackers) === self) out.push(n)
  return out
}
