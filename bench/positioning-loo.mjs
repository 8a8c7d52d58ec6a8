// Leave-one-track-out for the positioning bench: each method's settings are chosen from a small
// fixed grid by their score on three tracks, then the fourth track is scored with them; the four
// rotations' held-out errors are what is reported. Nothing here reads the ground truth except
// through `errorsOf` (the scorer): a setting is fixed before its held-out track is run.

/** Every combination of the given values, as objects. */
function combinations(values) {
  let out = [{}]
  for (const [name, list] of Object.entries(values)) out = out.flatMap((o) => list.map((v) => ({ ...o, [name]: v })))
  return out
}

/**
 * The settings each method may choose from. Small and fixed a priori, around the defaults: the
 * averaging window of the single-shot methods (1–4 s), kNN's k, and the filter's two physical
 * constants (walking speed, dynamic error) and how much the occupancy grid's blocked cells weigh
 * (added in #28 once positioning-ideas.bench.mjs showed it matters; 0.2 was the fixed default
 * before). Changing this grid after looking at the leave-one-out result is tuning too: say so.
 */
export { combinations }

export const SETTINGS = {
  nearest: combinations({ windowMs: [1000, 2000, 4000] }),
  centroid: combinations({ windowMs: [1000, 2000, 4000] }),
  multilateration: combinations({ windowMs: [1000, 2000, 4000] }),
  knn: combinations({ windowMs: [1000, 2000, 4000], k: [1, 3, 5] }),
  filter: combinations({ speed: [0.7, 1.0, 1.4], dynamicSd: [2, 3, 4], blockedWeight: [0.05, 0.1, 0.2] }).map((filter) => ({ filter })),
}

export function quantile(sorted, q) {
  if (sorted.length === 0) return Number.NaN
  const i = (sorted.length - 1) * q
  const lo = Math.floor(i)
  return sorted[lo] + (sorted[Math.min(sorted.length - 1, lo + 1)] - sorted[lo]) * (i - lo)
}

const sorted = (xs) => [...xs].sort((a, b) => a - b)

/** Median of the tracks' medians and p90 of all their errors pooled: the issue's two figures. */
export function summary(perTrack) {
  const medians = sorted(perTrack.map((e) => quantile(sorted(e), 0.5)))
  return { median: quantile(medians, 0.5), p90: quantile(sorted(perTrack.flat()), 0.9) }
}

/** What a choice is judged by on the tuning tracks: both goals (1 m median, 2 m p90) weighed alike. */
function score(perTrack) {
  const s = summary(perTrack)
  return s.median / 1.0 + s.p90 / 2.0
}

/**
 * Leave-one-track-out. `errorsOf(settings, track)` runs one setting on one track and returns its
 * errors (memoised here: each pair runs once). Returns the held-out summary, the chosen settings
 * per held-out track, and the held-out errors per track.
 */
export function leaveOneOut(settingsList, tracks, errorsOf) {
  const memo = settingsList.map(() => new Array(tracks.length))
  const errors = (c, t) => (memo[c][t] ??= errorsOf(settingsList[c], tracks[t]))
  const heldOut = []
  const chosen = []
  for (let t = 0; t < tracks.length; t++) {
    let best = 0
    let bestScore = Infinity
    for (let c = 0; c < settingsList.length; c++) {
      const s = score(tracks.map((_, u) => u).filter((u) => u !== t).map((u) => errors(c, u)))
      if (s < bestScore) {
        bestScore = s
        best = c
      }
    }
    chosen.push(settingsList[best])
    heldOut.push(errors(best, t))
  }
  return { ...summary(heldOut), chosen, heldOut }
}
