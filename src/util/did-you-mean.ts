/**
 * "Did you mean …" for a name that is almost a known one (a config key, an environment
 * variable): the known name closest by edit distance, when it is close enough to be a typo.
 */

/** Levenshtein distance between `a` and `b` (insertions, deletions and substitutions cost 1). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/**
 * The known name `name` is most likely a typo of: the closest one (compared case-insensitively),
 * at most a third of its length away (at least 1, at most 3), else undefined. Names are short
 * setting names, so the quadratic distance is cheap; a long `name` is no typo and is not compared.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  if (name.length > 128) return undefined
  const wanted = name.toLowerCase()
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)))
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    if (Math.abs(candidate.length - name.length) > limit) continue
    const distance = editDistance(wanted, candidate.toLowerCase())
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name: candidate, distance }
  }
  return best?.name
}
