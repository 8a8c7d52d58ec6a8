/**
 * The fleet's Home Assistant entity: one `device_tracker` per beacon whose state is the room the
 * fused state puts it in, computed from every gateway rather than the nearest node's view. It
 * joins the device of the gateways' sensor entities (same identifiers), so a tag is one device.
 */

import { haDevice, HA_ORIGIN } from '../mqtt/ha-fields.js'
import { haObjectId } from '../mqtt/topics.js'

/**
 * Renders the room of a present beacon, `home` for a present beacon with no room (no site, or a
 * gateway with none), and `not_home` for the empty retained message of a gone beacon.
 */
const STATE_TEMPLATE = "{% if value_json is defined and value_json.present %}{{ value_json.room if value_json.room is string else 'home' }}{% else %}not_home{% endif %}"

/** `<ha>/device_tracker/beaconkit_<obj>/config` */
export function haTrackerConfigTopic(haPrefix: string, beaconId: string): string {
  return `${haPrefix}/device_tracker/beaconkit_${haObjectId(beaconId)}/config`
}

/**
 * The discovery config of a beacon's device_tracker, fed by `<p>/fleet/beacons/<id>`. Without
 * `availability` (scale-out: a beacon moves between trackers, and no one topic says whether
 * its current one is up) the entity has none, and a stale room is cleared by the gone timeout.
 */
export function haTrackerConfig(topicPrefix: string, beaconId: string, availability = true): Record<string, unknown> {
  const config: Record<string, unknown> = {
    name: 'Room',
    unique_id: `beaconkit_${haObjectId(beaconId)}_room`,
    state_topic: `${topicPrefix}/fleet/beacons/${beaconId}`,
    value_template: STATE_TEMPLATE,
    payload_home: 'home',
    payload_not_home: 'not_home',
    source_type: 'bluetooth_le',
    availability: [
      {
        topic: `${topicPrefix}/fleet/status`,
        value_template: '{{ value_json.state if value_json is defined else "offline" }}',
        payload_available: 'online',
        payload_not_available: 'offline',
      },
    ],
    device: haDevice(beaconId),
    origin: HA_ORIGIN,
  }
  if (!availability) delete config.availability
  return config
}
