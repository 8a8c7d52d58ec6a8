// The fleet tracker positions beacons by itself when its site places the gateways: RSSI batches
// generated from a known spot with the engine's default physics go through a real Mosquitto,
// and the retained `<p>/fleet/beacons/<id>` carries a position near that spot. `positioning:
// false` turns it off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { Site } from '../../src/positioning/site.js'
import { DEFAULT_PATH_LOSS, rssiAt } from '../../src/positioning/path-loss.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { Subscriber } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'

const GATEWAYS = { nw: { x: 0, y: 10, z: 2.5 }, ne: { x: 12, y: 10, z: 2.5 }, sw: { x: 0, y: 0, z: 2.5 }, se: { x: 12, y: 0, z: 2.5 } }
const TRUTH = { x: 4, y: 6 }
/** The height the default radio map assumes for a tag. */
const TAG_HEIGHT = 1.2

describe.skipIf(!MOSQUITTO)(needsMosquitto('FleetTracker positions through Mosquitto'), () => {
  let broker: Mosquitto
  let raw: MqttClient
  const trackers: FleetTracker[] = []
  let pusher: NodeJS.Timeout | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
    raw = await mqtt.connectAsync(broker.url, { clientId: 'fleet-pos-raw', reconnectPeriod: 0 })
  })

  afterAll(async () => {
    if (pusher !== undefined) clearInterval(pusher)
    for (const t of trackers) await t.stop()
    await raw?.endAsync()
    await broker?.close()
  })

  /** Every gateway's batch every 250 ms: the RSSI of the default physics at TRUTH, ±2 dB of fixed jitter. */
  function pushBatches(prefixes: string[]): void {
    let n = 0
    pusher = setInterval(() => {
      const now = Date.now()
      n++
      for (const [id, g] of Object.entries(GATEWAYS)) {
        const d = Math.hypot(g.x - TRUTH.x, g.y - TRUTH.y, g.z - TAG_HEIGHT)
        const jitter = ((n * 7 + id.charCodeAt(1)) % 5) - 2
        const rssi = Math.round(rssiAt(DEFAULT_PATH_LOSS, d)) + jitter
        const batch = { gateway: id, time: now, readings: [{ id: 'tag-1', rssi, lastSeen: now, count: 2 }] }
        for (const p of prefixes) raw.publish(`${p}/gateways/${id}/rssi`, JSON.stringify(batch), { qos: 0 })
      }
    }, 250)
  }

  it('publishes position {x, y, accuracy} near the truth; positioning: false publishes none', async () => {
    const site = Site.fromJSON({ gateways: GATEWAYS, area: { minX: 0, minY: 0, maxX: 12, maxY: 10 } })
    const on = new FleetTracker({ url: broker.url, clientId: 'fleet-pos-on', topicPrefix: 'pos', site, publishIntervalMs: 500 })
    const off = new FleetTracker({ url: broker.url, clientId: 'fleet-pos-off', topicPrefix: 'nopos', site, publishIntervalMs: 500, positioning: false })
    trackers.push(on, off)
    await Promise.all([on.start(), off.start()])
    const fleet = await Subscriber.connect(broker.url, ['pos/fleet/beacons/#', 'nopos/fleet/beacons/#', 'beaconkit-test/marker/#'])
    pushBatches(['pos', 'nopos'])

    const near = (m: { topic: string; payload: string }): boolean => {
      if (m.topic !== 'pos/fleet/beacons/tag-1' || m.payload === '') return false
      const p = (JSON.parse(m.payload) as FleetBeacon).position
      return p !== undefined && Math.hypot(p.x - TRUTH.x, p.y - TRUTH.y) < 1
    }
    await fleet.until((ms) => ms.some(near), 'a published position within 1 m of the truth', 30_000)
    const published = JSON.parse(fleet.messages.filter(near).at(-1)?.payload ?? '{}') as FleetBeacon
    expect(Object.keys(published.position ?? {}).sort()).toEqual(['accuracy', 'x', 'y'])
    // Four gateways 5–8 m away, each trusted to ~7 dB: a metre or two of honest spread.
    expect(published.position?.accuracy).toBeGreaterThan(0.3)
    expect(published.position?.accuracy).toBeLessThan(4)
    expect(on.get('tag-1')?.position).toBeDefined()

    await waitFor(() => off.get('tag-1')?.gateways.length === 4, 'the other tracker hears all four gateways', 20_000)
    expect(off.get('tag-1')?.position).toBeUndefined()
    await fleet.sync()
    const offMessages = fleet.on('nopos/fleet/beacons/tag-1').filter((m) => m.payload !== '')
    expect(offMessages.length).toBeGreaterThan(0)
    expect(offMessages.every((m) => (JSON.parse(m.payload) as FleetBeacon).position === undefined)).toBe(true)
    await fleet.close()
  }, 90_000)
})
