/**
 * Home Assistant's zones as a device_tracker sees them (facts from current home-assistant/core:
 * zone/__init__.py `async_active_zone`, device_tracker TrackerEntity.state, and
 * mqtt/device_tracker.py for `in_zones`): which zone holds a pair of coordinates, which zones an
 * `in_zones` list names, and the state a zone gives (zone.home → `home`, none → `not_home`,
 * another → its friendly name).
 */

/** A zone entity (zone.home by default in the judge). */
export interface HaZone {
  entityId: string
  name: string
  latitude: number
  longitude: number
  radius: number
  passive?: boolean
}

/** Great-circle distance in metres (zone membership, as homeassistant/util/location.py). */
function distance(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2
  return 2 * 6_371_000 * Math.asin(Math.sqrt(a))
}

/** The state a zone gives a tracker: zone.home → `home`, none → `not_home`, another → its name. */
export function zoneState(zone: HaZone | undefined): string {
  if (zone === undefined) return 'not_home'
  return zone.entityId === 'zone.home' ? 'home' : zone.name
}

/** The active zone holding the coordinates: the non-passive ones in reach, smallest first, then nearest. */
export function zoneAt(zones: readonly HaZone[], lat: number, lon: number, accuracy: number): HaZone | undefined {
  return zones
    .map((z) => ({ z, d: distance(lat, lon, z.latitude, z.longitude) }))
    .filter(({ z, d }) => !z.passive && d - z.radius < accuracy)
    .sort((x, y) => x.z.radius - y.z.radius || x.d - y.d)[0]?.z
}

/** The zones an `in_zones` list names (entity id, object id or friendly name), unknown ones dropped, in order. */
export function zonesNamed(zones: readonly HaZone[], reported: readonly unknown[]): HaZone[] {
  const out: HaZone[] = []
  for (const r of reported) {
    if (typeof r !== 'string') continue
    const zone = zones.find((z) => z.entityId === r || z.entityId === `zone.${r}` || z.name === r)
    if (zone !== undefined && !out.includes(zone)) out.push(zone)
  }
  return out
}

/** The zone of a tracker with `in_zones`: the smallest named one (undefined for an empty list: not_home). */
export function smallestZone(zones: readonly HaZone[]): HaZone | undefined {
  return [...zones].sort((x, y) => x.radius - y.radius)[0]
}
