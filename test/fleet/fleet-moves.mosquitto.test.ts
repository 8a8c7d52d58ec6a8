// Issue 24 "The fleet moves": a walking tag's retained `<p>/fleet/beacons/<id>` must follow it at
// the pace of the gateways' batches, not of the 5 s refresh. The eight-gateway site through a real
// Mosquitto on one virtual clock (test/support/site-lockstep.ts); a subscriber counts the seconds
// of the walk in which a state carrying a position was published (by the payload's own `time`).
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { runSite } from '../../src/gateway/run-site.js'
import type { RunningSite } from '../../src/gateway/run-site.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { Subscriber } from '../support/mqtt-subscriber.js'
import { stepTo } from '../support/site-lockstep.js'
import { waitFor } from '../integration/wait.js'

const EIGHT = JSON.parse(readFileSync(new URL('../../fixtures/site-eight.json', import.meta.url), 'utf8')) as Record<string, unknown>
/**
 * Issue 24's done-when: a position in 80 % of a walking tag's seconds. Every `moved` is published
 * (asserted below), but the positioner's estimate trails the tag at the start of the walk and at
 * each turn and moves less than `moveThresholdM` in those seconds: by moves alone 53 of 67 seconds
 * (79 %). A tag whose own frames say it is moving is also refreshed every second: 66 of 67.
 */
const MIN_SHARE = 0.8
/** The run: 10 s standing, the walk, 3 s after it. */
const END_MS = 80_000

describe.skipIf(!MOSQUITTO)(needsMosquitto('a walking tag followed through Mosquitto by the fleet topic'), () => {
  let broker: Mosquitto
  let site: RunningSite | undefined
  let tracker: FleetTracker | undefined
  let sub: Subscriber | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await sub?.close()
    await site?.close()
    await tracker?.stop()
    await broker?.close()
  })

  it('republishes a walking tag when it moved, so its state carries a position in most of its seconds', async () => {
    // The corridor's plan and gateways, one tag walking it end to end and back twice at a
    // person's pace (1.2 m/s) after standing 10 s: 80 m, about 67 s.
    const json = { ...EIGHT, beacons: [{ name: 'walker', serial: '0117C5E00011', path: { waypoints: [[2, 3, 10_000], [22, 3], [2, 3], [22, 3], [2, 3]], speed: 1.2 } }] }
    const sim = SiteSimulator.fromJSON(json, { virtual: true, seed: 3 })
    const clock = sim.clock
    if (clock === undefined) throw new Error('no virtual clock')
    const walker = sim.idOf('walker') ?? 'walker'
    const t0 = clock.now()
    sub = await Subscriber.connect(broker.url, ['beaconkit/fleet/beacons/#', 'beaconkit-test/marker/#'])
    const t = new FleetTracker({ url: broker.url, clientId: 'moves-tracker', site: sim.site, clock })
    tracker = t
    const online = new Set<string>()
    t.on('gateway', (e) => {
      if (e.state === 'online') online.add(e.gateway)
    })
    const movedAt = new Set<number>()
    t.on('moved', (b) => {
      if (b.id === walker) movedAt.add(Math.floor((b.time - t0) / 1000))
    })
    await t.start()
    site = await runSite({ simulator: sim, url: broker.url, clientIdPrefix: 'moves' })
    await waitFor(() => online.size === 8, 'eight gateways online', 30_000)
    await stepTo(site, t, t0 + END_MS)
    await t.flush()
    await sub.sync()
    // Every second of the walk by the ground truth, its first and its turns included.
    const walking: number[] = []
    for (let s = t0; s < t0 + END_MS; s += 1000) if (sim.truth('walker', s)?.moving === true) walking.push(Math.floor((s - t0) / 1000))
    expect(walking.length).toBeGreaterThan(60)
    const withPosition = new Set<number>()
    for (const m of sub.on(`beaconkit/fleet/beacons/${walker}`)) {
      if (m.payload === '') continue
      const state = JSON.parse(m.payload) as { time: number; position?: unknown }
      if (state.position !== undefined) withPosition.add(Math.floor((state.time - t0) / 1000))
    }
    const covered = walking.filter((s) => withPosition.has(s)).length
    console.log(`walking tag: a state with a position in ${covered} of ${walking.length} walking seconds`)
    // The publishing side is complete: each second the tracker reported a move went out.
    expect(movedAt.size).toBeGreaterThan(walking.length / 2)
    expect([...movedAt].filter((s) => !withPosition.has(s))).toEqual([])
    expect(covered / walking.length).toBeGreaterThanOrEqual(MIN_SHARE)
  }, 300_000)
})
