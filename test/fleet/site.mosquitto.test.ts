// The fleet's done-when test: a simulated EIGHT-gateway site (fixtures/site-eight.json: four rooms
// in a row, two gateways each, walls with doorways) through a real Mosquitto, every gateway a real
// BeaconScanner + MqttPublisher on its own connection, one FleetTracker, all on one virtual clock
// stepped in lockstep with the broker (test/support/site-lockstep.ts), so load changes nothing.
//   (a) no `gone` while any gateway hears a beacon (checked against the simulator's ground truth);
//   (b) a beacon walking A → B → C is reported in each room in order, with at most
//       ROOM_CHANGE_BOUND room changes beyond the ground truth's (measured: BENCHMARKS.md "Fleet rooms and presence");
//   (c) a gateway killed mid-run (no DISCONNECT: its last will fires) loses none of its beacons.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetGatewayEvent } from '../../src/fleet/tracker-types.js'
import { runSite } from '../../src/gateway/run-site.js'
import type { RunningSite } from '../../src/gateway/run-site.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { stepTo } from '../support/site-lockstep.js'
import { waitFor } from '../integration/wait.js'

const EIGHT = JSON.parse(readFileSync(new URL('../../fixtures/site-eight.json', import.meta.url), 'utf8')) as Record<string, unknown>
/** Room changes the tracker may report beyond the ground truth's (bench/fleet-rooms.bench.mjs measures them; BENCHMARKS.md). */
const ROOM_CHANGE_BOUND = 1
const GONE_TIMEOUT_MS = 30_000
/** A packet heard in the last second may still be on its way in the next batch (1 s tick + 1 s batch). */
const BATCH_SLACK_MS = 2000

/** Rooms in order without repeats: ['A', 'A', 'B'] → ['A', 'B']. */
function runs(rooms: readonly string[]): string[] {
  return rooms.filter((r, i) => i === 0 || r !== rooms[i - 1])
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('an eight-gateway simulated site through Mosquitto into one FleetTracker'), () => {
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

  it('never loses a heard beacon, follows a walk through three rooms, survives a killed gateway', async () => {
    const sim = SiteSimulator.fromJSON(EIGHT, { virtual: true, seed: 1 })
    const clock = sim.clock
    if (clock === undefined) throw new Error('no virtual clock')
    expect(sim.gateways).toHaveLength(8)
    const id = (name: string): string => sim.idOf(name) ?? name
    const t0 = clock.now()
    const t = new FleetTracker({ url: broker.url, clientId: 'site8-tracker', site: sim.site, clock, goneTimeoutMs: GONE_TIMEOUT_MS })
    tracker = t
    const gone: { id: string; time: number; lastHeard: number }[] = []
    const walkerRooms: string[] = []
    const gatewayEvents: FleetGatewayEvent[] = []
    t.on('gone', (b) => gone.push({ id: b.id, time: clock.now(), lastHeard: sim.lastHeard(b.id)?.time ?? -Infinity }))
    t.on('room', (b, change) => {
      if (b.id === id('walker')) walkerRooms.push(change.to)
    })
    t.on('gateway', (e) => gatewayEvents.push(e))
    await t.start()
    site = await runSite({ simulator: sim, url: broker.url, clientIdPrefix: 'site8' })
    await waitFor(() => gatewayEvents.filter((e) => e.state === 'online').length === 8, 'eight gateways online', 30_000)

    // The walker's rooms in the ground truth, sampled every 100 ms of the run.
    const truthRooms: string[] = []
    const sample = (until: number): void => {
      for (let s = t0 + truthRooms.length * 100; s <= until; s += 100) truthRooms.push(sim.truth('walker', s)?.room ?? '')
    }

    // 0–50 s: everyone found, each stationary beacon in its room; the leaver stops sending at 40 s.
    await stepTo(site, t, t0 + 50_000, sample)
    const present = new Set(t.beacons().map((b) => b.id))
    for (const name of ['walker', 'in-a', 'in-b', 'in-c', 'by-the-wall', 'leaver']) expect(present, name).toContain(id(name))
    expect(t.get(id('in-a'))?.room).toBe('A')
    expect(t.get(id('in-b'))?.room).toBe('B')
    expect(t.get(id('in-c'))?.room).toBe('C')
    expect(t.get(id('walker'))?.room).toBe('B')
    const inB = t.get(id('in-b'))
    expect(inB?.gateways.map((g) => g.gateway)).toContain('b1')

    // (c) b1 dies at 50 s without a clean close: Mosquitto publishes its last will.
    await site.kill('b1')
    await waitFor(() => gatewayEvents.some((e) => e.gateway === 'b1' && e.state === 'offline'), "b1's last will", 30_000)
    expect(site.gateway('b1').publisher.stats.byKind.status).toBe(1)
    // Its beacons are re-decided from the other gateways at once: still present, b1 no longer counted.
    expect(t.get(id('in-b'))?.gateways.map((g) => g.gateway)).not.toContain('b1')
    expect(t.get(id('in-b'))?.present).toBe(true)

    // 50–130 s: the walker goes on to C; b1 stays dead; the leaver goes (it left at 40 s).
    await stepTo(site, t, t0 + 130_000, sample)
    expect(t.get(id('in-b'))?.room).toBe('B')
    expect(t.get(id('walker'))?.room).toBe('C')
    for (const name of ['walker', 'in-a', 'in-b', 'in-c', 'by-the-wall']) expect(t.get(id(name))?.present, name).toBe(true)

    // (a) The only gone is the leaver's, and no gone came while a gateway still heard the beacon.
    expect(gone.map((g) => g.id)).toEqual([id('leaver')])
    for (const g of gone) expect(g.time - g.lastHeard, `${g.id} went ${g.time - g.lastHeard} ms after a gateway last heard it`).toBeGreaterThanOrEqual(GONE_TIMEOUT_MS - BATCH_SLACK_MS)

    // (b) A, B, C in that order; no more room changes than the truth has, plus the bound.
    const truth = runs(truthRooms)
    expect(truth).toEqual(['A', 'B', 'C'])
    expect(runs(walkerRooms)).toEqual(['A', 'B', 'C'])
    const reportedChanges = walkerRooms.length - 1
    expect(reportedChanges).toBeLessThanOrEqual(truth.length - 1 + ROOM_CHANGE_BOUND)
    expect(t.stats.malformed).toBe(0)
  }, 300_000)
})
