/**
 * `site check` for floors: what `Site.fromJSON` accepts but leaves a two-floor fleet quietly
 * wrong — a room or gateway naming a floor the file does not declare (a typo puts it on a floor
 * of its own, where no beacon is ever decided to be), a gateway on another floor than its room,
 * and, once floors are declared, rooms and gateways that name none (their floor is a guess).
 */
import type { Site } from '../positioning/site.js'
import { roomSlug } from './room-occupancy.js'

/** A problem as site-check.ts lists it (its `SiteProblem`; spelt out here, as importing it would make a cycle). */
interface FloorProblem {
  severity: 'error' | 'warning'
  where: string
  message: string
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function keyPath(group: string, key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? `${group}.${key}` : `${group}[${JSON.stringify(key)}]`
}

/** The floor problems of `json` (already read into `site`), handed to `add` one by one. */
export function checkFloors(json: Record<string, unknown>, site: Site, add: (p: FloorProblem) => void): void {
  const declared = site.floors.map((f) => f.id)
  const known = new Set(declared)
  const ids = declared.length === 0 ? 'none' : declared.join(', ')
  const unknown = (where: string, floor: string): void =>
    add({
      severity: 'error',
      where: `${where}.floor`,
      message:
        `floor ${JSON.stringify(floor)} is not declared under "floors" (${ids}): ` +
        'no beacon is ever placed on it; declare it, or correct the id',
    })
  const roomsListed = Array.isArray(json.rooms) ? json.rooms : []
  site.rooms.forEach((room) => {
    const i = roomsListed.findIndex((r) => isRecord(r) && r.name === room.name)
    const where = i >= 0 ? `rooms[${i}]` : keyPath('rooms', room.name)
    if (room.floor !== undefined && !known.has(room.floor)) unknown(where, room.floor)
    else if (room.floor === undefined && declared.length > 1)
      add({
        severity: 'warning',
        where,
        message: 'names no floor while the site has several: give it "floor" (or place a gateway with one in it)',
      })
  })
  const groupName = isRecord(json.anchorBeacons) ? 'anchorBeacons' : isRecord(json.receivers) ? 'receivers' : 'gateways'
  for (const a of site.anchorList()) {
    const where = keyPath(groupName, a.id)
    const group = json[groupName]
    const own = isRecord(group) && isRecord(group[a.id]) ? (group[a.id] as Record<string, unknown>).floor : undefined
    // A floor the gateway takes from its room is reported at the room, once.
    if (own !== undefined && a.floor !== undefined && !known.has(a.floor)) unknown(where, a.floor)
    else if (a.floor === undefined && declared.length > 1)
      add({
        severity: 'warning',
        where,
        message: 'names no floor while the site has several: it cannot tell floors apart; give it "floor"',
      })
    const roomFloor = a.room === undefined ? undefined : site.floorOf(a.room)
    if (a.floor !== undefined && roomFloor !== undefined && roomFloor !== a.floor)
      add({
        severity: 'error',
        where: `${where}.floor`,
        message: `is "${a.floor}" but its room "${a.room}" is on floor "${roomFloor}": correct one of them`,
      })
  }
}

/**
 * Rooms whose names give one slug ("Living room", "Living-room"): Home Assistant's occupancy
 * sensors are per slug (room-occupancy.ts), so the two rooms would share one sensor and one
 * `<p>/fleet/rooms/<slug>` topic, each count overwriting the other.
 */
export function checkRoomSlugs(site: Site, add: (p: FloorProblem) => void): void {
  const first = new Map<string, string>()
  site.rooms.forEach((room, i) => {
    const slug = roomSlug(room.name)
    const other = first.get(slug)
    if (other === undefined) first.set(slug, room.name)
    else
      add({
        severity: 'warning',
        where: `rooms[${i}]`,
        message:
          `${JSON.stringify(room.name)} and ${JSON.stringify(other)} share the slug ${slug}: Home Assistant would ` +
          'show one occupancy sensor for both; rename one',
      })
  })
}
