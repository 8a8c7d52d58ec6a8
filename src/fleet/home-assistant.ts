/**
 * The fleet's Home Assistant entities (docs/fleet.md "Home Assistant"): per beacon, a
 * `device_tracker` (home / not_home, with the room as an attribute), a `Room` sensor and a sensor
 * per fused value, all on the beacon's device (the same identifiers as the gateways' entities,
 * so a tag is one device). The fleet is the one publisher of these topics.
 */

import { haDevice, haFieldTemplate, HA_FIELD_SPECS, HA_ORIGIN, haStatusAvailability } from '../mqtt/ha-fields.js'
import type { HaField } from '../mqtt/ha-fields.js'
import { haObjectId } from '../mqtt/topics.js'

/**
 * The fused values that become entities. Not rssi or distance: those are one gateway's view of
 * the beacon, not a value of the beacon itself.
 */
export const FLEET_HA_FIELDS: readonly HaField[] = Object.freeze([
  'temperature',
  'light',
  'battery',
  'accelerometer_count',
  'moving',
])

/**
 * The device_tracker's attributes from `<p>/fleet/presence/<id>`: `in_zones` is what Home
 * Assistant reads to put a tracker without a state topic in a zone (home while present, nowhere
 * once away); an empty or foreign payload gives `{"in_zones": []}` rather than a template error.
 */
const ATTRIBUTES_TEMPLATE =
  '{% set p = value_json if value_json is defined and value_json is mapping else {} %}' +
  '{% set here = p.present is defined and p.present is sameas true %}' +
  "{% set a = {'in_zones': ['zone.home'] if here else [], 'room': p.room if here and p.room is string else None} %}" +
  '{% if p.name is defined and p.name is string %}{% set a = dict(a, name=p.name) %}{% endif %}' +
  '{{ a | tojson }}'

/** The room while present (`home` without one), `away` once gone, None (unknown) for an empty or foreign payload. */
const ROOM_TEMPLATE =
  '{% if value_json is defined and value_json is mapping and value_json.present is defined %}' +
  '{% if value_json.present is sameas true %}' +
  "{{ value_json.room if value_json.room is defined and value_json.room is string else 'home' }}" +
  '{% else %}away{% endif %}' +
  '{% else %}None{% endif %}'

/** The Room sensor's attributes: the floor beside the room (#39), None on a one-plane site or when away. */
const ROOM_ATTRIBUTES_TEMPLATE =
  '{% set p = value_json if value_json is defined and value_json is mapping else {} %}' +
  "{{ {'floor': p.floor if p.present is defined and p.present is sameas true and p.floor is defined" +
  ' and p.floor is string else None} | tojson }}'

/** `<ha>/device_tracker/beaconkit_<obj>/config` */
export function haTrackerConfigTopic(haPrefix: string, beaconId: string): string {
  return `${haPrefix}/device_tracker/beaconkit_${haObjectId(beaconId)}/config`
}

/** `<ha>/sensor/beaconkit_<obj>_room/config` */
export function haRoomConfigTopic(haPrefix: string, beaconId: string): string {
  return `${haPrefix}/sensor/beaconkit_${haObjectId(beaconId)}_room/config`
}

/**
 * `<ha>/<component>/beaconkit_<obj>_<field>/config`: the legacy topics, so Home Assistant keeps the
 * entity and its history.
 */
export function haValueConfigTopic(haPrefix: string, beaconId: string, field: HaField): string {
  return `${haPrefix}/${HA_FIELD_SPECS[field].component}/beaconkit_${haObjectId(beaconId)}_${field}/config`
}

/** Every config topic the fleet may write for a beacon: what forgetting it empties. */
export function haFleetConfigTopics(haPrefix: string, beaconId: string): string[] {
  return [
    haTrackerConfigTopic(haPrefix, beaconId),
    haRoomConfigTopic(haPrefix, beaconId),
    ...FLEET_HA_FIELDS.map((f) => haValueConfigTopic(haPrefix, beaconId, f)),
  ]
}

/** What every fleet config of a beacon shares: device, origin and (one tracker) availability. */
function common(
  topicPrefix: string,
  beaconId: string,
  availability: boolean,
  name: string | undefined,
): Record<string, unknown> {
  return {
    // Scale-out: a beacon moves between trackers, and no one topic says whether its current one
    // is up; the entities then have no availability and a stale state is cleared by the gone timeout.
    ...(availability ? { availability: [haStatusAvailability(`${topicPrefix}/fleet/status`)] } : {}),
    device: haDevice(beaconId, name),
    origin: HA_ORIGIN,
  }
}

/**
 * The discovery config of a beacon's device_tracker, fed by `<p>/fleet/presence/<id>` through
 * its attributes only: no state topic (deprecated for MQTT device trackers).
 */
export function haTrackerConfig(
  topicPrefix: string,
  beaconId: string,
  availability = true,
  name?: string,
): Record<string, unknown> {
  return {
    name: null,
    unique_id: `beaconkit_${haObjectId(beaconId)}_presence`,
    source_type: 'bluetooth_le',
    json_attributes_topic: `${topicPrefix}/fleet/presence/${beaconId}`,
    json_attributes_template: ATTRIBUTES_TEMPLATE,
    ...common(topicPrefix, beaconId, availability, name),
  }
}

/** The discovery config of a beacon's Room sensor, fed by `<p>/fleet/presence/<id>`. */
export function haRoomConfig(
  topicPrefix: string,
  beaconId: string,
  availability = true,
  name?: string,
): Record<string, unknown> {
  return {
    name: 'Room',
    unique_id: `beaconkit_${haObjectId(beaconId)}_room`,
    icon: 'mdi:map-marker',
    state_topic: `${topicPrefix}/fleet/presence/${beaconId}`,
    value_template: ROOM_TEMPLATE,
    json_attributes_topic: `${topicPrefix}/fleet/presence/${beaconId}`,
    json_attributes_template: ROOM_ATTRIBUTES_TEMPLATE,
    ...common(topicPrefix, beaconId, availability, name),
  }
}

/** The discovery config of one fused value of a beacon, fed by `<p>/fleet/beacons/<id>`. */
export function haValueConfig(
  topicPrefix: string,
  beaconId: string,
  field: HaField,
  availability = true,
  name?: string,
): Record<string, unknown> {
  const spec = HA_FIELD_SPECS[field]
  return {
    name: spec.name,
    unique_id: `beaconkit_${haObjectId(beaconId)}_${field}`,
    state_topic: `${topicPrefix}/fleet/beacons/${beaconId}`,
    value_template: haFieldTemplate(field, 'value_json.values'),
    ...spec.config,
    ...common(topicPrefix, beaconId, availability, name),
  }
}
