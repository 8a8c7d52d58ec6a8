// Discovery configs an earlier run left on the broker (a run before the discovery gate, spoofed
// beacons and all): read once after the first connection, a config of a beacon known by its
// address alone removed at once, one of a stable id kept until it expires, anything that is not
// exactly our config left alone. The gateway publisher and the fleet tracker, on virtual clocks,
// against a real Mosquitto.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { VirtualClock } from '../../src/clock.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { haConfig, haConfigTopic } from '../../src/mqtt/ha-config.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { haRoomConfig, haRoomConfigTopic, haTrackerConfig, haTrackerConfigTopic, haValueConfig, haValueConfigTopic } from '../../src/fleet/home-assistant.js'
import { discoveryProblems } from '../support/ha-schema.js'
import { expectTrackerConfig } from '../fleet/ha-fleet-helpers.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { Site } from '../../src/positioning/site.js'
import { PushSource } from '../support/push-source.js'
import { waitFor } from '../integration/wait.js'
import { T0 } from '../sources/helpers.js'

const FOREIGN = { name: 'Kettle', unique_id: 'kettle_power', state_topic: 'kitchen/kettle' }

describe.skipIf(!MOSQUITTO)(needsMosquitto('Discovery configs of an earlier run, through Mosquitto'), () => {
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

  /** The retained messages under `filter` once `ready` holds of them. */
  const waitForRetained = async (filter: string, ready: (m: Map<string, string>) => boolean): Promise<Map<string, string>> => {
    const until = Date.now() + 20_000
    for (;;) {
      const last = await retainedMessages(broker.url, filter)
      if (ready(last) || Date.now() > until) return last
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  const seed = async (messages: [string, unknown][]): Promise<void> => {
    for (const [topic, payload] of messages) await raw.publishAsync(topic, JSON.stringify(payload), { qos: 1, retain: true })
  }

  it('a gateway keeps a stable beacon\'s configs until they expire and removes an address\'s at once', async () => {
    const settings = { prefix: 'hs', topicPrefix: 'beaconkit', gatewayId: 'hall', expireAfterSeconds: 120 }
    const kept = haConfigTopic(settings, '0117C5000009', 'temperature')
    const address = haConfigTopic(settings, 'c0:00:00:00:00:06', 'rssi')
    await seed([
      [kept, haConfig(settings, '0117C5000009', 'temperature')],
      [address, haConfig(settings, 'c0:00:00:00:00:06', 'rssi')],
      ['hs/sensor/kettle_power/config', FOREIGN],
      // Another gateway's config of the same beacon: not this gateway's to keep or remove.
      [haConfigTopic({ ...settings, gatewayId: 'yard' }, '0117C5000009', 'temperature'), haConfig({ ...settings, gatewayId: 'yard' }, '0117C5000009', 'temperature')],
    ])
    const clock = new VirtualClock(T0)
    const scanner = new BeaconScanner({ source: new PushSource(clock) })
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'hall', homeAssistant: { prefix: 'hs', expireMs: 600_000 } })
    publisher.attach(scanner)
    try {
      await publisher.connect()
      await waitFor(() => publisher.stats.homeAssistant?.announced === 1 && publisher.stats.homeAssistant.removed === 1, 'the sweep')
      expect(await publisher.flush()).toBe(true)
      const yard = 'hs/sensor/beaconkit_yard/0117c5000009_temperature/config'
      const device = ['hs/binary_sensor/beaconkit_gw_hall/connectivity/config', 'hs/sensor/beaconkit_gw_hall/beacons/config']
      expect([...(await retainedMessages(broker.url, 'hs/#')).keys()].sort()).toEqual(['hs/sensor/kettle_power/config', kept, yard, ...device].sort())
      clock.advanceTo(T0 + 660_000)
      await waitFor(() => publisher.stats.homeAssistant?.removed === 2, 'the expiry')
      expect(await publisher.flush()).toBe(true)
      expect([...(await retainedMessages(broker.url, 'hs/#')).keys()].sort()).toEqual(['hs/sensor/kettle_power/config', yard, ...device].sort())
    } finally {
      await publisher.close()
    }
  })

  it('the fleet does the same with its configs: a stable id\'s kept (written again as v2), an address\'s and a non-stable id\'s removed', async () => {
    const kept = haTrackerConfigTopic('hs2', '0117C5000019')
    await seed([
      [kept, haTrackerConfig('beaconkit', '0117C5000019')],
      [haTrackerConfigTopic('hs2', 'aa:bb:cc:dd:ee:ff'), haTrackerConfig('beaconkit', 'aa:bb:cc:dd:ee:ff')],
      [haRoomConfigTopic('hs2', 'Tag-9'), haRoomConfig('beaconkit', 'Tag-9')],
      ['hs2/device_tracker/kettle/config', FOREIGN],
      ['hs2/sensor/kettle_power/config', FOREIGN],
    ])
    const clock = new VirtualClock(T0)
    const tracker = new FleetTracker({ url: broker.url, clientId: 'sweep-fleet', clock, homeAssistant: { prefix: 'hs2', expireMs: 60_000 } })
    try {
      await tracker.start()
      await waitFor(() => tracker.stats.homeAssistant?.announced === 1 && tracker.stats.homeAssistant.removed === 2, 'the sweep')
      expect(await tracker.flush()).toBe(true)
      // Kept: its Room sensor goes with its device_tracker.
      const room = haRoomConfigTopic('hs2', '0117C5000019')
      expect([...(await retainedMessages(broker.url, 'hs2/#')).keys()].sort()).toEqual(['hs2/device_tracker/kettle/config', 'hs2/sensor/kettle_power/config', kept, room].sort())
      clock.advanceTo(T0 + 61_000)
      await waitFor(() => tracker.stats.homeAssistant?.removed === 3, 'the expiry')
      expect(await tracker.flush()).toBe(true)
      expect([...(await retainedMessages(broker.url, 'hs2/#')).keys()].sort()).toEqual(['hs2/device_tracker/kettle/config', 'hs2/sensor/kettle_power/config'])
    } finally {
      await tracker.stop()
    }
  })

  it('the fleet announces a kept config again, once, with a name learnt later', async () => {
    const id = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|7|1'
    const tracker = haTrackerConfigTopic('hs4', id)
    await seed([[tracker, haTrackerConfig('n4', id)]])
    const clock = new VirtualClock(T0)
    const site = Site.fromJSON({ gateways: { g1: {} }, beacons: [{ serialNumber: '0117C5000077', name: 'Kettle tag' }] })
    const fleet = new FleetTracker({ url: broker.url, clientId: 'sweep-fleet-named', topicPrefix: 'n4', site, clock, hearingMs: 3000, homeAssistant: { prefix: 'hs4' } })
    const written: string[] = []
    const live = await Subscriber.connect(broker.url, [tracker, 'beaconkit-test/marker/#'])
    try {
      await fleet.start()
      await waitFor(() => fleet.stats.homeAssistant?.announced === 1, 'the sweep')
      // Kept before its name is known: written again as "Beacon <id>".
      let configs = await waitForRetained('hs4/#', (m) => !(m.get(tracker) ?? '').includes('n4/fleet/beacons'))
      expectTrackerConfig(configs.get(tracker), 'n4', id)
      // Its gateway's state gives the serial number that names it; then it is heard.
      await raw.publishAsync(`n4/gateways/g1/beacons/${id}`, JSON.stringify({ id, serialNumber: '0117C5000077', inRange: true, firstSeen: T0, lastSeen: T0 }), { qos: 1, retain: true })
      await waitFor(() => fleet.stats.beaconStates.held === 1, 'the state held')
      for (let i = 0; i < 3; i++) {
        const batches = fleet.stats.batches
        await raw.publishAsync('n4/gateways/g1/rssi', JSON.stringify({ gateway: 'g1', time: clock.now(), readings: [{ id, rssi: -60, lastSeen: clock.now(), count: 1 }] }), { qos: 1 })
        await waitFor(() => fleet.stats.batches > batches, 'the batch')
        clock.advanceTo(clock.now() + 1000)
      }
      configs = await waitForRetained('hs4/#', (m) => (m.get(tracker) ?? '').includes('Kettle tag'))
      expectTrackerConfig(configs.get(tracker), 'n4', id, 'Kettle tag')
      expect(JSON.parse(configs.get(haRoomConfigTopic('hs4', id)) ?? '{}')).toMatchObject({ device: { name: 'Kettle tag' } })
      // Once: more refreshes do not write it again.
      for (let i = 0; i < 12; i++) clock.advanceTo(clock.now() + 1000)
      expect(await fleet.flush()).toBe(true)
      await live.sync()
      written.push(...live.messages.filter((m) => m.payload.includes('Kettle tag')).map((m) => m.topic))
      expect(written).toEqual([tracker])
    } finally {
      await live.close()
      await fleet.stop()
    }
  })

  it('the fleet replaces a legacy device_tracker config (state_topic) and a legacy gateway value config with its own', async () => {
    const id = '0117C5000021'
    const tracker = haTrackerConfigTopic('hs3', id)
    const temperature = haValueConfigTopic('hs3', id, 'temperature')
    await seed([
      // As versions before contract v2 wrote them: the fleet's tracker from the fleet state, the
      // gateway's value sensor from its own beacon state.
      [tracker, { name: 'Room', unique_id: 'beaconkit_0117c5000021_room', state_topic: `beaconkit/fleet/beacons/${id}`, value_template: '{{ value_json.room }}', payload_home: 'home', payload_not_home: 'not_home', source_type: 'bluetooth_le', device: { identifiers: ['beaconkit_0117c5000021'], name: `Beacon ${id}` }, origin: { name: 'beaconkit', sw_version: '0.1.0' } }],
      [temperature, { name: 'Temperature', unique_id: 'beaconkit_0117c5000021_temperature', state_topic: `beaconkit/gateways/hall/beacons/${id}`, value_template: '{{ value_json.temperature }}', device_class: 'temperature', unit_of_measurement: '°C', device: { identifiers: ['beaconkit_0117c5000021'], name: `Beacon ${id}` }, origin: { name: 'beaconkit', sw_version: '0.1.0' } }],
    ])
    const clock = new VirtualClock(T0)
    const fleet = new FleetTracker({ url: broker.url, clientId: 'sweep-fleet-legacy', clock, homeAssistant: { prefix: 'hs3' } })
    try {
      await fleet.start()
      await waitFor(() => fleet.stats.homeAssistant?.announced === 1, 'the sweep')
      const configs = await waitForRetained('hs3/#', (m) => !(m.get(tracker) ?? '').includes('state_topic') && !(m.get(temperature) ?? '').includes('/gateways/'))
      expectTrackerConfig(configs.get(tracker), 'beaconkit', id)
      expect(JSON.parse(configs.get(temperature) ?? '{}')).toMatchObject({ unique_id: 'beaconkit_0117c5000021_temperature', state_topic: `beaconkit/fleet/beacons/${id}`, value_template: haValueConfig('beaconkit', id, 'temperature').value_template })
      expect(discoveryProblems(temperature, configs.get(temperature) ?? '')).toEqual([])
      expect(configs.has(haRoomConfigTopic('hs3', id))).toBe(true)
    } finally {
      await fleet.stop()
    }
  })
})
