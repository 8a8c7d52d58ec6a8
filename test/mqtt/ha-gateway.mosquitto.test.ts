// Home Assistant on gateways (issue #24, contract 1 and 2), judged by what HA would show
// (test/support/ha-judge.ts, templates rendered by real Jinja2) from what a real Mosquitto
// delivers: two standalone gateways hearing one beacon have two entities, each fed by its own
// gateway only; a gateway that stops makes only its own entities unavailable; each gateway's
// device shows connectivity on/off (a clean close, and the will of a killed client) and the
// beacons in range; a fleet tracker on the broker (retained at start, or arriving mid-run)
// leaves only the gateway device, and legacy shared configs are removed only standalone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { VirtualClock } from '../../src/clock.js'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { HA_BEACONS_TEMPLATE, HA_CONNECTIVITY_TEMPLATE } from '../../src/mqtt/ha-gateway-device.js'
import { haLegacyConfigTopic } from '../../src/mqtt/ha-config.js'
import { HA_ORIGIN, haFieldTemplate } from '../../src/mqtt/ha-fields.js'
import { statusPayload } from '../../src/mqtt/payloads.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { discoveryProblems, jinjaAvailable, renderTemplatesSafe } from '../support/ha-schema.js'
import { HaJudge } from '../support/ha-judge.js'
import { PushSource } from '../support/push-source.js'
import { waitFor } from '../integration/wait.js'
import { T0, vendorLine } from '../sources/helpers.js'

const JINJA = jinjaAvailable()
const SKIP = JINJA ? '' : ' [skipped: /usr/bin/python3 lacks jinja2 (apt-get install -y python3-jinja2)]'
const B1 = '0117C5000031'
const B2 = '0117C5000032'
const obj = (id: string): string => id.toLowerCase()

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

/** A gateway on the shared virtual clock: its own source, scanner and publisher. */
interface Gateway {
  source: PushSource
  scanner: BeaconScanner
  publisher: MqttPublisher
}

async function startGateway(url: string, id: string, clock: VirtualClock, ha: Record<string, unknown>, client?: MqttClient): Promise<Gateway> {
  const source = new PushSource(clock)
  const scanner = new BeaconScanner({ source, goneTimeoutMs: 30_000 })
  const publisher = new MqttPublisher({ ...(client === undefined ? { url } : { client }), gatewayId: id, homeAssistant: ha })
  publisher.attach(scanner)
  const connected = new Promise((resolve) => publisher.once('connected', resolve))
  await publisher.connect()
  if (client === undefined) await connected
  await scanner.start()
  return { source, scanner, publisher }
}

describe.skipIf(!JINJA)(`The gateway device's templates through Jinja2${SKIP}`, () => {
  it('connectivity is ON only for an online status; beacons in range is the number, else None', () => {
    // The last two: a foreign node's status, which names its bridge (`via`): read as any other.
    const via = { via: 'fleet-inputs' }
    const payloads = [statusPayload('online', T0, 3), statusPayload('online', T0), statusPayload('offline', T0), '', 'garbage', '{"state":"online","beacons":true}', '{"beacons":"7"}', statusPayload('online', T0, 2, via), statusPayload('offline', T0, undefined, via)]
    const rendered = renderTemplatesSafe(payloads.flatMap((payload) => [{ template: HA_CONNECTIVITY_TEMPLATE, payload }, { template: HA_BEACONS_TEMPLATE, payload }]))
    expect(rendered).toEqual([
      { ok: 'ON' }, { ok: '3' },
      { ok: 'ON' }, { ok: 'None' },
      { ok: 'OFF' }, { ok: 'None' },
      { ok: 'OFF' }, { ok: 'None' },
      { ok: 'OFF' }, { ok: 'None' },
      { ok: 'ON' }, { ok: 'None' },
      { ok: 'OFF' }, { ok: 'None' },
      { ok: 'ON' }, { ok: '2' },
      { ok: 'OFF' }, { ok: 'None' },
    ])
  })
})

