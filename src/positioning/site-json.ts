/** The checks that read a site file's JSON values, each naming the value and how to fix it. */
import { InvalidOptionError } from '../errors.js'

/** The error of a site file: what is wrong, and how to fix it. */
export function bad(what: string, fix: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', `site: ${what}; ${fix}`, { option: 'site' })
}

/** A JSON object (not null, not a list). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A number of metres, or undefined when absent. */
export function optionalNumber(v: unknown, where: string): number | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw bad(`${where} is ${JSON.stringify(v)}`, 'give a number of metres')
  return v
}

/** A room's polygon: three or more [x, y] corners. */
export function readPolygon(v: unknown, where: string): [number, number][] {
  if (!Array.isArray(v) || v.length < 3)
    throw bad(
      `${where}.polygon is not a list of at least three [x, y] corners`,
      'list the corners in order, e.g. [[0,0],[5,0],[5,4]]',
    )
  return v.map((p, i) => {
    if (!Array.isArray(p) || p.length < 2)
      throw bad(`${where}.polygon[${i}] is not an [x, y] pair`, 'give each corner as [x, y] in metres')
    return [
      optionalNumber(p[0], `${where}.polygon[${i}][0]`) ?? Number.NaN,
      optionalNumber(p[1], `${where}.polygon[${i}][1]`) ?? Number.NaN,
    ]
  })
}

/** One [x, y] point, both coordinates given. */
export function readPoint(v: unknown, where: string): [number, number] {
  if (!Array.isArray(v) || v.length < 2)
    throw bad(`${where} is not an [x, y] pair`, 'give each end as [x, y] in metres')
  const x = optionalNumber(v[0], `${where}[0]`)
  const y = optionalNumber(v[1], `${where}[1]`)
  if (x === undefined || y === undefined) throw bad(`${where} lacks a coordinate`, 'give each end as [x, y] in metres')
  return [x, y]
}
