// Issue #23 item 7, the fleet's side: RSSI batches naming 2,000 spoofed beacons once each leave
// no config; a beacon heard past the dwell with a stable identity (isStableIdentity: a serial
// number here) is announced (its device_tracker and Room sensor), one known by a bare (random)
// address or by an id of another form never is; gone past the expiry, its configs are removed.
// A real Mosquitto, real time with short settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { discoveryProblems } from '../support/ha-schema.js'
import { expectTrackerConfig } from './ha-fleet-helpers.js'
import { waitFor } from '../integration/wait.js'

describe.skipIf(!MOSQUITTO)(needsMosquitto('FleetTracker Home Assistant discovery gate through Mosquitto'), () => {
  let broker: Mosquitto

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await broker?.close()
  })

  it('announces only a beacon heard past the dwell with a stable id, and removes its config after the expiry', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'fleet-gate-test', topicPrefix: 'g', goneTimeoutMs: 1500, hearingMs: 1000, homeAssistant: { prefix: 'hag', dwellMs: 2000, expireMs: 6000 } })
    const gone: string[] = []
    t.on('gone', (b) => gone.push(b.id))
    await t.start()
    const raw = await mqtt.connectAsync(broker.url, { clientId: 'fleet-gate-raw', reconnectPeriod: 0 })
    // Every config as it is published (reading thousands back as retained would hit the broker's queue limit).
    const live = await Subscriber.connect(broker.url, ['hag/#', 'beaconkit-test/marker/#'])
    try {
      // 2,000 spoofed ids, each in one batch only.
      for (let n = 0; n < 8; n++) {
        const at = Date.now()
        const readings = Array.from({ length: 250 }, (_, i) => ({ id: `SPOOF-${n * 250 + i}`, rssi: -70, lastSeen: at, count: 1 }))
        await raw.publishAsync('g/gateways/evil/rssi', JSON.stringify({ gateway: 'evil', time: at, readings }), { qos: 1 })
      }
      // A real tag (its serial number), a device known by its random address only and one by an
      // id of no stable form, heard for 3.5 s.
      const until = Date.now() + 3500
      while (Date.now() < until) {
        const at = Date.now()
        const readings = [{ id: '0117C50000A1', rssi: -60, lastSeen: at, count: 3 }, { id: 'd1:22:33:44:55:66', rssi: -60, lastSeen: at, count: 3 }, { id: 'Tag-1', rssi: -60, lastSeen: at, count: 3 }]
        await raw.publishAsync('g/gateways/k/rssi', JSON.stringify({ gateway: 'k', time: at, readings }), { qos: 1 })
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
      await waitFor(() => gone.length === 2003, 'every beacon gone', 20_000)
      expect(await t.flush()).toBe(true)
      await live.sync()
      const ours = ['hag/device_tracker/beaconkit_0117c50000a1/config', 'hag/sensor/beaconkit_0117c50000a1_room/config']
      expect(new Set(live.messages.filter((m) => m.topic.startsWith('hag/')).map((m) => m.topic))).toEqual(new Set(ours))
      const configs = await retainedMessages(broker.url, 'hag/#')
      expect([...configs.keys()].sort()).toEqual(ours)
      expectTrackerConfig(configs.get(ours[0]), 'g', '0117C50000A1')
      expect(discoveryProblems(ours[1], configs.get(ours[1]) ?? '')).toEqual([])
      expect(t.stats.homeAssistant).toMatchObject({ announced: 1, refused: 0 })

      await waitFor(() => t.stats.homeAssistant?.removed === 1, 'the expiry', 20_000)
      expect(await t.flush()).toBe(true)
      expect((await retainedMessages(broker.url, 'hag/#')).size).toBe(0)
    } finally {
      await live.close()
      await t.stop()
      await raw.endAsync()
    }
  }, 60_000)
})
