// What an anonymous client of a real Mosquitto can do to a FleetTracker, and cannot any more:
// flooding fake beacon ids under unknown gateway ids does not keep out a real beacon a site
// gateway hears (the weakest is evicted, with a gone and its retained state cleared); an
// oversized batch is never parsed (over the announced MQTT 5 maximum packet size the broker
// does not even deliver it) and a batch's readings are capped; retained `present` states nobody
// confirms within the gone timeout of a start are cleared, but not those of another live
// tracker's partitions (scale-out).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { partitionsOf } from '../../src/fleet/partitions.js'
import { rssiPartition } from '../../src/mqtt/partition.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'

const SERIAL = '0117C5456A36'
const site = Site.fromJSON({ gateways: { 'hall-pi': { x: 1, y: 1 } }, rooms: { Hall: ['hall-pi'] } })

function batch(gateway: string, ids: string[], idPad = ''): string {
  const now = Date.now()
  return JSON.stringify({ gateway, time: now, readings: ids.map((id) => ({ id: `${id}${idPad}`, rssi: -60, lastSeen: now, count: 1 })) })
}

function state(id: string, lastSeen: number): string {
  return JSON.stringify({ id, time: lastSeen, present: true, gateways: [{ gateway: 'gone-pi', rssi: -70, lastSeen }], firstSeen: lastSeen - 1000, lastSeen })
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('FleetTracker limits against hostile publishers on Mosquitto'), () => {
  let broker: Mosquitto
  let client: MqttClient
  const trackers: FleetTracker[] = []
  let pusher: NodeJS.Timeout | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
    client = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 })
  })

  afterEach(async () => {
    if (pusher !== undefined) clearInterval(pusher)
    pusher = undefined
    for (const t of trackers.splice(0)) await t.stop(1000)
  })

  afterAll(async () => {
    await client?.endAsync()
    await broker?.close()
  })

  async function tracker(options: Omit<ConstructorParameters<typeof FleetTracker>[0], 'url'>): Promise<FleetTracker> {
    const t = new FleetTracker({ url: broker.url, publishIntervalMs: 60_000, ...options })
    trackers.push(t)
    await t.start()
    return t
  }

  it('a flood of fake ids under unknown gateway ids does not keep out a beacon a site gateway hears', async () => {
    const t = await tracker({ topicPrefix: 'flood', site, maxBeacons: 40, maxBeaconsPerGateway: 10, goneTimeoutMs: 60_000 })
    const gone: string[] = []
    t.on('gone', (b) => gone.push(b.id))
    for (let g = 0; g < 10; g++) {
      const fakes = Array.from({ length: 25 }, (_, i) => `fake-${g}-${i}`)
      await client.publishAsync(`flood/gateways/stranger-${g}/rssi`, batch(`stranger-${g}`, fakes), { qos: 1 })
    }
    await waitFor(() => t.stats.batches === 10, 'the flood read')
    expect(t.beacons()).toHaveLength(40)

    await client.publishAsync('flood/gateways/hall-pi/rssi', batch('hall-pi', [SERIAL]), { qos: 1 })
    await waitFor(() => t.get(SERIAL) !== undefined, 'the real beacon admitted')
    // Four strangers filled the table up to their quota of 10 (15 more each refused), the other six found it full.
    expect(t.stats.refusedBeacons).toBe(60)
    expect(t.stats.droppedBeacons).toBe(150)
    expect(t.stats.evictedBeacons).toBe(1)
    expect(gone).toHaveLength(1)
    expect(await t.flush()).toBe(true)
    const retained = await retainedMessages(broker.url, 'flood/fleet/beacons/+')
    // Evicted like a beacon that went: its retained state is cleared.
    expect(retained.has(`flood/fleet/beacons/${gone[0]}`)).toBe(false)
    expect(retained.has(`flood/fleet/beacons/${SERIAL}`)).toBe(true)
    expect(retained.size).toBe(40)
  })

  it('never parses a batch over maxPayloadBytes (the broker keeps back one over the packet size) and caps readings', async () => {
    const t = await tracker({ topicPrefix: 'caps', maxPayloadBytes: 64 * 1024, maxBatchReadings: 100 })
    let disconnects = 0
    t.on('disconnected', () => disconnects++)
    const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i}`)
    // ~100 KB: over maxPayloadBytes, under the announced maximum packet size (+128 KiB): arrives, skipped.
    const over = batch('big', ids('over', 1500), '-padding-padding')
    expect(over.length).toBeGreaterThan(64 * 1024)
    expect(over.length).toBeLessThan(192 * 1024)
    await client.publishAsync('caps/gateways/big/rssi', over, { qos: 1 })
    await waitFor(() => t.stats.oversized === 1, 'the oversized batch counted')
    // ~400 KB: over the maximum packet size the tracker announced: Mosquitto does not send it.
    const huge = batch('big', ids('huge', 6000), '-padding-padding')
    expect(huge.length).toBeGreaterThan(192 * 1024 + 1024)
    await client.publishAsync('caps/gateways/big/rssi', huge, { qos: 1 })
    await client.publishAsync('caps/gateways/small/rssi', batch('small', ids('many', 300)), { qos: 1 })
    await waitFor(() => t.get('many-0') !== undefined, 'the batch after the huge one')
    expect(t.stats.oversized).toBe(1)
    expect(disconnects).toBe(0)
    expect(t.beacons().some((b) => b.id.startsWith('over') || b.id.startsWith('huge'))).toBe(false)
    // The readings cap: the first 100 readings of the batch, the rest counted.
    expect(t.beacons()).toHaveLength(100)
    expect(t.stats.skippedReadings).toBe(200)
  })

  it('clears retained present states no gateway confirms within the gone timeout of a start, keeps one still heard', async () => {
    const old = Date.now() - 3_600_000
    for (let i = 0; i < 5; i++) await client.publishAsync(`ghosts/fleet/beacons/ghost-${i}`, state(`ghost-${i}`, old), { qos: 1, retain: true })
    await client.publishAsync('ghosts/fleet/beacons/alive', state('alive', old), { qos: 1, retain: true })
    const hear = (): void => void client.publishAsync('ghosts/gateways/gw/rssi', batch('gw', ['alive']), { qos: 0 })
    hear()
    pusher = setInterval(hear, 300)
    const t = await tracker({ topicPrefix: 'ghosts', goneTimeoutMs: 2000, hearingMs: 1000 })
    // Generous bound: the gone timeout (2 s) plus ticks on a loaded machine.
    await waitFor(() => t.stats.ghostsCleared === 5, 'the ghosts cleared', 15_000)
    expect(await t.flush()).toBe(true)
    const retained = await retainedMessages(broker.url, 'ghosts/fleet/beacons/+')
    expect([...retained.keys()]).toEqual(['ghosts/fleet/beacons/alive'])
    expect(JSON.parse(retained.get('ghosts/fleet/beacons/alive') as string)).toMatchObject({ id: 'alive', present: true })
  })

  it('scale-out: clears the ghosts of its own partitions, leaves those of a live peer', async () => {
    const P = 4
    const mine = new Set(partitionsOf('a', ['a', 'b'], P))
    const ours: string[] = []
    const theirs: string[] = []
    for (let i = 0; ours.length < 3 || theirs.length < 2; i++) {
      const id = `so-ghost-${i}`
      if (mine.has(rssiPartition(id, P))) {
        if (ours.length < 3) ours.push(id)
      } else if (theirs.length < 2) theirs.push(id)
    }
    const old = Date.now() - 3_600_000
    // A live peer: its retained status says online (its heartbeat would keep it so).
    await client.publishAsync('so/fleet/trackers/b', JSON.stringify({ state: 'online', time: Date.now(), version: '0', partitions: P, session: 'x' }), { qos: 1, retain: true })
    // Two ghosts of ours seedable (present long ago), one not of the published shape.
    await client.publishAsync(`so/fleet/beacons/${ours[0]}`, state(ours[0], old), { qos: 1, retain: true })
    await client.publishAsync(`so/fleet/beacons/${ours[1]}`, state(ours[1], old), { qos: 1, retain: true })
    await client.publishAsync(`so/fleet/beacons/${ours[2]}`, JSON.stringify({ present: true }), { qos: 1, retain: true })
    for (const id of theirs) await client.publishAsync(`so/fleet/beacons/${id}`, state(id, old), { qos: 1, retain: true })
    const t = await tracker({ topicPrefix: 'so', goneTimeoutMs: 2000, scaleOut: { partitions: P, trackerId: 'a' } })
    await waitFor(() => t.stats.ghostsCleared >= 1 && t.stats.seeded === 2 && t.beacons().length === 0, 'our ghosts gone', 15_000)
    expect(await t.flush()).toBe(true)
    const retained = await retainedMessages(broker.url, 'so/fleet/beacons/+')
    expect([...retained.keys()].sort()).toEqual(theirs.map((id) => `so/fleet/beacons/${id}`).sort())
    // Stopped before the peer goes: a rebalance racing the stop would only report an error.
    await t.stop(1000)
    await client.publishAsync('so/fleet/trackers/b', '', { qos: 1, retain: true })
  })
})
