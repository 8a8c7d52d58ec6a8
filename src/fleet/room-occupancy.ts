/**
 * Occupancy per room for Home Assistant (#39): one sensor per room, on a device of that room
 * (`beaconkit_room_<slug>`, `suggested_area` the room's name, so Home Assistant files it in that
 * area), whose state is the number of present beacons in the room and whose attributes are their
 * names. Fed by a retained `<p>/fleet/rooms/<slug>`: `{"room", "floor"?, "count", "beacons"}`.
 * Pure: the counts from the fleet's beacons, the payloads and the discovery config; publishing is
 * the tracker's.
 */
import { HA_ORIGIN, haStatusAvailability } from '../mqtt/ha-fields.js'
import { haObjectId } from '../mqtt/topics.js'
import type { FleetBeacon } from './fleet-beacon.js'

/** Names listed in one room's attributes at most (a hall at a party is not a list to read). */
export const MAX_OCCUPANT_NAMES = 50

/** A room's slug: lower-case, every character outside `[a-z0-9]` an `_` (as a beacon's `<obj>`). */
export function roomSlug(room: string): string {
  return haObjectId(room)
}

/** `<p>/fleet/rooms/<slug>` */
export function roomOccupancyTopic(topicPrefix: string, room: string): string {
  return `${topicPrefix}/fleet/rooms/${roomSlug(room)}`
}

/** The payload of `<p>/fleet/rooms/<slug>`. */
export interface RoomOccupancyState {
  room: string
  floor?: string
  count: number
  /** The names (or ids) of the beacons in it, sorted, at most {@link MAX_OCCUPANT_NAMES}. */
  beacons: string[]
}

/**
 * Counts the present beacons of each of `rooms` (every room is listed, empty ones with 0, so a
 * room emptied is published as such); a beacon without a room, or in a room the site does not
 * know, counts nowhere.
 */
export function roomOccupancy(
  rooms: readonly { name: string; floor?: string }[],
  beacons: Iterable<FleetBeacon>,
): RoomOccupancyState[] {
  const by = new Map<string, RoomOccupancyState>()
  for (const r of rooms)
    by.set(r.name, { room: r.name, ...(r.floor === undefined ? {} : { floor: r.floor }), count: 0, beacons: [] })
  for (const b of beacons) {
    const s = b.room === undefined ? undefined : by.get(b.room)
    if (s === undefined) continue
    s.count++
    s.beacons.push(b.name ?? b.id)
  }
  for (const s of by.values()) s.beacons = s.beacons.sort().slice(0, MAX_OCCUPANT_NAMES)
  return [...by.values()]
}

/** Which rooms' payloads differ from the ones last published (`last`, updated in place). */
export function changedRooms(last: Map<string, string>, now: readonly RoomOccupancyState[]): RoomOccupancyState[] {
  const out: RoomOccupancyState[] = []
  for (const s of now) {
    const text = JSON.stringify(s)
    if (last.get(s.room) === text) continue
    last.set(s.room, text)
    out.push(s)
  }
  return out
}

/** `<ha>/sensor/beaconkit_room_<slug>_occupancy/config` */
export function haOccupancyConfigTopic(haPrefix: string, room: string): string {
  return `${haPrefix}/sensor/beaconkit_room_${roomSlug(room)}_occupancy/config`
}

const COUNT_TEMPLATE =
  '{% if value_json is defined and value_json is mapping and value_json.count is number %}' +
  '{{ value_json.count }}{% else %}None{% endif %}'

const NAMES_TEMPLATE =
  '{% set p = value_json if value_json is defined and value_json is mapping else {} %}' +
  "{{ {'beacons': p.beacons if p.beacons is defined and p.beacons is sequence and p.beacons is not string else []," +
  " 'floor': p.floor if p.floor is defined and p.floor is string else None} | tojson }}"

/** The discovery config of a room's occupancy sensor, on the room's own device. */
export function haOccupancyConfig(topicPrefix: string, room: string, availability = true): Record<string, unknown> {
  const slug = roomSlug(room)
  const topic = roomOccupancyTopic(topicPrefix, room)
  return {
    name: 'Occupancy',
    unique_id: `beaconkit_room_${slug}_occupancy`,
    icon: 'mdi:account-group',
    state_class: 'measurement',
    state_topic: topic,
    value_template: COUNT_TEMPLATE,
    json_attributes_topic: topic,
    json_attributes_template: NAMES_TEMPLATE,
    ...(availability ? { availability: [haStatusAvailability(`${topicPrefix}/fleet/status`)] } : {}),
    device: {
      identifiers: [`beaconkit_room_${slug}`],
      name: room,
      suggested_area: room,
      model: 'Room',
      manufacturer: 'beaconkit',
    },
    origin: HA_ORIGIN,
  }
}
