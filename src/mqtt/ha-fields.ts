/**
 * What every Home Assistant discovery config of beaconkit shares, whoever publishes it (a gateway
 * on its own, a gateway in a fleet, the fleet tracker; docs/mqtt.md): the values that become
 * entities and their sensor classes, the templates that read them, the devices and the origin.
 */

import type { Beacon } from '../reading.js'
import { PACKAGE_VERSION } from './payloads.js'
import { haObjectId } from './topics.js'

/** The values that become entities, by their object-id suffix. */
export type HaField = 'temperature' | 'light' | 'battery' | 'rssi' | 'distance' | 'accelerometer_count' | 'moving'

/** How one value becomes an entity. */
export interface HaFieldSpec {
  component: 'sensor' | 'binary_sensor'
  name: string
  /** The Beacon member the entity shows (the fleet's `values` use the same names). */
  member: keyof Beacon
  /** Whether the beacon has reported a real value (not null, not an unknown accuracy of -1). */
  has(b: Partial<Record<keyof Beacon, unknown>>): boolean
  /** Device class, unit, state class, icon, entity category. */
  config: Readonly<Record<string, string>>
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/** Units and classes from Home Assistant's sensor device classes. */
export const HA_FIELD_SPECS: Readonly<Record<HaField, HaFieldSpec>> = Object.freeze({
  temperature: {
    component: 'sensor',
    name: 'Temperature',
    member: 'temperature',
    has: (b) => isNumber(b.temperature),
    config: { device_class: 'temperature', unit_of_measurement: '°C', state_class: 'measurement' },
  },
  light: {
    component: 'sensor',
    name: 'Light',
    member: 'light',
    has: (b) => isNumber(b.light),
    config: { device_class: 'illuminance', unit_of_measurement: 'lx', state_class: 'measurement' },
  },
  battery: {
    component: 'sensor',
    name: 'Battery',
    member: 'batteryLevel',
    has: (b) => isNumber(b.batteryLevel),
    config: { device_class: 'battery', unit_of_measurement: '%', state_class: 'measurement' },
  },
  rssi: {
    component: 'sensor',
    name: 'RSSI',
    member: 'smoothedRssi',
    has: (b) => isNumber(b.smoothedRssi),
    config: {
      device_class: 'signal_strength',
      unit_of_measurement: 'dBm',
      state_class: 'measurement',
      entity_category: 'diagnostic',
    },
  },
  distance: {
    component: 'sensor',
    name: 'Distance',
    member: 'accuracy',
    has: (b) => isNumber(b.accuracy) && b.accuracy >= 0,
    config: { device_class: 'distance', unit_of_measurement: 'm', state_class: 'measurement' },
  },
  // A counter the beacon may reset (battery change): total_increasing treats a drop as a new cycle.
  accelerometer_count: {
    component: 'sensor',
    name: 'Accelerometer count',
    member: 'accelerometerCount',
    has: (b) => isNumber(b.accelerometerCount),
    config: { state_class: 'total_increasing', icon: 'mdi:counter' },
  },
  moving: {
    component: 'binary_sensor',
    name: 'Moving',
    member: 'moving',
    has: (b) => typeof b.moving === 'boolean',
    config: { device_class: 'moving' },
  },
})

/** Every field, in a fixed order. */
export const HA_FIELDS = Object.keys(HA_FIELD_SPECS) as HaField[]

/**
 * A template reading the field at `object.<member>` of the JSON payload (`object` is
 * `value_json` for a Beacon, `value_json.values` for the fleet state) that renders `None`
 * (Home Assistant's "unknown") for an empty message (a gone beacon), a payload without the
 * value, and a switched-off sensor (null).
 */
export function haFieldTemplate(field: HaField, object = 'value_json'): string {
  const spec = HA_FIELD_SPECS[field]
  // Levels below the first are read by subscript: Jinja2 tries an attribute before a key, and
  // `value_json.values` is the dict's values() method, not the fleet state's `values` member.
  const [root, ...levels] = object.split('.')
  const paths = [
    root,
    ...levels.map(
      (_, i) =>
        `${root}${levels
          .slice(0, i + 1)
          .map((l) => `['${l}']`)
          .join('')}`,
    ),
  ]
  const v = `${paths[paths.length - 1]}.${String(spec.member)}`
  // Every step of the path must be defined: Jinja2 raises on an attribute of an undefined value.
  const defined = [...paths.map((p) => `${p} is defined`), `${v} is defined`].join(' and ')
  if (spec.component === 'binary_sensor') {
    return `{% if ${defined} and ${v} is boolean %}{{ 'ON' if ${v} else 'OFF' }}{% else %}None{% endif %}`
  }
  const real = spec.member === 'accuracy' ? ` and ${v} >= 0` : ''
  return `{% if ${defined} and ${v} is number${real} %}{{ ${v} }}{% else %}None{% endif %}`
}

/** An `availability` entry reading the `state` of a beaconkit status topic (gateway or fleet). */
export function haStatusAvailability(topic: string): {
  topic: string
  value_template: string
  payload_available: string
  payload_not_available: string
} {
  return {
    topic,
    value_template: '{{ value_json.state if value_json is defined and value_json.state is defined else "offline" }}',
    payload_available: 'online',
    payload_not_available: 'offline',
  }
}

/** A Home Assistant device block. */
export interface HaDevice {
  identifiers: string[]
  name: string
  model: string
  manufacturer: string
  sw_version?: string
  via_device?: string
  /** The area Home Assistant files the device in (a gateway that knows its room). */
  suggested_area?: string
}

/** The device of a beacon (`beaconkit_<obj>`), named by its configured name or else its id. */
export function haDevice(beaconId: string, name?: string): HaDevice {
  return {
    identifiers: [`beaconkit_${haObjectId(beaconId)}`],
    name: name ?? `Beacon ${beaconId}`,
    model: 'BLE beacon',
    manufacturer: 'Device cloud platform',
  }
}

/**
 * The device of a gateway (`beaconkit_gw_<gw>`; gateway ids are already `[A-Za-z0-9_-]`); with the
 * room it is in, `suggested_area` so Home Assistant files it in that area (#39).
 */
export function haGatewayDevice(gatewayId: string, room?: string): HaDevice {
  return {
    ...(room === undefined ? {} : { suggested_area: room }),
    identifiers: [`beaconkit_gw_${gatewayId}`],
    name: `beaconkit gateway ${gatewayId}`,
    model: 'beaconkit gateway',
    manufacturer: 'beaconkit',
    sw_version: PACKAGE_VERSION,
  }
}

/** The `origin` of every discovery config. */
export const HA_ORIGIN: Readonly<{ name: string; sw_version: string }> = Object.freeze({
  name: 'beaconkit',
  sw_version: PACKAGE_VERSION,
})
