// The Home Assistant judge (test/support/ha-judge.ts) rule by rule, with hand-made configs and
// messages rendered through real Jinja2: what HA shows after each message for sensor,
// binary_sensor and device_tracker, availability (latest / any / all, templates, a wildcard
// topic), expire_after, discovery (retained states for a new entity, removal) and a restart.
import { describe, expect, it } from 'vitest'
import { HaJudge, topicMatches } from '../support/ha-judge.js'
import type { HaMessage } from '../support/ha-judge.js'
import { jinjaAvailable } from '../support/ha-schema.js'

const JINJA = jinjaAvailable()
const title = (t: string): string => (JINJA ? t : `${t} [skipped: /usr/bin/python3 lacks jinja2 (apt-get install -y python3-jinja2)]`)

const cfg = (component: string, id: string, config: Record<string, unknown>): HaMessage => ({ topic: `homeassistant/${component}/${id}/config`, payload: JSON.stringify({ unique_id: id, ...config }), retain: true })
const msg = (topic: string, payload: string, retain = false): HaMessage => ({ topic, payload, retain })

/** A judge with one config, then each step's messages; returns what `id` shows after each step. */
function steps(config: HaMessage, batches: HaMessage[][], judge = new HaJudge()): (string | undefined)[] {
  judge.receive([config], 0)
  const id = (JSON.parse(config.payload) as { unique_id: string }).unique_id
  return batches.map((b, i) => {
    judge.receive(b, (i + 1) * 1000)
    return judge.show(id)
  })
}

describe('topicMatches', () => {
  it('matches MQTT filters level by level', () => {
    expect(topicMatches('a/+/c', 'a/b/c')).toBe(true)
    expect(topicMatches('a/+/c', 'a/b/d')).toBe(false)
    expect(topicMatches('a/#', 'a')).toBe(true)
    expect(topicMatches('a/#', 'a/b/c')).toBe(true)
    expect(topicMatches('#', 'x/y')).toBe(true)
    expect(topicMatches('a/b', 'a/b/c')).toBe(false)
  })
})

describe.skipIf(!JINJA)(title('HA judge: sensor'), () => {
  const temp = cfg('sensor', 't1', { state_topic: 's/t1', value_template: '{{ value_json.t }}', device_class: 'temperature', unit_of_measurement: '°C', state_class: 'measurement' })

  it('renders value_json, a null rendered as None → unknown, keeps the old state for an empty or non-numeric value', () => {
    expect(steps(temp, [[msg('s/t1', '{"t": 21.5}')], [msg('s/t1', '{"t": "warm"}')], [msg('s/t1', '{"t": null}')], [msg('s/t1', '{"t": 22}')]])).toEqual(['21.5', '21.5', 'unknown', '22'])
  })

  it('logs a template error and changes nothing', () => {
    const judge = new HaJudge()
    expect(steps(temp, [[msg('s/t1', '{"t": 20}')], [msg('s/t1', 'not json')]], judge)).toEqual(['20', '20'])
    expect(judge.log.some((l) => l.includes('template error'))).toBe(true)
  })

  it('ignores an empty value of a numeric sensor and shows a text sensor\'s; over 255 characters → unknown', () => {
    const num = cfg('sensor', 'n1', { state_topic: 's/n1', unit_of_measurement: 'm' })
    expect(steps(num, [[msg('s/n1', '3')], [msg('s/n1', '')]])).toEqual(['3', '3'])
    const text = cfg('sensor', 'x1', { state_topic: 's/x1' })
    expect(steps(text, [[msg('s/x1', 'kitchen')], [msg('s/x1', 'k'.repeat(256))], [msg('s/x1', 'k'.repeat(255))]])).toEqual(['kitchen', 'unknown', 'k'.repeat(255)])
  })
})

describe.skipIf(!JINJA)(title('HA judge: binary_sensor'), () => {
  it('payload_on/off after the template, None → unknown, anything else and empty ignored', () => {
    const b = cfg('binary_sensor', 'b1', { state_topic: 's/b1', value_template: "{{ 'yes' if value_json.m else 'no' }}", payload_on: 'yes', payload_off: 'no' })
    expect(steps(b, [[msg('s/b1', '{"m": true}')], [msg('s/b1', '{"m": false}')]])).toEqual(['on', 'off'])
    const d = cfg('binary_sensor', 'b2', { state_topic: 's/b2' })
    expect(steps(d, [[msg('s/b2', 'ON')], [msg('s/b2', 'maybe')], [msg('s/b2', '')], [msg('s/b2', 'None')], [msg('s/b2', 'OFF')]])).toEqual(['on', 'on', 'on', 'unknown', 'off'])
  })
})

