/**
 * What is wrong with a site file beyond what `Site.fromJSON` refuses: the things it accepts
 * silently that leave a fleet quietly wrong (a room naming a gateway the file does not declare,
 * a gateway id no gateway can publish under, positions off because one gateway is not placed, an
 * `image` that is not a path). Pure: the image file's existence is the caller's (it is I/O).
 * Used by `beaconkit site check`, and by `fleet` and `simulate --site` for their start warnings.
 */
import { GATEWAY_ID } from '../mqtt/topics.js'
import { Site } from '../positioning/site.js'
import { checkFloors, checkRoomSlugs } from './site-floor-check.js'

/** One problem of a site file, with where it is (`rooms[2].gateways[1]`). */
export interface SiteProblem {
  /** `error`: the file says something that cannot be right; `warning`: it works, with less than it could. */
  severity: 'error' | 'warning'
  /** A path into the JSON, as a person would write it. */
  where: string
  message: string
}

/** At most this many problems are listed (a generated file can be wrong thousands of times). */
export const MAX_SITE_PROBLEMS = 100

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** `gateways.kitchen-pi`, or `gateways["a b"]` for a key that is not a plain name. */
function keyPath(group: string, key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? `${group}.${key}` : `${group}[${JSON.stringify(key)}]`
}

function list(ids: readonly string[]): string {
  return ids.length > 8 ? `${ids.slice(0, 8).join(', ')}, …` : ids.join(', ')
}

/**
 * The site of `json` and every problem found in it; a file `Site.fromJSON` refuses gives no
 * site and that one error (its message says where).
 */
export function checkSiteJSON(json: unknown): { site?: Site; problems: SiteProblem[] } {
  let site: Site
  try {
    site = Site.fromJSON(json)
  } catch (error) {
    return {
      problems: [
        {
          severity: 'error',
          where: 'site',
          message: (error instanceof Error ? error.message : String(error)).replace(/^site: /, ''),
        },
      ],
    }
  }
  const problems: SiteProblem[] = []
  const add = (p: SiteProblem): void => {
    if (problems.length < MAX_SITE_PROBLEMS) problems.push(p)
  }
  const o = json as Record<string, unknown>
  const groupName = isRecord(o.anchorBeacons) ? 'anchorBeacons' : isRecord(o.receivers) ? 'receivers' : 'gateways'
  const declared = site.anchorList().map((a) => a.id)
  const known = new Set(declared)
  const unknown = (where: string, id: unknown): void => {
    if (typeof id !== 'string')
      add({
        severity: 'error',
        where,
        message: `${JSON.stringify(id)} is not a gateway id; give the id of a gateway under "${groupName}"`,
      })
    else if (!known.has(id))
      add({
        severity: 'error',
        where,
        message:
          `gateway ${JSON.stringify(id)} is not declared under "${groupName}" (${list(declared)}): ` +
          'its readings would give no room; declare it, or correct the id',
      })
  }
  if (Array.isArray(o.rooms)) {
    o.rooms.forEach((r, i) => {
      const gateways = isRecord(r) ? r.gateways : undefined
      if (gateways === undefined) return
      if (!Array.isArray(gateways))
        add({ severity: 'error', where: `rooms[${i}].gateways`, message: 'is not a list of gateway ids' })
      else gateways.forEach((g, j) => unknown(`rooms[${i}].gateways[${j}]`, g))
    })
  } else if (isRecord(o.rooms)) {
    for (const [name, ids] of Object.entries(o.rooms))
      if (Array.isArray(ids)) ids.forEach((g, j) => unknown(`${keyPath('rooms', name)}[${j}]`, g))
  }
  if (site.kind === 'receivers') {
    for (const id of declared) {
      if (!GATEWAY_ID.test(id))
        add({
          severity: 'error',
          where: keyPath(groupName, id),
          message:
            'is not an id a gateway can publish under (1 to 128 letters, digits, - and _): no batch can ever match it',
        })
    }
    const unplaced = site.anchorList().filter((a) => a.x === undefined || a.y === undefined)
    if (unplaced.length > 0 && unplaced.length < declared.length) {
      for (const a of unplaced.slice(0, 10))
        add({
          severity: 'warning',
          where: keyPath(groupName, a.id),
          message:
            'has no x, y while other gateways do: positions are off until every gateway is placed (rooms still work)',
        })
    }
  }
  checkFloors(o, site, add)
  checkRoomSlugs(site, add)
  // The editor's version (fleet --edit): it counts saves, so two editors cannot overwrite each other.
  if (o.version !== undefined && !(Number.isSafeInteger(o.version) && (o.version as number) >= 0))
    add({
      severity: 'warning',
      where: 'version',
      message: 'is not a whole number from 0 (the editor counts saves in it); the editor reads it as 0',
    })
  for (const key of ['image', 'imageURL'] as const) {
    if (o[key] !== undefined && (typeof o[key] !== 'string' || o[key] === ''))
      add({ severity: 'error', where: key, message: 'is not a file path or an http(s) URL of the floor plan' })
  }
  return { site, problems }
}
