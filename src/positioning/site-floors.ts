/**
 * Floors of a site file: `floors: [{ "id", "name", "z"?, "image"? }]`. A room (list form) and a
 * gateway say which floor they are on with `"floor": "<id>"`. A site without `floors` is one
 * plane, as before: nothing here changes it. Whether every `floor` named elsewhere is declared is
 * `site check`'s business (site-check.ts), so a file with a typo still loads and says where.
 */
import { bad, isRecord, optionalNumber } from './site-json.js'

/** One floor of a building. */
export interface Floor {
  /** `[A-Za-z0-9_-]{1,64}`: rooms and gateways name it in their `floor`. */
  id: string
  /** What a person calls it ("Ground floor"), 1 to 64 characters. */
  name: string
  /** Height of the floor above the site's ground, metres (for the 3-D distance between floors). */
  z?: number
  /** This floor's plan for the live map: a path relative to the site file or an http(s) URL. */
  image?: string
}

/** Floors a site declares at most: a building of 64 storeys is a tower, a longer list is a mistake. */
export const MAX_FLOORS = 64

/** A floor id: what may stand in a topic level, a slug and an HTML id alike. */
export const FLOOR_ID = /^[A-Za-z0-9_-]{1,64}$/

function isName(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '' && v.length <= 64 && !/\p{Cc}/u.test(v)
}

/**
 * The `floors` list of a site file; `[]` when absent. Throws `InvalidOptionError` naming the
 * first entry that is wrong (not a list, an id that is not a floor id, a duplicate id, no name).
 */
export function readFloors(v: unknown): Floor[] {
  if (v === undefined) return []
  if (!Array.isArray(v))
    throw bad('floors is not a list', 'list each floor as { "id": "ground", "name": "Ground floor", "z": 0 }')
  if (v.length > MAX_FLOORS) throw bad(`floors lists ${v.length} entries`, `declare at most ${MAX_FLOORS} floors`)
  const seen = new Set<string>()
  return v.map((f: unknown, i) => {
    if (!isRecord(f)) throw bad(`floors[${i}] is not an object`, 'write { "id": "ground", "name": "Ground floor" }')
    if (typeof f.id !== 'string' || !FLOOR_ID.test(f.id))
      throw bad(`floors[${i}].id is ${JSON.stringify(f.id)}`, 'give an id of 1 to 64 letters, digits, - and _')
    if (seen.has(f.id)) throw bad(`floors[${i}].id "${f.id}" is declared twice`, 'give each floor its own id')
    seen.add(f.id)
    if (!isName(f.name))
      throw bad(`floors[${i}].name is not a name`, 'give a text of 1 to 64 characters, e.g. "First floor"')
    const floor: Floor = { id: f.id, name: f.name }
    const z = optionalNumber(f.z, `floors[${i}].z`)
    if (z !== undefined) floor.z = z
    if (f.image !== undefined) {
      if (typeof f.image !== 'string' || f.image === '')
        throw bad(`floors[${i}].image is not a path`, 'give a path relative to the site file, or an http(s) URL')
      floor.image = f.image
    }
    return floor
  })
}

/** The `floor` of a room or a gateway entry: a string, or undefined when absent; anything else is refused. */
export function readFloorRef(v: unknown, where: string): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || v === '')
    throw bad(`${where}.floor is ${JSON.stringify(v)}`, 'give the id of one of the site\'s "floors"')
  return v
}
