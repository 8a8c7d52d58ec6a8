// Home Assistant discovery round trip through a real Mosquitto: the configs a replay leaves
// retained, checked against HA's discovery rules, their templates rendered by real Jinja2
// against the state messages the publisher sent (and the empty message of a gone beacon),
// entities only for values really reported (by beacons the discovery gate admits), and forget()
// removing them from the broker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { haObjectId } from '../../src/mqtt/topics.js'
import type { Beacon } from '../../src/reading.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { publishReplay } from '../support/publish-replay.js'
import type { Received } from '../support/mqtt-subscriber.js'
import { discoveryProblems, gateAnnounced, jinjaAvailable, renderTemplates } from '../support/ha-schema.js'

const DEMO = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))
const TEST_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
/** A beacon entity of gateway `hall`: `<ha>/<component>/beaconkit_hall/<obj>_<field>/config`. */
const BEACON_CONFIG = /^ha-test\/(?:sensor|binary_sensor)\/beaconkit_hall\/(.+)_(temperature|light|battery|rssi|distance|accelerometer_count|moving)\/config$/

/** The Beacon member each entity shows, and whether a value is real. */
const FIELDS: Record<string, { member: keyof Beacon; real: (v: unknown) => boolean }> = {
  temperature: { member: 'temperature', real: (v) => typeof v === 'number' },
  light: { member: 'light', real: (v) => typeof v === 'number' },
  battery: { member: 'batteryLevel', real: (v) => typeof v === 'number' },
  rssi: { member: 'smoothedRssi', real: (v) => typeof v === 'number' },
  distance: { member: 'accuracy', real: (v) => typeof v === 'number' && v >= 0 },
  accelerometer_count: { member: 'accelerometerCount', real: (v) => typeof v === 'number' },
  moving: { member: 'moving', real: (v) => typeof v === 'boolean' },
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('Home Assistant discovery through Mosquitto'), () => {
  let broker: Mosquitto
  let states: Received[]
  let configs: Map<string, string>
  let all: Map<string, string>
  let publisher: MqttPublisher

  beforeAll(async () => {
    broker = await Mosquitto.start()
    const sub = await Subscriber.connect(broker.url, ['beaconkit/#', 'beaconkit-test/marker/#'])
    const source = new ReplaySource(DEMO, { virtual: true })
    const scanner = new BeaconScanner({ source, keys: [TEST_KEY] })
    publisher = new MqttPublisher({ url: broker.url, gatewayId: 'hall', homeAssistant: { prefix: 'ha-test' } })
    await publishReplay(scanner, publisher)
    await sub.sync()
    states = sub.messages.filter((m) => m.topic.startsWith('beaconkit/gateways/hall/beacons/'))
    await sub.close()
    all = new Map([...(await retainedMessages(broker.url, 'ha-test/#'))])
    // The beacons' entities (the gateway's own device has its tests in ha-gateway-device).
    configs = new Map([...all].filter(([topic]) => BEACON_CONFIG.test(topic)))
  }, 120_000)

  afterAll(async () => {
    await publisher?.close()
    await broker?.close()
  })

  it('publishes configs that follow HA discovery rules', () => {
    expect(configs.size).toBeGreaterThan(10)
    // Every retained config is a beacon entity of this gateway or one of its device's two.
    expect(all.size).toBe(configs.size + 2)
    for (const [topic, payload] of all) expect(discoveryProblems(topic, payload), topic).toEqual([])
  })

  it('groups every entity of a beacon into one device (via the gateway), feeds it from this gateway alone and expires gone beacons', () => {
    const byDevice = new Map<string, string[]>()
    const uniqueIds = new Set<string>()
    for (const [topic, payload] of configs) {
      const c = JSON.parse(payload) as { unique_id: string; state_topic: string; device: { identifiers: string[]; via_device: string }; availability: { topic: string }[]; expire_after: number }
      const [, obj, field] = BEACON_CONFIG.exec(topic) as RegExpExecArray
      expect(c.device.identifiers).toEqual([`beaconkit_${obj}`])
      expect(c.device.via_device).toBe('beaconkit_gw_hall')
      expect(c.unique_id).toBe(`beaconkit_hall_${obj}_${field}`)
      byDevice.set(obj, [...(byDevice.get(obj) ?? []), c.unique_id])
      uniqueIds.add(c.unique_id)
      // Fed by this gateway alone (was the `+` of every gateway): its own state topic and its own status.
      expect(c.state_topic).toMatch(/^beaconkit\/gateways\/hall\/beacons\/[^/+#]+$/)
      expect(haObjectId(c.state_topic.split('/').pop() as string)).toBe(obj)
      expect(c.availability).toEqual([expect.objectContaining({ topic: 'beaconkit/gateways/hall/status', payload_available: 'online', payload_not_available: 'offline' })])
      expect(c.expire_after).toBe(120)
    }
    expect(uniqueIds.size).toBe(configs.size)
    expect(byDevice.size).toBe(gateAnnounced(states.map((m) => m.payload)).size)
  })

  it('announces an entity only for a value the beacon reported with a real value', () => {
    // From the state that admitted the beacon (its dwell over) on: values reported before are announced only if reported again.
    const reported = new Map<string, Set<string>>()
    for (const m of states) {
      if (m.payload === '') continue
      const b = JSON.parse(m.payload) as Beacon
      if (!reported.has(haObjectId(b.id)) && !gateAnnounced([m.payload]).has(b.id)) continue
      const set = reported.get(haObjectId(b.id)) ?? new Set<string>()
      for (const [field, spec] of Object.entries(FIELDS)) if (spec.real(b[spec.member])) set.add(field)
      reported.set(haObjectId(b.id), set)
    }
    const announced = new Map<string, Set<string>>()
    for (const topic of configs.keys()) {
      const [, obj, field] = BEACON_CONFIG.exec(topic) as RegExpExecArray
      announced.set(obj, (announced.get(obj) ?? new Set()).add(field))
    }
    expect(announced).toEqual(reported)
    // The recording has beacons without sensors (iBeacon only) and with: not every entity everywhere.
    const sizes = [...announced.values()].map((s) => s.size)
    expect(Math.min(...sizes)).toBeLessThan(Math.max(...sizes))
  })

  it.skipIf(!jinjaAvailable())('has value templates that Jinja2 renders to the state values, and to None for the empty message', () => {
    const cases: { template: string; payload: string; expected: string }[] = []
    for (const [topic, payload] of configs) {
      const c = JSON.parse(payload) as { state_topic: string; value_template: string }
      const field = (BEACON_CONFIG.exec(topic) as RegExpExecArray)[2]
      const id = c.state_topic.split('/').pop() as string
      for (const m of states.filter((s) => s.topic.endsWith(`/beacons/${id}`))) {
        let expected = 'None'
        if (m.payload !== '') {
          const v = (JSON.parse(m.payload) as Beacon)[FIELDS[field].member]
          if (FIELDS[field].real(v)) expected = typeof v === 'boolean' ? (v ? 'ON' : 'OFF') : String(v)
        }
        cases.push({ template: c.value_template, payload: m.payload, expected })
      }
    }
    expect(cases.some((c) => c.payload === '')).toBe(true)
    const rendered = renderTemplates(cases)
    expect(rendered).toEqual(cases.map((c) => c.expected))
  })

  it('forget() removes a beacon\'s discovery configs from the broker (empty retained)', async () => {
    const topic = [...configs.keys()].find((t) => t.endsWith('_temperature/config')) as string
    const config = JSON.parse(configs.get(topic) as string) as { state_topic: string }
    const id = config.state_topic.split('/').pop() as string
    publisher.forget(id)
    expect(await publisher.flush(10_000)).toBe(true)
    const after = await retainedMessages(broker.url, 'ha-test/#')
    expect([...after.keys()].filter((t) => t.includes(`/beaconkit_hall/${haObjectId(id)}_`))).toEqual([])
    expect(after.size).toBeGreaterThan(2)
    expect(after.size).toBeLessThan(all.size)
  })
})
