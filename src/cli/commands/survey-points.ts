/**
 * The marked points of a survey walk: read from a points file, or typed at the prompt.
 */

/** A marked point of the walk. */
export interface SurveyPointSpec {
  name: string
  x: number
  y: number
}

/** Reads a points file: `name,x,y` per line (metres), an optional header; bad lines are skipped and counted. */
export function parsePoints(text: string): { points: SurveyPointSpec[]; skipped: number } {
  const points: SurveyPointSpec[] = []
  let skipped = 0
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const f = line.split(',').map((s) => s.trim())
    const x = Number(f[1])
    const y = Number(f[2])
    if (f.length < 3 || f[1] === '' || f[2] === '' || !Number.isFinite(x) || !Number.isFinite(y)) {
      // The first line may be a header (name,x,y).
      if (!(i === 0 && /^[a-z_ ]+$/i.test(f[1] ?? ''))) skipped++
      continue
    }
    points.push({ name: f[0] === '' ? `P${points.length + 1}` : f[0], x, y })
  }
  return { points, skipped }
}

/** `x,y` or `x y` typed at the prompt, or undefined. */
export function typedPoint(line: string): { x: number; y: number } | undefined {
  const f = line.trim().split(/[\s,;]+/)
  const x = Number(f[0])
  const y = Number(f[1])
  return f.length === 2 && f[0] !== '' && f[1] !== '' && Number.isFinite(x) && Number.isFinite(y) ? { x, y } : undefined
}
