// Issue 40: the running fleet takes a new site without a restart. `startFleet` (tracker, map,
// Home Assistant) on a real Mosquitto, on a virtual clock; the test is the gateways and publishes
// their RSSI batches by hand. An edited site then moves a gateway into a newly drawn room (its old
// room and an empty one removed), renames a beacon and stops announcing another: the map's pages
// get the new plan at once, the next tick places the beacon in the new room, the fleet topic and
// Home Assistant's config carry the new name, the removed rooms' retained state and config are
// cleared, the unannounced beacon's configs are emptied, and no beacon is found or gone again.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VirtualClock } from '../../src/clock.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { RoomLocator } from '../../src/positioning/room-locator.js'
import { startFleet } from '../../src/gateway/start-fleet.js'
import type { RunningFleet } from '../../src/gateway/start-fleet.js'
import { haRoomConfigTopic, haTrackerConfigTopic } from '../../src/fleet/home-assistant.js'
import { haOccupancyConfigTopic } from '../../src/fleet/room-occupancy.js'
import { readFingerprintFile, writeFingerprintFile } from '../../src/fleet/fingerprint-file.js'
import { readTeachAnswer, teachAnswerTopic, teachCommandPayload, teachCommandTopic } from '../../src/fleet/teach-command.js'
import type { TeachAnswer } from '../../src/fleet/teach-command.js'
import { Site } from '../../src/positioning/site.js'
import { FleetTimeline } from '../../src/web/timeline.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'
import { expectTrackerConfig } from './ha-fleet-helpers.js'
import { readStream } from '../support/event-stream.js'

const T0 = Date.UTC(2026, 10, 2)
const ANNA = '0117C5000001'
const BOB = '0117C5000002'
/** Nobody names it: never announced while there is a list, and never found or gone by the edit. */
const STRAY = '0117C5000003'

const FIRST = {
  version: 3,
  gateways: { g1: {}, g2: {} },
  rooms: { Kitchen: ['g1'], Hall: ['g2'], Store: [] },
  beacons: [
    { id: ANNA, name: 'Anna' },
    { id: BOB, name: 'Bob' },
  ],
}
/** g1 moved into the new Office; Kitchen and Store gone; Anna renamed; Bob named but not announced. */
const EDITED = {
  version: 4,
  gateways: { g1: {}, g2: {} },
  rooms: { Office: ['g1'], Hall: ['g2'] },
  beacons: [
    { id: ANNA, name: 'Anna B.' },
    { id: BOB, name: 'Bob', announce: false },
  ],
}

/**
 * Moves the clock to `to` and waits for the tick that falls there to end: with a positioner on
 * a thread of its own (a site that places its gateways) a tick ends once its estimates are back.
 */
async function tick(t: FleetTracker, clock: VirtualClock, to: number): Promise<void> {
  const ended = new Promise<void>((resolve) => t.once('updated', () => resolve()))
  clock.advanceTo(to)
  await ended
}