describe.skipIf(!JINJA)(title('HA judge: device_tracker'), () => {
  it('home / not_home / reset, and the RAW payload (not the rendered value) as the location otherwise', () => {
    const d = cfg('device_tracker', 'd1', { state_topic: 's/d1', value_template: '{{ value_json.room }}' })
    expect(steps(d, [[msg('s/d1', '{"room": "home"}')], [msg('s/d1', '{"room": "kitchen"}')], [msg('s/d1', '{"room": "not_home"}')], [msg('s/d1', '{"room": "None"}')], [msg('s/d1', '{"room": ""}')]])).toEqual(['home', '{"room": "kitchen"}', 'not_home', 'unknown', 'unknown'])
  })

  it('custom payloads, an over-long location → unknown', () => {
    const d = cfg('device_tracker', 'd2', { state_topic: 's/d2', payload_home: 'in', payload_not_home: 'out', payload_reset: 'reset' })
    expect(steps(d, [[msg('s/d2', 'in')], [msg('s/d2', 'out')], [msg('s/d2', 'x'.repeat(300))], [msg('s/d2', 'reset')]])).toEqual(['home', 'not_home', 'unknown', 'unknown'])
  })

  it('coordinates from JSON attributes give the zone (in_zones too: test/mqtt/ha-judge-rules.test.ts), the location name wins until coordinates reset it', () => {
    const zones = [
      { entityId: 'zone.home', name: 'Home', latitude: 52, longitude: 13, radius: 100 },
      { entityId: 'zone.office', name: 'Office', latitude: 52.1, longitude: 13, radius: 200 },
    ]
    const d = cfg('device_tracker', 'd3', { state_topic: 's/d3', json_attributes_topic: 'a/d3' })
    const got = steps(
      d,
      [[msg('a/d3', '{"in_zones": ["zone.home"]}')], [msg('a/d3', '{"latitude": 52.0001, "longitude": 13}')], [msg('a/d3', '{"latitude": 52.1, "longitude": 13.0001}')], [msg('a/d3', '{"latitude": 10, "longitude": 10}')], [msg('s/d3', 'garden')], [msg('a/d3', '{"latitude": 52, "longitude": 13}')]],
      new HaJudge({ zones }),
    )
    expect(got).toEqual(['home', 'home', 'Office', 'not_home', 'garden', 'home'])
  })
})

describe.skipIf(!JINJA)(title('HA judge: availability and expire_after'), () => {
  it('availability_topic with defaults: unavailable until online, unavailable wins over the state', () => {
    const s = cfg('sensor', 'a1', { state_topic: 's/a1', availability_topic: 'st/a1' })
    expect(steps(s, [[msg('s/a1', 'v')], [msg('st/a1', 'online')], [msg('st/a1', 'bogus')], [msg('st/a1', 'offline')], [msg('s/a1', 'w'), msg('st/a1', 'online')]])).toEqual(['unavailable', 'v', 'v', 'unavailable', 'w'])
  })

  it('availability list: latest, any, all, with value templates', () => {
    const list = [
      { topic: 'gw/1', value_template: '{{ value_json.state }}' },
      { topic: 'gw/2', payload_available: 'up', payload_not_available: 'down' },
    ]
    const walk = [[msg('s/m', 'x'), msg('gw/1', '{"state": "online"}')], [msg('gw/2', 'down')], [msg('gw/2', 'up')], [msg('gw/1', '{"state": "offline"}')]]
    expect(steps(cfg('sensor', 'latest', { state_topic: 's/m', availability: list }), walk)).toEqual(['x', 'unavailable', 'x', 'unavailable'])
    expect(steps(cfg('sensor', 'any', { state_topic: 's/m', availability: list, availability_mode: 'any' }), walk)).toEqual(['x', 'x', 'x', 'x'])
    expect(steps(cfg('sensor', 'all', { state_topic: 's/m', availability: list, availability_mode: 'all' }), walk)).toEqual(['unavailable', 'unavailable', 'x', 'unavailable'])
  })

  it('a wildcard availability topic: every message raises KeyError in HA, the entity stays unavailable', () => {
    const judge = new HaJudge()
    const s = cfg('sensor', 'w1', { state_topic: 's/w1', availability: [{ topic: 'gw/+/status' }] })
    expect(steps(s, [[msg('s/w1', 'v'), msg('gw/hall/status', 'online')], [msg('gw/yard/status', 'online')]], judge)).toEqual(['unavailable', 'unavailable'])
    expect(judge.log.filter((l) => l.includes('KeyError'))).toHaveLength(2)
  })

  it('expire_after: unavailable until the first message, then after the silence, any message resets it', () => {
    const judge = new HaJudge()
    judge.receive([cfg('sensor', 'e1', { state_topic: 's/e1', expire_after: 10 })], 0)
    expect(judge.show('e1')).toBe('unavailable')
    judge.receive([msg('s/e1', 'a')], 1000)
    expect(judge.show('e1')).toBe('a')
    judge.receive([msg('s/e1', '')], 9000)
    judge.advance(18_000)
    expect(judge.show('e1')).toBe('')
    judge.advance(19_000)
    expect(judge.show('e1')).toBe('unavailable')
  })
})

describe.skipIf(!JINJA)(title('HA judge: discovery and restart'), () => {
  it('a new entity gets the retained state; an empty config removes it; a restart re-reads what is retained', () => {
    const judge = new HaJudge()
    judge.receive([msg('s/r1', '5', true), msg('s/r1', '6')], 0)
    judge.receive([cfg('sensor', 'r1', { state_topic: 's/r1' })], 1000)
    // The live 6 was not retained: the new subscription gets the retained 5.
    expect(judge.show('r1')).toBe('5')
    judge.receive([msg('s/r1', '7')], 2000)
    expect(judge.show('r1')).toBe('7')
    judge.restart(3000)
    expect(judge.show('r1')).toBe('5')
    judge.receive([{ ...cfg('sensor', 'r1', {}), payload: '' }], 4000)
    expect(judge.show('r1')).toBeUndefined()
    judge.restart(5000)
    expect(judge.show('r1')).toBeUndefined()
  })

  it('a restart restores an expire_after state that has not expired, from a broker\'s retained map', () => {
    const judge = new HaJudge()
    const c = cfg('sensor', 'x', { state_topic: 's/x', expire_after: 60 })
    judge.receive([c, msg('s/x', '1')], 0)
    judge.receive([msg('s/x', '2')], 30_000)
    judge.restart(40_000, new Map([[c.topic, c.payload]]))
    expect(judge.show('x')).toBe('2')
    judge.advance(90_000)
    expect(judge.show('x')).toBe('unavailable')
    judge.restart(100_000, new Map([[c.topic, c.payload]]))
    expect(judge.show('x')).toBe('unavailable')
  })
})
