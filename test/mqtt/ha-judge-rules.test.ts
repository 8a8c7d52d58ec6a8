// The judge's device_tracker rules of CURRENT Home Assistant (test/support/ha-entities.ts header:
// home-assistant/core mqtt/device_tracker.py `_process_update_extra_state_attributes`, and
// TrackerEntity.state after the 2026-06-15 "Changes to device tracker entity models"): a tracker
// configured with json_attributes_topic only, in_zones matched by entity id / object id / friendly
// name, coordinates before in_zones, the location name before both, and discoveryProblems()
// accepting the state-topic-free config while naming the deprecated keys.
import { describe, expect, it } from 'vitest'
import { HaJudge } from '../support/ha-judge.js'
import type { HaMessage, HaZone } from '../support/ha-judge.js'
import { discoveryProblems, jinjaAvailable } from '../support/ha-schema.js'

const JINJA = jinjaAvailable()
const SKIP = JINJA ? '' : ' [skipped: /usr/bin/python3 lacks jinja2 (apt-get install -y python3-jinja2)]'

const ZONES: HaZone[] = [
  { entityId: 'zone.home', name: 'Home', latitude: 52, longitude: 13, radius: 100 },
  { entityId: 'zone.office', name: 'Office', latitude: 52.1, longitude: 13, radius: 200 },
  { entityId: 'zone.campus', name: 'Campus', latitude: 52.1, longitude: 13, radius: 2000 },
]
const TOPIC = 'homeassistant/device_tracker/beaconkit_tag/config'
const ATTRS = 'beaconkit/fleet/presence/tag'
/** The shape the contract gives the fleet's tracker: no state_topic, in_zones from a template. */
const TEMPLATE = '{{ {"in_zones": ["zone.home"] if value_json.present else [], "room": value_json.room if value_json.room is defined else None} | tojson }}'
const tracker = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: null,
  unique_id: 'tag_presence',
  source_type: 'bluetooth_le',
  json_attributes_topic: ATTRS,
  device: { identifiers: ['beaconkit_tag'], name: 'Tag' },
  ...extra,
})
const config = (c: Record<string, unknown>): HaMessage => ({ topic: TOPIC, payload: JSON.stringify(c), retain: true })
const attrs = (body: unknown, topic = ATTRS): HaMessage => ({ topic, payload: JSON.stringify(body), retain: true })

/** What the tracker shows after each batch. */
function walk(c: Record<string, unknown>, batches: HaMessage[][], judge = new HaJudge({ zones: ZONES })): string[] {
  judge.receive([config(c)], 0)
  return batches.map((b, i) => {
    judge.receive(b, (i + 1) * 1000)
    return judge.show(c.unique_id as string) ?? '(no entity)'
  })
}

