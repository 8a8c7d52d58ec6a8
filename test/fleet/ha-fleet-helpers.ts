// What every test of the fleet's Home Assistant configs checks of a device_tracker config
// (contract v2, section 3): attributes only, no state topic (deprecated by Home Assistant).
import { expect } from 'vitest'
import { haObjectId } from '../../src/mqtt/topics.js'

/** Parses a retained device_tracker config and checks its v2 form; returns it. */
export function expectTrackerConfig(payload: string | undefined, topicPrefix: string, id: string, name?: string): Record<string, unknown> {
  expect(payload, `device_tracker config of ${id}`).toBeDefined()
  const config = JSON.parse(payload ?? '{}') as Record<string, unknown>
  for (const key of ['state_topic', 'value_template', 'payload_home', 'payload_not_home', 'payload_reset']) expect(config, key).not.toHaveProperty(key)
  expect(config).toMatchObject({
    name: null,
    unique_id: `beaconkit_${haObjectId(id)}_presence`,
    source_type: 'bluetooth_le',
    json_attributes_topic: `${topicPrefix}/fleet/presence/${id}`,
    device: { identifiers: [`beaconkit_${haObjectId(id)}`], name: name ?? `Beacon ${id}` },
    origin: { name: 'beaconkit' },
  })
  expect(typeof config.json_attributes_template).toBe('string')
  return config
}
