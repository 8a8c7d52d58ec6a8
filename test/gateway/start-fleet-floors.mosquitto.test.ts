// The room method and the away rule built by the fleet's root (#39): `startFleet(config)` with a
// two-floor site (no room method named: every gateway placed, so `plan`) and a fingerprint file
// that is damaged. The floor-aware site simulator publishes through Mosquitto on the tracker's
// virtual clock; each still tag is on its floor and in its room (the gateway-less Landing too),
// the retained state and presence carry the floor, a stopped 1 Hz tag is away within seconds,
// the damaged file is a warning (the fleet runs untaught) and the stop saves the learnt offsets.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectAsync } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleet } from '../../src/gateway/start-fleet.js'
import type { RunningFleet } from '../../src/gateway/start-fleet.js'
import { runSite } from '../../src/gateway/run-site.js'
import type { RunningSite } from '../../src/gateway/run-site.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { stepTo } from '../support/site-lockstep.js'
import { waitFor } from '../integration/wait.js'
import { jinjaAvailable, renderTemplatesSafe } from '../support/ha-schema.js'

const box = (x: number, y: number): number[][] => [
  [x, y],
  [x + 5, y],
  [x + 5, y + 4],
  [x, y + 4],
]
const PLAN = {
  floors: [
    { id: 'ground', name: 'Ground floor', z: 0 },
    { id: 'first', name: 'First floor', z: 3 },
  ],
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
  walls: ['ground', 'first']
    .flatMap((floor) => [
      { from: [5, 0], to: [5, 1.5], attenuationDb: 5, floor },
      { from: [5, 2.5], to: [5, 4], attenuationDb: 5, floor },
    ])
    .concat([{ from: [10, 0], to: [10, 4], attenuationDb: 5, floor: 'first' }]),
}
const HOUSE = {
  ...PLAN,
  beacons: [
    { name: 'in-kitchen', serial: '0117C5F00001', at: [2.5, 1], floor: 'ground', intervalMs: 1000 },
    { name: 'in-living', serial: '0117C5F00002', at: [7, 3], floor: 'ground', intervalMs: 1000 },
    { name: 'in-bedroom', serial: '0117C5F00003', at: [2.5, 3], floor: 'first', intervalMs: 1000 },
    { name: 'in-landing', serial: '0117C5F00004', at: [14, 2], floor: 'first', intervalMs: 1000 },
    { name: 'leaver', serial: '0117C5F00005', at: [7, 1], floor: 'first', intervalMs: 1000, leaveAtMs: 40_000 },
  ],
  radio: { shadowingDb: 2, fadingDb: 3, slabDb: 15 },
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('startFleet with the room method on a two-floor site'), () => {
  let broker: Mosquitto
  let site: RunningSite | undefined
  let fleet: RunningFleet | undefined
  let dir: string

  beforeAll(async () => {
    broker = await Mosquitto.start()
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-floors-'))
  })

  afterAll(async () => {
    await site?.close()
    await fleet?.stop()
    await broker?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('places every tag on its floor and room, sends a stopped tag away in seconds, keeps the offsets', async () => {
    const file = join(dir, 'fingerprints.json')
    await writeFile(file, '{"format": "beaconkit-fingerprints", "version": 1, "samples": [')
    const sim = SiteSimulator.fromJSON(HOUSE, { virtual: true, seed: 4 })
    const clock = sim.clock
    if (clock === undefined) throw new Error('no virtual clock')
    const id = (name: string): string => sim.idOf(name) ?? name
    const t0 = clock.now()
    const warnings: string[] = []
    const f = await startFleet(
      {
        mqtt: { url: broker.url, clientId: 'floors-fleet', homeAssistant: { enabled: true } },
        site: PLAN,
        fleet: { fingerprints: file },
        metrics: { listen: '127.0.0.1:0' },
        clock,
      },
      { warn: (text) => warnings.push(text), stderr: { write: () => true } },
    )
    fleet = f
    const t = f.tracker
    const gone: { id: string; at: number }[] = []
    const floors: string[] = []
    t.on('gone', (b) => gone.push({ id: b.id, at: clock.now() }))
    t.on('floor', (b, change) => floors.push(`${b.id}:${String(change.to)}`))
    await f.start()
    expect(warnings.join('\n')).toContain(file)
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
      expect(floors, name).toContain(`${id(name)}:${floor}`)
    }
    const seen = new Map<string, Record<string, unknown>>()
    const reader = await connectAsync(broker.url, { clientId: 'floors-fleet-reader' })
    reader.on('message', (topic, payload) => {
      if (payload.length > 0) seen.set(topic, JSON.parse(payload.toString('utf8')) as Record<string, unknown>)
    })
    await reader.subscribeAsync([
      'beaconkit/fleet/beacons/+',
      'beaconkit/fleet/presence/+',
      'beaconkit/fleet/rooms/+',
      'homeassistant/sensor/+/config',
    ])
    await waitFor(() => seen.size >= 20, 'the retained fleet states, presences, rooms and configs', 10_000)
    await reader.endAsync()
    // Home Assistant: an occupancy sensor per room, on the room's own device filed in its area.
    const landing = seen.get('homeassistant/sensor/beaconkit_room_landing_occupancy/config')
    expect(landing).toMatchObject({
      unique_id: 'beaconkit_room_landing_occupancy',
      state_topic: 'beaconkit/fleet/rooms/landing',
      device: { identifiers: ['beaconkit_room_landing'], name: 'Landing', suggested_area: 'Landing' },
    })
    expect(seen.get('beaconkit/fleet/rooms/office')).toEqual({
      room: 'Office',
      floor: 'first',
      count: 1,
      beacons: [id('leaver')],
    })
    const occupancy = seen.get('beaconkit/fleet/rooms/landing')
    expect(occupancy).toEqual({ room: 'Landing', floor: 'first', count: 1, beacons: [id('in-landing')] })
    if (jinjaAvailable()) {
      const payload = JSON.stringify(occupancy)
      const [count, attributes] = renderTemplatesSafe([
        { template: String(landing?.value_template), payload },
        { template: String(landing?.json_attributes_template), payload },
      ])
      expect(count).toEqual({ ok: '1' })
      expect(JSON.parse((attributes as { ok: string }).ok)).toEqual({ beacons: [id('in-landing')], floor: 'first' })
    }
    expect(seen.get(`beaconkit/fleet/beacons/${id('in-landing')}`)).toMatchObject({ floor: 'first', room: 'Landing' })
    expect(seen.get(`beaconkit/fleet/presence/${id('in-kitchen')}`)).toMatchObject({
      present: true,
      floor: 'ground',
      room: 'Kitchen',
    })
    await stepTo(site, t, t0 + 60_000)
    const left = gone.find((g) => g.id === id('leaver'))
    // Its last packet was before 40 s; away after 3 intervals + 1 s, plus a batch and a tick.
    expect((left?.at ?? Infinity) - (t0 + 40_000)).toBeLessThanOrEqual(3 * 1000 + 2000 + 1000)
    expect(gone.map((g) => g.id)).toEqual([id('leaver')])
    // The room it left is empty again, on the retained topic.
    const after = await connectAsync(broker.url, { clientId: 'floors-fleet-reader-2' })
    let office: unknown
    after.on('message', (_topic, payload) => {
      office = JSON.parse(payload.toString('utf8')) as unknown
    })
    await after.subscribeAsync('beaconkit/fleet/rooms/office')
    await waitFor(() => office !== undefined, 'the retained Office occupancy', 10_000)
    await after.endAsync()
    expect(office).toEqual({ room: 'Office', floor: 'first', count: 0, beacons: [] })
    // The learnt offsets in the metrics, per gateway (read at scrape time).
    const text = (await f.metrics?.metrics()) ?? ''
    for (const g of ['kitchen-pi', 'living-pi', 'bedroom-pi', 'office-pi'])
      expect(text).toMatch(new RegExp(`beaconkit_fleet_gateway_offset_db\\{gateway="${g}"\\} -?\\d`))
    expect(text).toMatch(/beaconkit_fleet_offset_observations_total [1-9]/)
    expect(text).toContain('beaconkit_fleet_fingerprints 0')
    expect(text).toContain('beaconkit_fleet_teachings 0')
    expect(f.rooms?.rooms?.offsets.list().length).toBe(4)
    await site.close()
    site = undefined
    await f.stop()
    fleet = undefined
    // The damaged file was replaced at the stop by one holding the offsets learnt in the run.
    const saved = JSON.parse(await readFile(file, 'utf8')) as { format: string; offsets: { gateway: string }[] }
    expect(saved.format).toBe('beaconkit-fingerprints')
    expect(saved.offsets.map((o) => o.gateway).sort()).toEqual(['bedroom-pi', 'kitchen-pi', 'living-pi', 'office-pi'])
  }, 120_000)
})