describe.skipIf(!MOSQUITTO || !JINJA)(needsMosquitto(`Two standalone gateways and their devices, judged as Home Assistant shows them, through Mosquitto${SKIP}`), () => {
  const HA = 'ha-gw'
  let broker: Mosquitto
  let sub: Subscriber
  let killable: MqttClient
  const clock = new VirtualClock(T0)
  const judge = new HaJudge({ discoveryPrefix: HA })
  const gateways = new Map<string, Gateway>()
  let t = 0
  let read = 0

  /** Virtual time to T0 + `until`; each gateway in `hearing` hears the beacons listed for it once a second. */
  const run = (until: number, hearing: Record<string, string[]>): void => {
    for (; t < until; t += 1000) {
      clock.advanceTo(T0 + t)
      for (const [gw, ids] of Object.entries(hearing)) {
        for (const id of ids) gateways.get(gw)?.source.emit('advertisement', adv(vendorLine(t, `aa:00:00:00:00:${id.slice(-2)}`, id, { temperature: gw === 'hall' ? 21 : 24, rssi: gw === 'hall' ? -55 : -80 })))
      }
    }
    clock.advanceTo(T0 + t)
  }

  /** Everything delivered so far handed to the judge at the current time. */
  const step = async (): Promise<void> => {
    for (const g of gateways.values()) await g.publisher.flush(30_000)
    await sub.sync()
    const batch = sub.messages.slice(read).filter((m) => !m.topic.startsWith('beaconkit-test/'))
    read = sub.messages.length
    judge.receive(batch.map((m) => ({ topic: m.topic, payload: m.payload, retain: m.retain })), T0 + t)
  }

  const show = (gw: string, id: string, field: string): string | undefined => judge.show(`beaconkit_${gw}_${obj(id)}_${field}`)
  const device = (gw: string, entity: 'connectivity' | 'beacons'): string | undefined => judge.show(`beaconkit_gw_${gw}_${entity}`)

  beforeAll(async () => {
    broker = await Mosquitto.start()
    sub = await Subscriber.connect(broker.url, ['beaconkit/#', `${HA}/#`, 'beaconkit-test/marker/#'], { protocolVersion: 5 })
    // The hall publishes through a client of ours, so the test can kill its socket (the broker then sends its will).
    killable = await mqtt.connectAsync(broker.url, {
      clientId: 'ha-gw-hall',
      reconnectPeriod: 0,
      will: { topic: 'beaconkit/gateways/hall/status', payload: Buffer.from(statusPayload('offline', T0)), qos: 1, retain: true },
    })
    gateways.set('hall', await startGateway(broker.url, 'hall', clock, { prefix: HA }, killable))
    gateways.set('yard', await startGateway(broker.url, 'yard', clock, { prefix: HA }))
    // Both standalone: no fleet on this broker.
    run(60_000, { hall: [B1, B2], yard: [B1] })
    await step()
  }, 60_000)

  afterAll(async () => {
    await sub?.close()
    for (const g of gateways.values()) {
      await g.scanner.stop()
      await g.publisher.close(1000)
    }
    killable?.end(true)
    await broker?.close()
  })

  it('gives each gateway its own entity of one beacon, fed by that gateway only', async () => {
    expect(show('hall', B1, 'temperature')).toBe('21')
    expect(show('yard', B1, 'temperature')).toBe('24')
    expect(show('hall', B1, 'rssi')).toBe('-55')
    expect(show('yard', B1, 'rssi')).toBe('-80')
    const configs = await retainedMessages(broker.url, `${HA}/#`)
    for (const [topic, payload] of configs) expect(discoveryProblems(topic, payload), topic).toEqual([])
    for (const gw of ['hall', 'yard']) {
      const c = JSON.parse(configs.get(`${HA}/sensor/beaconkit_${gw}/${obj(B1)}_temperature/config`) as string) as Record<string, unknown>
      expect(c).toMatchObject({ unique_id: `beaconkit_${gw}_${obj(B1)}_temperature`, state_topic: `beaconkit/gateways/${gw}/beacons/${B1}`, availability: [{ topic: `beaconkit/gateways/${gw}/status` }], device: { identifiers: [`beaconkit_${obj(B1)}`], via_device: `beaconkit_gw_${gw}` } })
    }
    // The yard never heard B2: no entity of it there.
    expect(configs.has(`${HA}/sensor/beaconkit_yard/${obj(B2)}_temperature/config`)).toBe(false)
  })

  it("shows each gateway's connectivity on and its beacons in range", () => {
    expect(device('hall', 'connectivity')).toBe('on')
    expect(device('yard', 'connectivity')).toBe('on')
    expect(device('hall', 'beacons')).toBe('2')
    expect(device('yard', 'beacons')).toBe('1')
  })

  it('follows the count of beacons in range, republishing the status at most every 5 s', async () => {
    // B2 leaves the hall: gone after 30 s, the count drops to 1 within 5 s more.
    run(100_000, { hall: [B1], yard: [B1] })
    await step()
    expect(device('hall', 'beacons')).toBe('1')
    const online = sub.messages.filter((m) => m.topic === 'beaconkit/gateways/hall/status' && m.payload.includes('"online"')).map((m) => JSON.parse(m.payload) as { time: number; beacons: number })
    expect(online.map((s) => s.beacons)).toContain(2)
    for (let i = 1; i < online.length; i++) expect(online[i].time - online[i - 1].time).toBeGreaterThanOrEqual(5000)
  })

  it("a gateway that stops makes only its own entities unavailable, and its connectivity off", async () => {
    const yard = gateways.get('yard') as Gateway
    await yard.scanner.stop()
    await yard.publisher.close()
    gateways.delete('yard')
    run(110_000, { hall: [B1] })
    await step()
    expect(show('yard', B1, 'temperature')).toBe('unavailable')
    expect(device('yard', 'connectivity')).toBe('off')
    expect(device('yard', 'beacons')).toBe('unavailable')
    expect(show('hall', B1, 'temperature')).toBe('21')
    expect(device('hall', 'connectivity')).toBe('on')
  })

  it("a killed gateway's will turns its connectivity off", async () => {
    ;(killable as unknown as { stream: { destroy(): void } }).stream.destroy()
    await sub.until((m) => m.some((x) => x.topic === 'beaconkit/gateways/hall/status' && x.payload.includes('"offline"')), "the hall's will")
    gateways.delete('hall')
    await step()
    expect(device('hall', 'connectivity')).toBe('off')
    expect(show('hall', B1, 'temperature')).toBe('unavailable')
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('A gateway and a fleet tracker on one broker (homeAssistant.beacons auto), through Mosquitto'), () => {
  let broker: Mosquitto
  let raw: MqttClient

  beforeAll(async () => {
    broker = await Mosquitto.start()
    raw = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 })
  })

  afterAll(async () => {
    await raw?.endAsync()
    await broker?.close()
  })

  /** A config as gateways before #24 wrote it: shared by all, fed through `+`. */
  const legacy = (ha: string, id: string): [string, string] => [
    haLegacyConfigTopic(ha, id, 'temperature'),
    JSON.stringify({ name: 'Temperature', unique_id: `beaconkit_${obj(id)}_temperature`, state_topic: `beaconkit/gateways/+/beacons/${id}`, value_template: haFieldTemplate('temperature'), device: { identifiers: [`beaconkit_${obj(id)}`] }, origin: HA_ORIGIN }),
  ]

  const hear = (g: Gateway, clock: VirtualClock, from: number, to: number, ids: string[]): void => {
    for (let ms = from; ms < to; ms += 1000) {
      clock.advanceTo(T0 + ms)
      for (const id of ids) g.source.emit('advertisement', adv(vendorLine(ms, `aa:00:00:00:00:${id.slice(-2)}`, id)))
    }
    clock.advanceTo(T0 + to)
  }

  it('with a retained fleet status, announces its device only, no beacon entity, and leaves the legacy configs', async () => {
    const ha = 'ha-fleet-at-start'
    const [legacyTopic, legacyConfig] = legacy(ha, B1)
    await raw.publishAsync(legacyTopic, legacyConfig, { qos: 1, retain: true })
    await raw.publishAsync('beaconkit/fleet/status', statusPayload('offline', T0), { qos: 1, retain: true })
    const clock = new VirtualClock(T0)
    const g = await startGateway(broker.url, 'hall', clock, { prefix: ha })
    try {
      await waitFor(() => g.publisher.stats.homeAssistant?.mode === 'fleet', 'the fleet status')
      hear(g, clock, 0, 60_000, [B1])
      // Past the sweep window: a standalone gateway would have removed the legacy config by now.
      await new Promise((resolve) => setTimeout(resolve, 2500))
      expect(await g.publisher.flush()).toBe(true)
      const configs = await retainedMessages(broker.url, `${ha}/#`)
      expect([...configs.keys()].sort()).toEqual([`${ha}/binary_sensor/beaconkit_gw_hall/connectivity/config`, `${ha}/sensor/beaconkit_gw_hall/beacons/config`, legacyTopic].sort())
      expect(g.publisher.stats.homeAssistant).toMatchObject({ beacons: 'auto', mode: 'fleet', announced: 0, legacyRemoved: 0 })
    } finally {
      await g.scanner.stop()
      await g.publisher.close()
      await raw.publishAsync('beaconkit/fleet/status', '', { qos: 1, retain: true })
    }
  })

  it('standalone, removes the legacy configs; a fleet status arriving mid-run removes the beacon configs it announced and no more are announced', async () => {
    const ha = 'ha-fleet-mid-run'
    const [legacyTopic, legacyConfig] = legacy(ha, B1)
    await raw.publishAsync(legacyTopic, legacyConfig, { qos: 1, retain: true })
    const clock = new VirtualClock(T0)
    const g = await startGateway(broker.url, 'hall', clock, { prefix: ha })
    try {
      await waitFor(() => g.publisher.stats.homeAssistant?.legacyRemoved === 1, 'the sweep')
      // Neither an empty nor an invalid message is a fleet.
      await raw.publishAsync('beaconkit/fleet/trackers/t1', 'not json', { qos: 1 })
      await raw.publishAsync('beaconkit/fleet/status', '{"state":"sleeping"}', { qos: 1 })
      hear(g, clock, 0, 60_000, [B1])
      expect(await g.publisher.flush()).toBe(true)
      const before = [...(await retainedMessages(broker.url, `${ha}/#`)).keys()]
      expect(before.filter((t) => t.includes('/beaconkit_hall/')).length).toBeGreaterThan(0)
      expect(before).not.toContain(legacyTopic)
      expect(g.publisher.stats.homeAssistant).toMatchObject({ mode: 'standalone', announced: 1 })
      // A scale-out tracker's status, live.
      await raw.publishAsync('beaconkit/fleet/trackers/t1', JSON.stringify({ state: 'online', time: T0, version: '0', partitions: 2 }), { qos: 1 })
      await waitFor(() => g.publisher.stats.homeAssistant?.mode === 'fleet', 'the fleet tracker')
      // B2 passes its dwell afterwards: announced nowhere.
      hear(g, clock, 60_000, 120_000, [B1, B2])
      expect(await g.publisher.flush()).toBe(true)
      const after = [...(await retainedMessages(broker.url, `${ha}/#`)).keys()].sort()
      expect(after).toEqual([`${ha}/binary_sensor/beaconkit_gw_hall/connectivity/config`, `${ha}/sensor/beaconkit_gw_hall/beacons/config`])
      expect(g.publisher.stats.homeAssistant).toMatchObject({ mode: 'fleet', announced: 0, withdrawn: before.length - 2 })
    } finally {
      await g.scanner.stop()
      await g.publisher.close()
    }
  })

  it('homeAssistant.beacons true keeps announcing beacons with a fleet on the broker', async () => {
    const ha = 'ha-forced'
    await raw.publishAsync('beaconkit/fleet/status', statusPayload('online', T0), { qos: 1, retain: true })
    const clock = new VirtualClock(T0)
    const g = await startGateway(broker.url, 'hall', clock, { prefix: ha, beacons: true })
    try {
      hear(g, clock, 0, 60_000, [B1])
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(await g.publisher.flush()).toBe(true)
      expect((await retainedMessages(broker.url, `${ha}/#`)).has(`${ha}/sensor/beaconkit_hall/${obj(B1)}_temperature/config`)).toBe(true)
      expect(g.publisher.stats.homeAssistant).toMatchObject({ beacons: true, mode: 'standalone', announced: 1 })
    } finally {
      await g.scanner.stop()
      await g.publisher.close()
      await raw.publishAsync('beaconkit/fleet/status', '', { qos: 1, retain: true })
    }
  })
})
