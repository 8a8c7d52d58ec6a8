// Three gateways (a real BeaconScanner + MqttPublisher each, fed by a push source in real time)
// into one FleetTracker through a real Mosquitto: one gateway losing a beacon never makes it go,
// a gateway killed without a clean close (the broker sends its last will) leaves the beacons
// others hear, and the retained fleet topic follows the fused state and is cleared on gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { statusPayload } from '../../src/mqtt/payloads.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetGatewayEvent } from '../../src/fleet/tracker-types.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { Site } from '../../src/positioning/site.js'
import { RealClock } from '../../src/clock.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { discoveryProblems } from '../support/ha-schema.js'
import { expectTrackerConfig } from './ha-fleet-helpers.js'
import { PushSource } from '../support/push-source.js'
import { waitFor } from '../integration/wait.js'
import { ibeaconLine, T0 } from '../sources/helpers.js'

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

interface Gateway {
  id: string
  source: PushSource
  scanner: BeaconScanner
  publisher: MqttPublisher
  client: MqttClient
  /** Beacon (iBeacon minor) → RSSI this gateway hears it at. */
  hears: Map<number, number>
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('FleetTracker with three gateways through Mosquitto'), () => {
  let broker: Mosquitto
  const gateways: Gateway[] = []
  let tracker: FleetTracker | undefined
  let pusher: NodeJS.Timeout | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    if (pusher !== undefined) clearInterval(pusher)
    await tracker?.stop()
    for (const g of gateways) {
      await g.publisher.close(1000)
      await g.scanner.stop()
      g.client.end(true)
    }
    await broker?.close()
  })

  async function gateway(id: string): Promise<Gateway> {
    const clock = new RealClock()
    const source = new PushSource(clock)
    const scanner = new BeaconScanner({ source, updateIntervalMs: 200, goneTimeoutMs: 1500 })
    // The gateway's own mqtt.js client with the contract's last will, so the test can kill it
    // without a DISCONNECT (end(true) destroys the socket) and Mosquitto sends the will.
    const client = await mqtt.connectAsync(broker.url, {
      clientId: `fleet-test-${id}`,
      reconnectPeriod: 0,
      will: { topic: `beaconkit/gateways/${id}/status`, payload: Buffer.from(statusPayload('offline', Date.now())), qos: 1, retain: true },
    })
    const publisher = new MqttPublisher({ client, gatewayId: id, minIntervalMs: 200, heartbeatMs: 1000 })
    publisher.attach(scanner)
    await publisher.connect()
    await scanner.start()
    const g: Gateway = { id, source, scanner, publisher, client, hears: new Map() }
    gateways.push(g)
    return g
  }

  it('fuses the gateways: no gone while one gateway hears, last will keeps the others, retained fleet state', async () => {
    const site = Site.fromJSON({ gateways: { a: {}, b: {}, c: {} }, rooms: { Kitchen: ['a'], Hall: ['b'], Lab: ['c'] } })
    const t = new FleetTracker({ url: broker.url, clientId: 'fleet-test-tracker', site, goneTimeoutMs: 2500, hearingMs: 1200, dwellMs: 500, publishIntervalMs: 1000, reconnect: { initialDelayMs: 100 } })
    tracker = t
    const found: FleetBeacon[] = []
    const gone: FleetBeacon[] = []
    const gatewayEvents: FleetGatewayEvent[] = []
    let updates = 0
    t.on('found', (b) => found.push(b))
    t.on('gone', (b) => gone.push(b))
    t.on('gateway', (e) => gatewayEvents.push(e))
    t.on('updated', () => updates++)
    await t.start()
    const fleet = await Subscriber.connect(broker.url, ['beaconkit/fleet/#', 'beaconkit-test/marker/#'])

    const [a, b, c] = [await gateway('a'), await gateway('b'), await gateway('c')]
    // Beacon X (minor 1) is heard by a and b, beacon Y (minor 2) by b and c; a packet every 100 ms.
    a.hears.set(1, -55)
    b.hears.set(1, -70)
    b.hears.set(2, -72)
    c.hears.set(2, -58)
    pusher = setInterval(() => {
      const ms = Date.now() - T0
      for (const g of gateways) for (const [minor, rssi] of g.hears) g.source.emit('advertisement', adv(ibeaconLine(ms, `aa:00:00:00:00:0${minor}`, 7, minor, rssi)))
    }, 100)

    await waitFor(() => a.scanner.beacons().length === 1 && c.scanner.beacons().length === 1, 'the gateways hear the beacons', 20_000)
    const X = a.scanner.beacons()[0].id
    const Y = c.scanner.beacons()[0].id
    await waitFor(() => t.get(X)?.gateways.length === 2 && t.get(Y)?.gateways.length === 2, 'both beacons fused from two gateways', 20_000)
    expect(gatewayEvents.filter((e) => e.state === 'online').map((e) => e.gateway).sort()).toEqual(['a', 'b', 'c'])
    expect(t.get(X)?.gateways.map((g) => g.gateway)).toEqual(['a', 'b'])
    await waitFor(() => t.get(X)?.room === 'Kitchen' && t.get(Y)?.room === 'Lab', 'rooms from the strongest gateway', 20_000)

    // The retained fleet topic carries the FleetBeacon shape.
    // (The message of 'found' may name one gateway and no room yet: a new beacon's first room
    // waits one batch interval. A later one names both gateways and the room.)
    const both = (m: { topic: string; payload: string }): boolean => {
      if (m.topic !== `beaconkit/fleet/beacons/${X}` || m.payload === '') return false
      const b = JSON.parse(m.payload) as FleetBeacon
      return b.gateways.length === 2 && b.room !== undefined
    }
    await fleet.until((ms) => ms.some(both), 'the fleet topic of X naming both gateways')
    const published = JSON.parse(fleet.messages.find(both)?.payload ?? '{}') as FleetBeacon
    expect(published).toMatchObject({ id: X, present: true, room: 'Kitchen' })
    expect(typeof published.time).toBe('number')
    expect(published.gateways.map((g) => g.gateway)).toEqual(['a', 'b'])
    expect(published.gateways[0]).toMatchObject({ gateway: 'a' })
    expect(typeof published.gateways[0].rssi).toBe('number')
    expect(await t.flush()).toBe(true)

    // Gateway a stops hearing X: a drops out of X's gateways, X stays for well past goneTimeoutMs.
    a.hears.delete(1)
    await waitFor(() => t.get(X)?.gateways.length === 1, 'X heard by b only', 20_000)
    expect(t.get(X)?.gateways[0].gateway).toBe('b')
    const from = updates
    await waitFor(() => updates >= from + 4, 'four more seconds of updates (beyond the 2.5 s gone timeout)', 20_000)
    expect(gone).toEqual([])
    expect(t.get(X)?.present).toBe(true)

    // Gateway b dies without a clean close: Mosquitto sends its last will.
    b.hears.clear()
    b.client.end(true)
    await waitFor(() => gatewayEvents.some((e) => e.gateway === 'b' && e.state === 'offline'), "b's last will", 20_000)
    // Its beacons are re-decided from the others at once: Y stays, heard by c.
    expect(t.get(Y)?.gateways.map((g) => g.gateway)).toEqual(['c'])
    // X was heard by b alone: it goes by the gone timeout, and its retained state is cleared.
    await waitFor(() => gone.some((g) => g.id === X), 'X gone', 20_000)
    expect(gone.map((g) => g.id)).toEqual([X])
    expect(t.get(Y)?.present).toBe(true)
    expect(await t.flush()).toBe(true)
    await fleet.sync()
    expect(fleet.on(`beaconkit/fleet/beacons/${X}`).at(-1)?.payload).toBe('')
    expect(found.map((f) => f.id).sort()).toEqual([X, Y].sort())
    await fleet.close()
  }, 90_000)

  it('skips what is not the contract, isolates listeners that throw, and keeps its own retained status', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'fleet-test-tracker-2', topicPrefix: 'site2', goneTimeoutMs: 2000 })
    const errors: Error[] = []
    t.on('error', (e) => errors.push(e))
    t.on('found', () => {
      throw new Error('listener bug')
    })
    const seen: string[] = []
    t.on('found', (b) => seen.push(b.id))
    await t.start()
    const raw = await mqtt.connectAsync(broker.url, { clientId: 'fleet-test-raw', reconnectPeriod: 0 })
    try {
      await raw.publishAsync('site2/gateways/x/rssi', 'not json {', { qos: 1 })
      await raw.publishAsync('site2/gateways/x/rssi', JSON.stringify({ gateway: 'x', time: 'soon', readings: [] }), { qos: 1 })
      await raw.publishAsync('site2/gateways/x/status', JSON.stringify({ state: 'sleepy' }), { qos: 1 })
      const now = Date.now()
      const batch = { gateway: 'x', time: now, readings: [{ id: 'tag-1', rssi: -60, lastSeen: now, count: 3 }, { id: 'bad', rssi: 'loud', lastSeen: now, count: 1 }] }
      await raw.publishAsync('site2/gateways/x/rssi', JSON.stringify(batch), { qos: 1 })
      await waitFor(() => seen.length === 1, 'the good reading', 20_000)
      expect(seen).toEqual(['tag-1'])
      // The first listener threw: reported as 'error', the second one still ran.
      expect(errors.map((e) => e.message)).toEqual(['listener bug'])
      expect(t.stats).toMatchObject({ unparsable: 2, malformed: 4, batches: 1, observations: 1 })
      const status = await Subscriber.connect(broker.url, ['site2/fleet/status', 'beaconkit-test/marker/#'])
      await status.sync()
      expect(JSON.parse(status.on('site2/fleet/status').at(-1)?.payload ?? '{}')).toMatchObject({ state: 'online' })
      await t.stop()
      await status.until((ms) => ms.some((m) => m.topic === 'site2/fleet/status' && m.payload.includes('"offline"')), 'offline on stop')
      await status.close()
    } finally {
      await t.stop()
      await raw.endAsync()
    }
    await expect(t.start()).rejects.toMatchObject({ code: 'closed' })
  })

  it('announces a Home Assistant device_tracker (home/not_home through its presence attributes) and a Room sensor; both stay once gone', async () => {
    const site = Site.fromJSON({ gateways: { k: {} }, rooms: { Kitchen: ['k'] } })
    const t = new FleetTracker({ url: broker.url, clientId: 'fleet-test-tracker-3', topicPrefix: 'site3', site, goneTimeoutMs: 1500, hearingMs: 1000, homeAssistant: { prefix: 'ha3', dwellMs: 1000 } })
    const gone: string[] = []
    t.on('gone', (b) => gone.push(b.id))
    await t.start()
    const raw = await mqtt.connectAsync(broker.url, { clientId: 'fleet-test-raw-3', reconnectPeriod: 0 })
    // An iBeacon known by its beaconID: a stable identity.
    const id = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2'
    const obj = 'e2c56db5_dffb_48d2_b060_d0f5a71096e0_1_2'
    const trackerTopic = `ha3/device_tracker/beaconkit_${obj}/config`
    const roomTopic = `ha3/sensor/beaconkit_${obj}_room/config`
    try {
      // The gateway publishes while it hears the tag (a new beacon's first room waits one batch interval).
      const publishing = setInterval(() => {
        const at = Date.now()
        void raw.publishAsync('site3/gateways/k/rssi', JSON.stringify({ gateway: 'k', time: at, readings: [{ id, rssi: -60, lastSeen: at, count: 3 }] }), { qos: 1 })
      }, 300)
      try {
        await waitFor(() => t.get(id)?.room === 'Kitchen' && t.stats.homeAssistant?.announced === 1, 'the tag in the kitchen, announced', 20_000)
        expect(await t.flush()).toBe(true)
        const present = await retainedMessages(broker.url, ['site3/fleet/presence/#'])
        expect(JSON.parse(present.get(`site3/fleet/presence/${id}`) ?? '{}')).toMatchObject({ present: true, room: 'Kitchen' })
      } finally {
        clearInterval(publishing)
      }
      await waitFor(() => gone.length === 1, 'the tag gone', 20_000)
      expect(await t.flush()).toBe(true)
      const retained = await retainedMessages(broker.url, ['ha3/#', 'site3/fleet/#'])
      const config = expectTrackerConfig(retained.get(trackerTopic), 'site3', id)
      expect(config.availability).toEqual([expect.objectContaining({ topic: 'site3/fleet/status' })])
      expect(discoveryProblems(roomTopic, retained.get(roomTopic) ?? '')).toEqual([])
      expect(JSON.parse(retained.get(roomTopic) ?? '{}')).toMatchObject({ name: 'Room', unique_id: `beaconkit_${obj}_room`, state_topic: `site3/fleet/presence/${id}`, device: { identifiers: [`beaconkit_${obj}`] } })
      // Gone: the fleet state is cleared, the presence says away, the configs stay (the tag is away, not deleted).
      expect(retained.has(`site3/fleet/beacons/${id}`)).toBe(false)
      expect(JSON.parse(retained.get(`site3/fleet/presence/${id}`) ?? '{}')).toMatchObject({ present: false })
      // No values were reported: no value sensors.
      // Besides, the site's one room has its occupancy sensor (#39), valid discovery, empty now.
      const occupancyTopic = 'ha3/sensor/beaconkit_room_kitchen_occupancy/config'
      expect(discoveryProblems(occupancyTopic, retained.get(occupancyTopic) ?? '')).toEqual([])
      expect(JSON.parse(retained.get('site3/fleet/rooms/kitchen') ?? '{}')).toMatchObject({ room: 'Kitchen', count: 0 })
      expect([...retained.keys()].filter((k) => k.startsWith('ha3/')).sort()).toEqual([trackerTopic, roomTopic, occupancyTopic].sort())
    } finally {
      await t.stop()
      await raw.endAsync()
    }
  })
})
