// Issue #35 item 9: after a broker restart without persistence Home Assistant lost the entities
// of beacons still in range: the retained discovery configs were gone and nobody sent them again.
// A gateway (--ha) and a fleet tracker (fleet --ha) now announce every config again on a
// connection whose session was not kept, republish their retained state, and do the same when
// Home Assistant announces itself (`homeassistant/status` `online`, its birth message), as
// zigbee2mqtt does. Judged from what a real Mosquitto, restarted on its port, retains.
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { VirtualClock } from '../../src/clock.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { haTrackerConfigTopic } from '../../src/fleet/home-assistant.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { Site } from '../../src/positioning/site.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { PushSource } from '../support/push-source.js'
import { waitFor } from '../integration/wait.js'
import { T0, vendorLine } from '../sources/helpers.js'
import { expectTrackerConfig } from '../fleet/ha-fleet-helpers.js'

const B = '0117C5000071'
const GW_CONFIG = `homeassistant/sensor/beaconkit_porch/${B.toLowerCase()}_temperature/config`
const GW_DEVICE = 'homeassistant/binary_sensor/beaconkit_gw_porch/connectivity/config'

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

/** Publishes Home Assistant's birth message, as Home Assistant does when it (re)starts. */
async function haBirth(url: string): Promise<void> {
  const ha = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  await ha.publishAsync('homeassistant/status', 'online', { qos: 1 })
  await ha.endAsync()
}

/** Polls what the broker retains until `topic` is there (a birth is answered asynchronously). */
async function untilRetained(url: string, filters: string[], topic: string, timeoutMs = 10_000): Promise<Map<string, string>> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const retained = await retainedMessages(url, filters)
    if (retained.has(topic) || Date.now() > end) return retained
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Empties a retained topic (a config Home Assistant lost). */
async function clear(url: string, topics: string[]): Promise<void> {
  const c = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  for (const topic of topics) await c.publishAsync(topic, '', { qos: 1, retain: true })
  await c.endAsync()
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('Home Assistant entities across a broker restart without persistence, through Mosquitto'), () => {
  let broker: Mosquitto

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await broker?.close()
  })

  it('a gateway with --ha announces its configs again after the restart and on Home Assistant\'s birth', async () => {
    const clock = new VirtualClock(T0)
    const source = new PushSource(clock)
    const scanner = new BeaconScanner({ source, goneTimeoutMs: 600_000 })
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'porch', homeAssistant: { dwellMs: 0 }, reconnect: { initialDelayMs: 100, maxDelayMs: 200 } })
    publisher.attach(scanner)
    const connected = new Promise((resolve) => publisher.once('connected', resolve))
    await publisher.connect()
    await connected
    await scanner.start()
    const hear = (ms: number): void => {
      clock.advanceTo(T0 + ms)
      source.emit('advertisement', adv(vendorLine(ms, 'aa:00:00:00:00:71', B, { temperature: 20 })))
    }
    for (let ms = 0; ms <= 2000; ms += 1000) hear(ms)
    expect(await publisher.flush(10_000)).toBe(true)
    let retained = await retainedMessages(broker.url, ['homeassistant/#', 'beaconkit/#'])
    expect(retained.has(GW_CONFIG)).toBe(true)

    // The broker restarts and has lost every retained message; the beacon is still in range.
    const connections = publisher.stats.connections
    await broker.restart()
    await waitFor(() => publisher.stats.connections > connections && publisher.stats.state === 'connected', 'the gateway reconnected', 20_000)
    hear(3000)
    expect(await publisher.flush(10_000)).toBe(true)
    retained = await retainedMessages(broker.url, ['homeassistant/#', 'beaconkit/#'])
    expect(retained.get(GW_CONFIG), 'the beacon entity after the restart').toBeDefined()
    expect(retained.has(GW_DEVICE)).toBe(true)
    expect(JSON.parse(retained.get('beaconkit/gateways/porch/status') ?? '{}')).toMatchObject({ state: 'online' })
    expect(JSON.parse(retained.get(`beaconkit/gateways/porch/beacons/${B}`) ?? '{}')).toMatchObject({ id: B, inRange: true })

    // Home Assistant lost its view (its configs cleared here) and says it is back: all again.
    await clear(broker.url, [GW_CONFIG, GW_DEVICE])
    await haBirth(broker.url)
    retained = await untilRetained(broker.url, ['homeassistant/#'], GW_CONFIG)
    expect(retained.get(GW_CONFIG), 'the beacon entity after the birth').toBeDefined()
    expect(retained.has(GW_DEVICE)).toBe(true)
    await scanner.stop()
    await publisher.close()
  }, 60_000)

  it('a fleet tracker with --ha republishes presence, state and configs after the restart and on the birth', async () => {
    const site = Site.fromJSON({ gateways: { g1: {} }, rooms: { Kitchen: ['g1'] } })
    const clock = new VirtualClock(T0)
    const tracker = new FleetTracker({ url: broker.url, clientId: 'restart-tracker', site, clock, goneTimeoutMs: 600_000, hearingMs: 3000, dwellMs: 1000, homeAssistant: { dwellMs: 0 }, reconnect: { initialDelayMs: 100, maxDelayMs: 200 } })
    await tracker.start()
    let gw: MqttClient | undefined
    try {
      gw = await mqtt.connectAsync(broker.url, { clientId: 'restart-gateway', reconnectPeriod: 100 })
      const client = gw
      let batches = 0
      const second = async (): Promise<void> => {
        const now = clock.now()
        await client.publishAsync('beaconkit/gateways/g1/rssi', JSON.stringify({ gateway: 'g1', time: now, readings: [{ id: B, rssi: -60, measuredPower: -59, lastSeen: now, count: 1 }] }), { qos: 1 })
        batches++
        await waitFor(() => tracker.stats.batches >= batches, `batch ${batches}`, 20_000)
        clock.advanceTo(now + 1000)
      }
      for (let i = 0; i < 4; i++) await second()
      await tracker.flush()
      const topics = [haTrackerConfigTopic('homeassistant', B), `beaconkit/fleet/presence/${B}`, `beaconkit/fleet/beacons/${B}`, 'beaconkit/fleet/status']
      let retained = await retainedMessages(broker.url, ['homeassistant/#', 'beaconkit/#'])
      for (const topic of topics) expect(retained.has(topic), topic).toBe(true)

      let reconnected = false
      tracker.once('connected', () => (reconnected = true))
      await broker.restart()
      await waitFor(() => reconnected, 'the tracker reconnected', 20_000)
      await waitFor(() => client.connected, 'the gateway reconnected', 20_000)
      await tracker.flush()
      retained = await retainedMessages(broker.url, ['homeassistant/#', 'beaconkit/#'])
      for (const topic of topics) expect(retained.has(topic), `${topic} after the restart`).toBe(true)
      expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', B)), 'beaconkit', B)
      expect(JSON.parse(retained.get(`beaconkit/fleet/presence/${B}`) ?? '{}')).toMatchObject({ id: B, present: true, room: 'Kitchen' })

      await clear(broker.url, [haTrackerConfigTopic('homeassistant', B)])
      await haBirth(broker.url)
      retained = await untilRetained(broker.url, ['homeassistant/#'], haTrackerConfigTopic('homeassistant', B))
      expect(retained.has(haTrackerConfigTopic('homeassistant', B)), 'the tracker entity after the birth').toBe(true)
    } finally {
      await gw?.endAsync()
      await tracker.stop()
    }
  }, 60_000)
})
