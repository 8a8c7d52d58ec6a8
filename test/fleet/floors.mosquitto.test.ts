// A two-floor site end to end through Mosquitto (#39): the floor-aware site simulator (a slab
// between floors, walls per floor), every gateway a real BeaconScanner + MqttPublisher, one
// FleetTracker given the room method (RoomLocator) and the away rule (AwayTimer), all on one
// virtual clock in lockstep with the broker. Each still tag is placed on its floor and in its room
// — the room without a gateway included — and a 1 Hz tag that stops is away within seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AwayTimer } from '../../src/fleet/away-timer.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { runSite } from '../../src/gateway/run-site.js'
import type { RunningSite } from '../../src/gateway/run-site.js'
import { RoomLocator } from '../../src/positioning/room-locator.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { stepTo } from '../support/site-lockstep.js'
import { waitFor } from '../integration/wait.js'
import { connectAsync } from 'mqtt'

const box = (x: number, y: number): number[][] => [[x, y], [x + 5, y], [x + 5, y + 4], [x, y + 4]]
const HOUSE = {
  floors: [{ id: 'ground', name: 'Ground floor', z: 0 }, { id: 'first', name: 'First floor', z: 3 }],
  gateways: {
    'kitchen-pi': { x: 1.5, y: 2, floor: 'ground' },
    'living-pi': { x: 8.5, y: 2, floor: 'ground' },
    'bedroom-pi': { x: 1.5, y: 2, floor: 'first' },
    'office-pi': { x: 8.5, y: 2, floor: 'first' },
  },
  rooms: [
    { name: 'Kitchen', floor: 'ground', polygon: box(0, 0) },
    { name: 'Living', floor: 'ground', polygon: box(5, 0) },
    { name: 'Bedroom', floor: 'first', polygon: box(0, 0) },
    { name: 'Office', floor: 'first', polygon: box(5, 0) },
    { name: 'Landing', floor: 'first', polygon: box(10, 0) },
  ],
  walls: ['ground', 'first'].flatMap((floor) => [
    { from: [5, 0], to: [5, 1.5], attenuationDb: 5, floor },
    { from: [5, 2.5], to: [5, 4], attenuationDb: 5, floor },
  ]).concat([{ from: [10, 0], to: [10, 4], attenuationDb: 5, floor: 'first' }]),
  beacons: [
    { name: 'in-kitchen', serial: '0117C5F00001', at: [2.5, 1], floor: 'ground', intervalMs: 1000 },
    { name: 'in-living', serial: '0117C5F00002', at: [7, 3], floor: 'ground', intervalMs: 1000 },
    { name: 'in-bedroom', serial: '0117C5F00003', at: [2.5, 3], floor: 'first', intervalMs: 1000 },
    { name: 'in-landing', serial: '0117C5F00004', at: [14, 2], floor: 'first', intervalMs: 1000 },
    { name: 'leaver', serial: '0117C5F00005', at: [7, 1], floor: 'first', intervalMs: 1000, leaveAtMs: 40_000 },
  ],
  radio: { shadowingDb: 2, fadingDb: 3, slabDb: 15 },
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('a two-floor simulated site through Mosquitto into one FleetTracker'), () => {
  let broker: Mosquitto
  let site: RunningSite | undefined
  let tracker: FleetTracker | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await site?.close()
    await tracker?.stop()
    await broker?.close()
  })

  it('places every tag on its floor and in its room, and a stopped 1 Hz tag is away within seconds', async () => {
    const sim = SiteSimulator.fromJSON(HOUSE, { virtual: true, seed: 4 })
    const clock = sim.clock
    if (clock === undefined) throw new Error('no virtual clock')
    const id = (name: string): string => sim.idOf(name) ?? name
    const t0 = clock.now()
    const t = new FleetTracker({
      url: broker.url,
      clientId: 'floors-tracker',
      site: sim.site,
      clock,
      goneTimeoutMs: 30_000,
      rooms: new RoomLocator(sim.site),
      away: new AwayTimer({ fallbackMs: 30_000 }),
    })
    tracker = t
    const gone: { id: string; at: number }[] = []
    t.on('gone', (b) => gone.push({ id: b.id, at: clock.now() }))
    await t.start()
    site = await runSite({ simulator: sim, url: broker.url, clientIdPrefix: 'floors' })
    await stepTo(site, t, t0 + 39_000)
    for (const [name, floor, room] of [
      ['in-kitchen', 'ground', 'Kitchen'],
      ['in-living', 'ground', 'Living'],
      ['in-bedroom', 'first', 'Bedroom'],
      ['in-landing', 'first', 'Landing'],
      ['leaver', 'first', 'Office'],
    ] as const) {
      expect(t.get(id(name)), name).toMatchObject({ floor, room })
      expect(sim.truth(name, clock.now()), name).toMatchObject({ floor, room })
    }
    // The retained state and presence carry the floor beside the room.
    const seen = new Map<string, Record<string, unknown>>()
    const reader = await connectAsync(broker.url, { clientId: 'floors-reader' })
    reader.on('message', (topic, payload) => {
      if (payload.length > 0) seen.set(topic, JSON.parse(payload.toString('utf8')) as Record<string, unknown>)
    })
    await reader.subscribeAsync(['beaconkit/fleet/beacons/+', 'beaconkit/fleet/presence/+'])
    await waitFor(() => seen.size >= 10, 'the retained fleet states and presences', 10_000)
    await reader.endAsync()
    expect(seen.get(`beaconkit/fleet/beacons/${id('in-landing')}`)).toMatchObject({ floor: 'first', room: 'Landing' })
    expect(seen.get(`beaconkit/fleet/presence/${id('in-kitchen')}`)).toMatchObject({ present: true, floor: 'ground', room: 'Kitchen' })
    await stepTo(site, t, t0 + 60_000)
    const left = gone.find((g) => g.id === id('leaver'))
    expect(left).toBeDefined()
    // Its last packet was before 40 s; away after 3 intervals + 1 s, plus a batch and a tick.
    expect((left?.at ?? Infinity) - (t0 + 40_000)).toBeLessThanOrEqual(3 * 1000 + 2000 + 1000)
    expect(gone.map((g) => g.id)).toEqual([id('leaver')])
  })
})
