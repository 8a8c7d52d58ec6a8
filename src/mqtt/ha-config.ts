/**
 * Home Assistant MQTT discovery configs of a gateway's beacons (docs/mqtt.md "Home Assistant"):
 * where each entity's config goes (per gateway, and the legacy shared topics a fleet tracker now
 * uses), what it holds, and the names beacons are announced by.
 */

import { HA_FIELD_SPECS as FIELDS, HA_ORIGIN, haDevice, haFieldTemplate, haStatusAvailability } from './ha-fields.js'
import type { HaDevice, HaField } from './ha-fields.js'
import { GatewayTopics, haObjectId } from './topics.js'

/** Settings of the discovery configs. */
export interface HaSettings {
  /** Discovery prefix, default `homeassistant`. */
  prefix: string
  /** The beacon topic prefix `<p>`. */
  topicPrefix: string
  /**
   * The gateway whose entities these are (added with the per-gateway configs): it names the
   * config topics (`beaconkit_<gw>` node id), the unique ids, the state and status topics.
   */
  gatewayId: string
  /** Seconds without a state message before Home Assistant marks an entity unavailable. */
  expireAfterSeconds: number
}

/** `<ha>/<component>/beaconkit_<gw>/<obj>_<field>/config`: the gateway's own entity of the beacon's value. */
export function haConfigTopic(
  settings: Pick<HaSettings, 'prefix' | 'gatewayId'>,
  beaconId: string,
  field: HaField,
): string {
  const { component } = FIELDS[field]
  return `${settings.prefix}/${component}/beaconkit_${settings.gatewayId}/${haObjectId(beaconId)}_${field}/config`
}

/**
 * `<ha>/<component>/beaconkit_<obj>_<field>/config`: where gateways before the per-gateway
 * configs announced one entity shared by all (a fleet tracker announces its fused values there now).
 */
export function haLegacyConfigTopic(prefix: string, beaconId: string, field: HaField): string {
  return `${prefix}/${FIELDS[field].component}/beaconkit_${haObjectId(beaconId)}_${field}/config`
}

/**
 * Names of beacons by id or serial number (a config file's `beacons:` list; the fleet's come from
 * its site). Structural, so the MQTT layer needs nothing of where the names were read.
 */
export interface HaBeaconNames {
  /** The beacon's name, if it has one. */
  nameOf(id: string, serialNumber?: string): string | undefined
  /** Whether it may be announced: always without a list, else only when it is named. */
  listed(id: string, serialNumber?: string): boolean
}

/**
 * The discovery config of one entity of one beacon, as this gateway hears it (`name`: the device's,
 * when the beacon is named).
 */
export function haConfig(
  settings: HaSettings,
  beaconId: string,
  field: HaField,
  name?: string,
): Record<string, unknown> {
  const spec = FIELDS[field]
  const topics = new GatewayTopics(settings.topicPrefix, settings.gatewayId)
  const device: HaDevice = { ...haDevice(beaconId, name), via_device: `beaconkit_gw_${settings.gatewayId}` }
  return {
    name: spec.name,
    unique_id: `beaconkit_${settings.gatewayId}_${haObjectId(beaconId)}_${field}`,
    state_topic: topics.beacon(beaconId),
    value_template: haFieldTemplate(field),
    ...spec.config,
    expire_after: settings.expireAfterSeconds,
    // Its own status, never `+`: Home Assistant would take the latest message of any gateway.
    availability: [haStatusAvailability(topics.status)],
    device,
    origin: HA_ORIGIN,
  }
}
