// Issue #35 item 12: the discovery dwell (30 s by default) guards Home Assistant against made-up
// ids; a beacon the site's `beacons` list names is vouched for by the user and is announced when
// first heard. Through a real Mosquitto; the test is the gateway, publishing RSSI batches by hand
// on the tracker's virtual clock.
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VirtualClock } from '../../src/clock.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { haTrackerConfigTopic } from '../../src/fleet/home-assistant.js'
import { Site } from '../../src/positioning/site.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'
import { expectTrackerConfig } from './ha-fleet-helpers.js'

const T0 = Date.UTC(2026, 10, 1)
/** Named in the site by its id. */
const NAMED = '0117C5000061'
/** Named in the site by its serial number, which its gateway state gives. */
const BY_SERIAL = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|6'
/** In no list. */
const OTHER = '0117C5000063'

describe.skipIf(!MOSQUITTO)(needsMosquitto('named beacons announced to Home Assistant without the dwell, through Mosquitto'), () => {
  let broker: Mosquitto
  let tracker: FleetTracker | undefined
  let gw: MqttClient | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await tracker?.stop()
    await gw?.endAsync()
    await broker?.close()
  })

  it('announces a beacon named by id or serial number within seconds, not after 30 s', async () => {
    const site = Site.fromJSON({ gateways: { g1: {} }, rooms: { Kitchen: ['g1'] }, beacons: [{ id: NAMED, name: 'Anna' }, { serialNumber: '0117C5000062', name: 'Bob' }] })
    const clock = new VirtualClock(T0)
    // The default Home Assistant dwell (30 s).
    const t = new FleetTracker({ url: broker.url, clientId: 'vouched-tracker', site, clock, goneTimeoutMs: 60_000, hearingMs: 3000, dwellMs: 1000, homeAssistant: true })
    tracker = t
    await t.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'vouched-gateway', reconnectPeriod: 0 })
    gw = client
    await client.publishAsync(`beaconkit/gateways/g1/beacons/${BY_SERIAL}`, JSON.stringify({ id: BY_SERIAL, inRange: true, firstSeen: T0, lastSeen: T0, serialNumber: '0117C5000062' }), { qos: 1, retain: true })
    await waitFor(() => t.stats.beaconStates.held === 1, 'the beacon state held', 20_000)
    let batches = 0
    const second = async (): Promise<void> => {
      const now = clock.now()
      const readings = [NAMED, BY_SERIAL, OTHER].map((id) => ({ id, rssi: -60, measuredPower: -59, lastSeen: now, count: 1 }))
      await client.publishAsync('beaconkit/gateways/g1/rssi', JSON.stringify({ gateway: 'g1', time: now, readings }), { qos: 1 })
      batches++
      await waitFor(() => t.stats.batches >= batches, `batch ${batches}`, 20_000)
      clock.advanceTo(now + 1000)
    }
    // Five seconds of hearing: present (the tracker's own 1 s dwell), far from the 30 s one.
    for (let i = 0; i < 5; i++) await second()
    await t.flush()
    expect(t.get(NAMED)?.name).toBe('Anna')
    const retained = await retainedMessages(broker.url, ['homeassistant/#'])
    expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', NAMED)), 'beaconkit', NAMED, 'Anna')
    expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', BY_SERIAL)), 'beaconkit', BY_SERIAL, 'Bob')
    // A list names only these: the other is never announced.
    expect(retained.has(haTrackerConfigTopic('homeassistant', OTHER))).toBe(false)
  })
})
