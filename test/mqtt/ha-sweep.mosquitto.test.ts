// Discovery configs an earlier run left on the broker (a run before the discovery gate, spoofed
// beacons and all): read once after the first connection, a config of a beacon known by its
// address alone removed at once, one of a stable id kept until it expires, anything that is not
// exactly our config left alone. The gateway publisher and the fleet tracker, on virtual clocks,
// against a real Mosquitto.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { VirtualClock } from '../../src/clock.js'
import { BeaconScanner } from '../../src/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { haConfig, haConfigTopic } from '../../src/mqtt/home-assistant.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { haTrackerConfig, haTrackerConfigTopic } from '../../src/fleet/home-assistant.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
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

  it('the fleet does the same with its device_tracker configs', async () => {
    const kept = haTrackerConfigTopic('hs2', 'Tag-9')
    await seed([
      [kept, haTrackerConfig('beaconkit', 'Tag-9')],
      [haTrackerConfigTopic('hs2', 'aa:bb:cc:dd:ee:ff'), haTrackerConfig('beaconkit', 'aa:bb:cc:dd:ee:ff')],
      ['hs2/device_tracker/kettle/config', FOREIGN],
    ])
    const clock = new VirtualClock(T0)
    const tracker = new FleetTracker({ url: broker.url, clientId: 'sweep-fleet', clock, homeAssistant: { prefix: 'hs2', expireMs: 60_000 } })
    try {
      await tracker.start()
      await waitFor(() => tracker.stats.homeAssistant?.announced === 1 && tracker.stats.homeAssistant.removed === 1, 'the sweep')
      expect(await tracker.flush()).toBe(true)
      expect([...(await retainedMessages(broker.url, 'hs2/#')).keys()].sort()).toEqual(['hs2/device_tracker/kettle/config', kept].sort())
      clock.advanceTo(T0 + 61_000)
      await waitFor(() => tracker.stats.homeAssistant?.removed === 2, 'the expiry')
      expect(await tracker.flush()).toBe(true)
      expect([...(await retainedMessages(broker.url, 'hs2/#')).keys()]).toEqual(['hs2/device_tracker/kettle/config'])
    } finally {
      await tracker.stop()
    }
  })
})