describe.skipIf(!JINJA)(`HA judge: device_tracker from in_zones (current Home Assistant)${SKIP}`, () => {
  it('a config with json_attributes_topic only: unknown, then home / not_home from the templated in_zones; attributes without in_zones', () => {
    const judge = new HaJudge({ zones: ZONES })
    const got = walk(tracker({ json_attributes_template: TEMPLATE }), [[attrs({ present: true, room: 'Kitchen' })], [attrs({ present: false })], [attrs({ present: true })]], judge)
    expect(judge.log).toEqual([])
    expect(got).toEqual(['home', 'not_home', 'home'])
    expect(judge.attributes('tag_presence')).toEqual({ room: null })
    const fresh = new HaJudge({ zones: ZONES })
    fresh.receive([config(tracker({ json_attributes_template: TEMPLATE }))], 0)
    expect(fresh.show('tag_presence')).toBe('unknown')
  })

  it('matches in_zones by entity id, object id and friendly name, drops unknown ones, takes the smallest zone', () => {
    const got = walk(tracker(), [
      [attrs({ in_zones: ['zone.office'] })],
      [attrs({ in_zones: ['office'] })],
      [attrs({ in_zones: ['Office'] })],
      [attrs({ in_zones: ['Campus', 'home'] })],
      [attrs({ in_zones: ['campus', 'zone.office'] })],
      [attrs({ in_zones: ['zone.nowhere', 'Nowhere', 7] })],
      [attrs({ in_zones: [] })],
    ])
    expect(got).toEqual(['Office', 'Office', 'Office', 'home', 'Office', 'not_home', 'not_home'])
  })

  it('in_zones that is not a list: a warning, nothing changes', () => {
    const judge = new HaJudge({ zones: ZONES })
    expect(walk(tracker(), [[attrs({ in_zones: ['home'], room: 'A' })], [attrs({ in_zones: 'home', room: 'B' })]], judge)).toEqual(['home', 'home'])
    expect(judge.attributes('tag_presence')).toEqual({ room: 'A' })
    expect(judge.log.some((l) => l.includes('not a list'))).toBe(true)
  })

  it('coordinates win over in_zones in one message and clear it; in_zones later clears the coordinates; bad coordinates clear both', () => {
    const judge = new HaJudge({ zones: ZONES })
    const got = walk(tracker(), [
      [attrs({ in_zones: ['home'], latitude: 52.1, longitude: 13.0001 })],
      [attrs({ in_zones: ['home'] })],
      [attrs({ latitude: 10, longitude: 10 })],
      [attrs({ latitude: 'north', longitude: 13, gps_accuracy: 5, battery: 80 })],
    ], judge)
    expect(got).toEqual(['Office', 'home', 'not_home', 'unknown'])
    expect(judge.attributes('tag_presence')).toEqual({ battery: 80 })
    expect(judge.log.some((l) => l.includes('invalid or incomplete location'))).toBe(true)
  })

  it('coordinates: zones by size, then by distance', () => {
    const twins: HaZone[] = [
      { entityId: 'zone.a', name: 'A', latitude: 0, longitude: 0, radius: 500 },
      { entityId: 'zone.b', name: 'B', latitude: 0, longitude: 0.002, radius: 500 },
      { entityId: 'zone.big', name: 'Big', latitude: 0, longitude: 0.001, radius: 5000 },
    ]
    const got = walk(tracker(), [[attrs({ latitude: 0, longitude: 0.0015 })], [attrs({ latitude: 0, longitude: 0.0004 })], [attrs({ latitude: 0, longitude: 0.02 })]], new HaJudge({ zones: twins }))
    expect(got).toEqual(['B', 'A', 'Big'])
  })

  it('the location name of the deprecated state topic wins over in_zones until coordinates reset it', () => {
    const got = walk(tracker({ state_topic: 's/tag' }), [[attrs({ in_zones: [] })], [{ topic: 's/tag', payload: 'garden' }], [attrs({ in_zones: ['home'] })], [attrs({ latitude: 52, longitude: 13 })]])
    expect(got).toEqual(['not_home', 'garden', 'garden', 'home'])
  })

  it('availability from the fleet status: unavailable while the fleet is offline, in_zones shown again once online', () => {
    const availability = [{ topic: 'beaconkit/fleet/status', value_template: '{{ value_json.state if value_json is defined and value_json.state is defined else "offline" }}' }]
    const status = (state: string): HaMessage => ({ topic: 'beaconkit/fleet/status', payload: JSON.stringify({ state }), retain: true })
    expect(walk(tracker({ availability }), [[attrs({ in_zones: ['home'] })], [status('online')], [status('offline')], [attrs({ in_zones: [] }), status('online')]])).toEqual(['unavailable', 'home', 'unavailable', 'not_home'])
  })
})

describe('discoveryProblems for a device_tracker (current Home Assistant)', () => {
  it('accepts json_attributes_topic without state_topic, names the deprecated keys, needs one of the two topics', () => {
    expect(discoveryProblems(TOPIC, JSON.stringify(tracker({ json_attributes_template: TEMPLATE, availability: [{ topic: 'beaconkit/fleet/status' }] })))).toEqual([])
    const old = discoveryProblems(TOPIC, JSON.stringify(tracker({ state_topic: 's/tag', value_template: '{{ value }}', payload_home: 'home', payload_not_home: 'not_home' })))
    expect(old.map((p) => p.split(' ')[0])).toEqual(['state_topic', 'value_template', 'payload_home', 'payload_not_home'])
    expect(old[0]).toContain('2027.1')
    const none = tracker()
    delete none.json_attributes_topic
    expect(discoveryProblems(TOPIC, JSON.stringify(none))).toEqual(['json_attributes_topic missing or not a valid subscribe topic (no state_topic either)'])
    expect(discoveryProblems(TOPIC, JSON.stringify(tracker({ json_attributes_topic: 'a/#/b' })))).toHaveLength(2)
  })

  it('still needs state_topic and value_template on a sensor', () => {
    expect(discoveryProblems('homeassistant/sensor/x/config', JSON.stringify({ unique_id: 'x', device: { identifiers: ['d'] } }))).toEqual(['state_topic missing or not a valid subscribe topic', 'value_template missing'])
  })
})
