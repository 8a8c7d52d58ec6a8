/**
 * The Home Assistant device of a gateway (`beaconkit_gw_<gw>`, docs/mqtt.md "Home Assistant"),
 * announced by every gateway with Home Assistant on, on its own or in a fleet: a connectivity
 * binary_sensor and a "Beacons in range" sensor, both read off the gateway's retained status.
 */

import { HA_ORIGIN, haGatewayDevice, haStatusAvailability } from './ha-fields.js'
import type { HaMessage } from './home-assistant.js'

/** ON while the status says online; OFF for offline, the will, an empty or foreign payload. */
export const HA_CONNECTIVITY_TEMPLATE =
  "{{ 'ON' if value_json is defined and value_json.state == 'online' else 'OFF' }}"

/** The status's `beacons` when it is a number (a JSON `true` is a number to Jinja2 too), else None (unknown). */
export const HA_BEACONS_TEMPLATE =
  '{% if value_json is defined and value_json.beacons is defined and value_json.beacons is number' +
  ' and value_json.beacons is not boolean %}{{ value_json.beacons }}{% else %}None{% endif %}'

/** The two retained configs of the gateway's device, for `<ha>` and the status topic of gateway `gatewayId`. */
export function haGatewayConfigs(prefix: string, gatewayId: string, statusTopic: string, room?: string): HaMessage[] {
  const node = `beaconkit_gw_${gatewayId}`
  const device = haGatewayDevice(gatewayId, room)
  const connectivity = {
    name: 'Connectivity',
    unique_id: `${node}_connectivity`,
    device_class: 'connectivity',
    entity_category: 'diagnostic',
    state_topic: statusTopic,
    value_template: HA_CONNECTIVITY_TEMPLATE,
    // No availability: a gateway that is down must show off, not unavailable.
    device,
    origin: HA_ORIGIN,
  }
  const beacons = {
    name: 'Beacons in range',
    unique_id: `${node}_beacons`,
    state_class: 'measurement',
    icon: 'mdi:bluetooth',
    state_topic: statusTopic,
    value_template: HA_BEACONS_TEMPLATE,
    availability: [haStatusAvailability(statusTopic)],
    device,
    origin: HA_ORIGIN,
  }
  return [
    { topic: `${prefix}/binary_sensor/${node}/connectivity/config`, payload: JSON.stringify(connectivity) },
    { topic: `${prefix}/sensor/${node}/beacons/config`, payload: JSON.stringify(beacons) },
  ]
}