/** The data of the first `event: <name>` in an event stream's text. */
function eventData(text: string, name: string): unknown {
  const block = text.split('\n\n').find((b) => b.split('\n').includes(`event: ${name}`))
  const data = block
    ?.split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice('data: '.length))
    .join('\n')
  return data === undefined ? undefined : (JSON.parse(data) as unknown)
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('a running fleet takes an edited site'), () => {
  let broker: Mosquitto
  let fleet: RunningFleet | undefined
  let gw: MqttClient | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await fleet?.stop()
    await gw?.endAsync()
    await broker?.close()
  })

  it('moves a beacon into a drawn room, renames it in Home Assistant, clears removed rooms, without found/gone', async () => {
    const clock = new VirtualClock(T0)
    const f = await startFleet(
      {
        mqtt: { url: broker.url, clientId: 'live-site-fleet', homeAssistant: { enabled: true } },
        site: FIRST,
        http: { listen: '127.0.0.1:0' },
        clock,
      },
      { warn: () => undefined, stderr: { write: () => true } },
    )
    fleet = f
    const t = f.tracker
    await f.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'live-site-gateways', reconnectPeriod: 0 })
    gw = client
    let batches = 0
    // One second of both gateways: g1 hears Anna well and Bob faintly, g2 the other way round.
    const second = async (): Promise<void> => {
      const now = clock.now()
      const hear = (gateway: string, rssi: Record<string, number>): Promise<unknown> =>
        client.publishAsync(
          `beaconkit/gateways/${gateway}/rssi`,
          JSON.stringify({
            gateway,
            time: now,
            readings: Object.entries(rssi).map(([id, r]) => ({ id, rssi: r, lastSeen: now, count: 1 })),
          }),
          { qos: 1 },
        )
      await hear('g1', { [ANNA]: -55, [BOB]: -82, [STRAY]: -60 })
      await hear('g2', { [ANNA]: -82, [BOB]: -55 })
      batches += 2
      await waitFor(() => t.stats.batches >= batches, `batch ${batches}`, 20_000)
      await tick(t, clock, now + 1000)
    }
    for (let i = 0; i < 4; i++) await second()
    await t.flush()
    expect(t.get(ANNA)).toMatchObject({ room: 'Kitchen', name: 'Anna' })
    expect(t.get(BOB)).toMatchObject({ room: 'Hall', name: 'Bob' })
    let retained = await retainedMessages(broker.url, ['beaconkit/fleet/#', 'homeassistant/#'])
    expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', ANNA)), 'beaconkit', ANNA, 'Anna')
    expect(retained.has(haTrackerConfigTopic('homeassistant', BOB))).toBe(true)
    expect(retained.has(haTrackerConfigTopic('homeassistant', STRAY))).toBe(false)
    for (const room of ['Kitchen', 'Hall', 'Store']) expect(retained.has(haOccupancyConfigTopic('homeassistant', room))).toBe(true)
    expect(retained.has('beaconkit/fleet/rooms/kitchen')).toBe(true)
    expect(retained.has('beaconkit/fleet/rooms/store')).toBe(true)

    const churn: string[] = []
    const rooms: string[] = []
    t.on('found', (b) => churn.push(`found ${b.id}`))
    t.on('gone', (b) => churn.push(`gone ${b.id}`))
    t.on('room', (b, change) => rooms.push(`${b.id}:${String(change.from)}→${change.to}`))
    const web = f.web
    if (web === undefined) throw new Error('no map')
    // A page open before the edit: its stream gets the new plan as `event: site`.
    const stream = readStream(`${web.url}api/events`, (text) => text.includes('event: site'))
    await waitFor(() => web.clients === 1, 'the page connected', 20_000)

    f.applySite(Site.fromJSON(EDITED))
    const plan = eventData(await stream, 'site') as { rooms: { name: string }[] }
    expect(plan.rooms.map((r) => r.name).sort()).toEqual(['Hall', 'Office'])
    const snapshot = (await (await fetch(`${web.url}api/snapshot`)).json()) as { plan: { rooms: { name: string }[] } }
    expect(snapshot.plan.rooms.map((r) => r.name).sort()).toEqual(['Hall', 'Office'])

    // Until the next tick the tracker still works with the first site.
    expect(t.get(ANNA)).toMatchObject({ room: 'Kitchen', name: 'Anna' })
    await second()
    expect(t.get(ANNA)).toMatchObject({ room: 'Office', name: 'Anna B.' })
    // Both beacons of the removed Kitchen are placed anew (no `from`: their room is gone), at once.
    expect(rooms.sort()).toEqual([`${ANNA}:undefined→Office`, `${STRAY}:undefined→Office`])
    for (let i = 0; i < 3; i++) await second()
    await t.flush()
    expect(churn).toEqual([])
    expect(t.get(BOB)).toMatchObject({ room: 'Hall', name: 'Bob' })
    expect(t.get(STRAY)).toMatchObject({ room: 'Office' })
    // The map lists her by her new name, in the new room.
    const after = (await (await fetch(`${web.url}api/snapshot`)).json()) as { beacons: { id: string; name?: string; room?: string }[] }
    expect(after.beacons.find((b) => b.id === ANNA)).toMatchObject({ name: 'Anna B.', room: 'Office' })

    retained = await retainedMessages(broker.url, ['beaconkit/fleet/#', 'homeassistant/#'])
    expect(JSON.parse(retained.get(`beaconkit/fleet/beacons/${ANNA}`) ?? '{}')).toMatchObject({ room: 'Office', name: 'Anna B.' })
    expect(JSON.parse(retained.get(`beaconkit/fleet/presence/${ANNA}`) ?? '{}')).toMatchObject({ present: true, room: 'Office', name: 'Anna B.' })
    // Home Assistant renames the device from its config's new name.
    expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', ANNA)), 'beaconkit', ANNA, 'Anna B.')
    expect(JSON.parse(retained.get(haRoomConfigTopic('homeassistant', ANNA)) ?? '{}')).toMatchObject({ device: { name: 'Anna B.' } })
    // Bob is named (the fleet topic says so) but no longer announced: his configs are emptied.
    expect(JSON.parse(retained.get(`beaconkit/fleet/beacons/${BOB}`) ?? '{}')).toMatchObject({ name: 'Bob', room: 'Hall' })
    expect(retained.has(haTrackerConfigTopic('homeassistant', BOB))).toBe(false)
    expect(retained.has(haRoomConfigTopic('homeassistant', BOB))).toBe(false)
    expect(retained.has(haTrackerConfigTopic('homeassistant', STRAY))).toBe(false)
    // The removed rooms' state and occupancy entity are cleared; the new room has both.
    for (const room of ['Kitchen', 'Store']) {
      expect(retained.has(haOccupancyConfigTopic('homeassistant', room)), room).toBe(false)
      expect(retained.has(`beaconkit/fleet/rooms/${room.toLowerCase()}`), room).toBe(false)
    }
    expect(retained.has(haOccupancyConfigTopic('homeassistant', 'Office'))).toBe(true)
    expect(JSON.parse(retained.get('beaconkit/fleet/rooms/office') ?? '{}')).toMatchObject({ room: 'Office', count: 2 })
    expect(JSON.parse(retained.get('beaconkit/fleet/rooms/hall') ?? '{}')).toMatchObject({ room: 'Hall', count: 1, beacons: ['Bob'] })
  }, 120_000)

  it('switches to the plan method when the site places every gateway, and follows a gateway moved on the plan', async () => {
    const clock = new VirtualClock(T0)
    const box = (x: number): number[][] => [[x, 0], [x + 5, 0], [x + 5, 4], [x, 4]]
    const unplaced = { gateways: { g1: {}, g2: {} }, rooms: { Kitchen: ['g1'], Living: ['g2'] } }
    const placed = {
      gateways: { g1: { x: 1.5, y: 2 }, g2: { x: 8.5, y: 2 } },
      rooms: [{ name: 'Kitchen', polygon: box(0) }, { name: 'Living', polygon: box(5) }],
    }
    // g1 carried into a Studio drawn beyond the Living room.
    const moved = {
      gateways: { g1: { x: 11.5, y: 2 }, g2: { x: 8.5, y: 2 } },
      rooms: [...placed.rooms, { name: 'Studio', polygon: box(10) }],
    }
    // Offsets learnt by an earlier run with the plan method: read when the fleet switches to it.
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-live-site-'))
    const file = join(dir, 'fingerprints.json')
    await writeFingerprintFile(file, { samples: [], offsets: [{ gateway: 'g2', offsetDb: 3 }] }, T0)
    const f = await startFleet(
      { mqtt: { url: broker.url, clientId: 'plan-switch-fleet', prefix: 'switch' }, site: unplaced, fleet: { fingerprints: file, record: join(dir, 'day.jsonl') }, http: { listen: '127.0.0.1:0' }, clock },
      { warn: () => undefined, stderr: { write: () => true } },
    )
    const t = f.tracker
    await f.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'plan-switch-gateways', reconnectPeriod: 0 })
    let batches = 0
    const second = async (): Promise<void> => {
      const now = clock.now()
      for (const [gateway, rssi] of [['g1', { anna: -55, bob: -82 }], ['g2', { anna: -82, bob: -55 }]] as const)
        await client.publishAsync(`switch/gateways/${gateway}/rssi`, JSON.stringify({ gateway, time: now, readings: Object.entries(rssi).map(([id, r]) => ({ id, rssi: r, lastSeen: now, count: 1 })) }), { qos: 1 })
      batches += 2
      await waitFor(() => t.stats.batches >= batches, `batch ${batches}`, 20_000)
      await tick(t, clock, now + 1000)
    }
    // `fleet teach` as the CLI sends it: the answer to one command.
    let requests = 0
    const teach = async (room: string): Promise<TeachAnswer | undefined> => {
      const request = `r${++requests}`
      await client.subscribeAsync(teachAnswerTopic('switch', request), { qos: 1 })
      const answer = new Promise<TeachAnswer | undefined>((resolve) =>
        client.on('message', (topic, payload) => {
          if (topic === teachAnswerTopic('switch', request)) resolve(readTeachAnswer(payload))
        }),
      )
      await client.publishAsync(teachCommandTopic('switch'), teachCommandPayload({ id: 'anna', room, seconds: 2, request }), { qos: 1 })
      return answer
    }
    try {
      for (let i = 0; i < 3; i++) await second()
      expect(f.rooms?.rooms).toBeUndefined()
      // Rooms by the strongest gateway: teaching is refused, saying why.
      expect(await teach('Kitchen')).toMatchObject({ ok: false, error: expect.stringContaining('strongest gateway') as string })
      expect(t.get('anna')?.room).toBe('Kitchen')
      const churn: string[] = []
      t.on('found', (b) => churn.push(`found ${b.id}`))
      t.on('gone', (b) => churn.push(`gone ${b.id}`))
      const rooms: string[] = []
      t.on('room', (b, change) => rooms.push(`${b.id}→${change.to}`))

      f.applySite(Site.fromJSON(placed))
      const locator = f.rooms?.rooms
      expect(locator?.site.anchor('g1')).toMatchObject({ x: 1.5, room: 'Kitchen' })
      await waitFor(() => locator?.offsets.offset('g2') === 3, 'the offsets read from the file', 20_000)
      // The plan method now: the same fleet takes a teaching.
      expect(await teach('Kitchen')).toMatchObject({ ok: true, done: false })
      for (let i = 0; i < 3; i++) await second()
      // The plan method places them where they were: no room change, no churn.
      expect(t.get('anna')?.room).toBe('Kitchen')
      expect(t.get('bob')?.room).toBe('Living')
      expect(rooms).toEqual([])
      // A positioner is made for the site that now places its gateways: Anna is near g1.
      expect(t.get('anna')?.position?.x).toBeLessThan(5)

      f.applySite(Site.fromJSON(moved))
      expect(f.rooms?.rooms).not.toBe(locator)
      expect(f.rooms?.rooms?.offsets.offset('g2')).toBe(3)
      for (let i = 0; i < 4; i++) await second()
      expect(t.get('anna')?.room).toBe('Studio')
      expect(t.get('bob')?.room).toBe('Living')
      expect(rooms).toEqual(['anna→Studio'])
      // And made again on g1's new place: Anna's position follows it.
      expect(t.get('anna')?.position?.x).toBeGreaterThan(8)
      expect(churn).toEqual([])
      // The map shows g1 at its new place (the gateways follow the plan in the next update).
      const web = f.web
      if (web === undefined) throw new Error('no map')
      type Snap = { plan: { rooms: { name: string }[] }; gateways: { id: string; x?: number }[] }
      let snap: Snap | undefined
      for (let i = 0; i < 100 && snap?.gateways.find((g) => g.id === 'g1')?.x !== 11.5; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100))
        snap = (await (await fetch(`${web.url}api/snapshot`)).json()) as Snap
      }
      expect(snap?.gateways.find((g) => g.id === 'g1')).toMatchObject({ x: 11.5, room: 'Studio' })
      expect(snap?.plan.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Living', 'Studio'])
      // The stop saves what the plan method holds to the file it read.
      await f.stop()
      expect((await readFingerprintFile(file)).offsets).toMatchObject([{ gateway: 'g2', offsetDb: 3 }])
      // The recording notes each site the fleet took: its replay draws the plan of each moment.
      const timeline = await FleetTimeline.load(join(dir, 'day.jsonl'))
      expect(timeline.malformed).toBe(0)
      expect(timeline.snapshot(timeline.start).plan?.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Living'])
      expect(timeline.siteAt(timeline.start)?.anchor('g1')?.x).toBeUndefined()
      expect(timeline.siteAt(timeline.end)?.anchor('g1')?.x).toBe(11.5)
      expect(timeline.snapshot(timeline.end).plan?.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Living', 'Studio'])
    } finally {
      await f.stop()
      await client.endAsync()
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it('FleetTracker.setSite alone: its own room locator is rebuilt on the new site, or dropped with rooms: false', async () => {
    const clock = new VirtualClock(T0)
    const box = (x: number): number[][] => [[x, 0], [x + 5, 0], [x + 5, 4], [x, 4]]
    const placed = Site.fromJSON({ gateways: { g1: { x: 1.5, y: 2 }, g2: { x: 8.5, y: 2 } }, rooms: [{ name: 'Kitchen', polygon: box(0) }, { name: 'Living', polygon: box(5) }] })
    const moved = Site.fromJSON({ gateways: { g1: { x: 11.5, y: 2 }, g2: { x: 8.5, y: 2 } }, rooms: [{ name: 'Kitchen', polygon: box(0) }, { name: 'Living', polygon: box(5) }, { name: 'Studio', polygon: box(10) }] })
    const t = new FleetTracker({ url: broker.url, clientId: 'set-site-tracker', topicPrefix: 'setsite', site: placed, rooms: new RoomLocator(placed), positioning: false, clock })
    const client = await mqtt.connectAsync(broker.url, { clientId: 'set-site-gateways', reconnectPeriod: 0 })
    let batches = 0
    const second = async (): Promise<void> => {
      const now = clock.now()
      for (const [gateway, rssi] of [['g1', -55], ['g2', -82]] as const)
        await client.publishAsync(`setsite/gateways/${gateway}/rssi`, JSON.stringify({ gateway, time: now, readings: [{ id: 'anna', rssi, lastSeen: now, count: 1 }] }), { qos: 1 })
      batches += 2
      await waitFor(() => t.stats.batches >= batches, `batch ${batches}`, 20_000)
      await tick(t, clock, now + 1000)
    }
    try {
      await t.start()
      for (let i = 0; i < 3; i++) await second()
      expect(t.get('anna')?.room).toBe('Kitchen')
      const taken: Site[] = []
      t.on('site', ({ site }) => taken.push(site))
      t.setSite(moved)
      // Told when it takes effect, at the start of the next tick, not when it is given.
      expect(taken).toEqual([])
      for (let i = 0; i < 3; i++) await second()
      expect(taken).toEqual([moved])
      expect(t.get('anna')?.room).toBe('Studio')
      // The strongest gateway, on a site without the Studio: she is placed anew in g1's room, the Den.
      const floorless = Site.fromJSON({ gateways: { g1: { room: 'Den' }, g2: { room: 'Living' } }, rooms: { Den: ['g1'], Living: ['g2'] } })
      t.setSite(floorless, { rooms: false })
      for (let i = 0; i < 3; i++) await second()
      expect(t.get('anna')?.room).toBe('Den')
      expect(t.gatewaySummary().counted.map((g) => g.id)).toEqual(['g1', 'g2'])
    } finally {
      await t.stop()
      await client.endAsync()
    }
  }, 60_000)
})
