// A simulated site on the embedded broker (aedes, nothing to install): every gateway's stream
// through a real BeaconScanner and MqttPublisher, a FleetTracker on the same broker in lockstep
// virtual time, and a gateway killed without a clean close (its last will tells the tracker).
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetGatewayEvent } from '../../src/fleet/tracker-types.js'
import { runSite } from '../../src/gateway/run-site.js'
import type { RunningSite } from '../../src/gateway/run-site.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'
import { MqttError } from '../../src/errors.js'
import { waitFor } from '../integration/wait.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { startSilentBroker } from '../support/silent-broker.js'

const DEMO = JSON.parse(readFileSync(new URL('../../fixtures/site-demo.json', import.meta.url), 'utf8')) as Record<string, unknown>

describe('runSite on the embedded broker', () => {
  let broker: RunningBroker | undefined
  let tracker: FleetTracker | undefined
  let running: RunningSite | undefined

  afterEach(async () => {
    await running?.close()
    await tracker?.stop()
    await broker?.close()
    running = undefined
    tracker = undefined
    broker = undefined
  })

  it('runs four gateways into a fleet tracker; a killed gateway fires its last will, its beacons stay and are still positioned', async () => {
    broker = await startBroker({ port: 0 })
    const sim = SiteSimulator.fromJSON(DEMO, { virtual: true, seed: 11 })
    const clock = sim.clock
    if (clock === undefined) throw new Error('virtual simulator without a clock')
    const t = new FleetTracker({ url: broker.url, clientId: 'run-site-tracker', site: sim.site, clock, goneTimeoutMs: 15_000, publishIntervalMs: 5000 })
    tracker = t
    const gone: string[] = []
    const gateways: FleetGatewayEvent[] = []
    t.on('gone', (b) => gone.push(b.id))
    t.on('gateway', (e) => gateways.push(e))
    await t.start()
    const site = await runSite({ simulator: sim, url: broker.url, clientIdPrefix: 'run-site-test', publisher: { minIntervalMs: 1000, heartbeatMs: 10_000 } })
    running = site
    expect(site.gateways).toEqual(['kitchen-pi', 'living-pi', 'office-pi', 'bedroom-pi'])
    await waitFor(() => gateways.filter((e) => e.state === 'online').length === 4, 'four gateways online', 20_000)

    // Lockstep: a second of the site, then wait until the tracker has every batch it produced.
    const t0 = clock.now()
    const step = async (until: number): Promise<void> => {
      for (let at = clock.now() + 1000; at <= until; at += 1000) {
        await site.advanceTo(at)
        await waitFor(() => t.stats.batches >= site.rssiBatches(), `the tracker to catch up at +${at - t0} ms`, 30_000)
      }
    }
    await step(t0 + 20_000)
    expect(site.rssiBatches()).toBeGreaterThan(40)
    const present = new Set(t.beacons().map((b) => b.id))
    for (const serial of ['0117C5D00001', '0117C5D00002', '0117C5D00003', '0117C5D00004', '0117C5D00005']) expect(present).toContain(serial)
    // The kettle stands in the kitchen: the tracker says so, from the kitchen gateway above all.
    expect(t.get('0117C5D00002')?.room).toBe('Kitchen')
    expect(t.get('0117C5D00002')?.gateways[0]?.gateway).toBe('kitchen-pi')
    expect(t.get('0117C5D00002')?.gateways.length).toBeGreaterThan(1)

    // The kitchen gateway dies: no DISCONNECT, so the broker sends its will and the tracker hears it.
    await site.kill('kitchen-pi')
    // The tracker positions beacons itself (the site places its gateways): the kettle's position
    // must keep being renewed from the gateways that remain, each second's against the truth.
    const killedAt = clock.now()
    const kettle: { error: number; accuracy: number; x: number; y: number }[] = []
    t.on('updated', (list) => {
      const p = list.find((b) => b.id === '0117C5D00002')?.position
      const truth = sim.truth('0117C5D00002', clock.now())
      if (p !== undefined && truth !== undefined && clock.now() > killedAt) kettle.push({ error: Math.hypot(p.x - truth.x, p.y - truth.y), accuracy: p.accuracy, x: p.x, y: p.y })
    })
    expect(site.gateway('kitchen-pi').alive).toBe(false)
    await waitFor(() => gateways.some((e) => e.gateway === 'kitchen-pi' && e.state === 'offline'), "the kitchen gateway's last will", 20_000)
    expect(site.gateway('kitchen-pi').publisher.stats.byKind.status).toBe(1)
    await step(t0 + 45_000)
    // A position every second after the kill, each a new estimate, and near the truth: without
    // packets the accuracy would keep growing (past 6 m by the end), not stay near 3 m.
    expect(kettle.length).toBeGreaterThanOrEqual(24)
    for (let i = 1; i < kettle.length; i++) expect([kettle[i].x, kettle[i].y, kettle[i].accuracy]).not.toEqual([kettle[i - 1].x, kettle[i - 1].y, kettle[i - 1].accuracy])
    for (const k of kettle) {
      expect(k.accuracy).toBeLessThan(4.5)
      expect(k.error).toBeLessThan(5)
    }
    // The kettle is heard through the walls by the others: still present, never gone.
    expect(gone).not.toContain('0117C5D00002')
    expect(t.get('0117C5D00002')?.gateways.map((g) => g.gateway)).not.toContain('kitchen-pi')
    expect(sim.lastHeard('0117C5D00002')?.gateway).not.toBe('kitchen-pi')

    // Back again: a new connection says online.
    await site.restart('kitchen-pi')
    await waitFor(() => gateways.filter((e) => e.gateway === 'kitchen-pi').map((e) => e.state).join() === 'online,offline,online', 'the kitchen gateway online again', 20_000)
    await step(t0 + 50_000)
    expect(t.get('0117C5D00002')?.gateways.map((g) => g.gateway)).toContain('kitchen-pi')
  }, 120_000)

  it('closes every gateway through its root (scanner, then publisher: status offline) and reports what was delivered', async () => {
    broker = await startBroker({ port: 0 })
    const sim = SiteSimulator.fromJSON(DEMO, { virtual: true, seed: 5 })
    const clock = sim.clock
    if (clock === undefined) throw new Error('virtual simulator without a clock')
    const site = await runSite({ simulator: sim, url: broker.url, clientIdPrefix: 'run-site-close', publisher: { minIntervalMs: 1000, heartbeatMs: 10_000 } })
    running = site
    const t0 = clock.now()
    for (let at = t0 + 1000; at <= t0 + 10_000; at += 1000) await site.advanceTo(at)
    const heard = await retainedMessages(broker.url, 'beaconkit/gateways/+/beacons/#')
    expect(heard.size).toBeGreaterThan(0)
    const result = await site.close(5000)
    running = undefined
    expect(result).toEqual({ delivered: true, lost: 0, kept: 0 })
    const retained = await retainedMessages(broker.url, 'beaconkit/gateways/#')
    for (const id of site.gateways) expect(JSON.parse(retained.get(`beaconkit/gateways/${id}/status`) ?? '{}')).toMatchObject({ state: 'offline' })
    expect(site.gateways.map((id) => site.gateway(id).alive)).toEqual([false, false, false, false])
  }, 60_000)

  it("hands close's deadline to every publisher: a broker that acknowledges nothing costs that deadline, and close says what was not delivered", async () => {
    const silent = await startSilentBroker({ puback: false })
    try {
      const sim = SiteSimulator.fromJSON(DEMO, { virtual: true, seed: 5 })
      const site = await runSite({ simulator: sim, url: silent.url, clientIdPrefix: 'run-site-silent' })
      const began = Date.now()
      const result = await site.close(400)
      // Far below the publisher's own 5 s default: the 400 ms reached it (plus the DISCONNECT's grace).
      expect(Date.now() - began).toBeLessThan(3500)
      expect(result.delivered).toBe(false)
    } finally {
      await silent.close()
    }
  }, 30_000)

  it('says which broker it cannot reach', async () => {
    const sim = SiteSimulator.fromJSON(DEMO, { virtual: true })
    // A port nobody listens on (the broker is closed before use).
    const b = await startBroker({ port: 0 })
    const url = b.url
    await b.close()
    const error = await runSite({ simulator: sim, url, connectTimeoutMs: 1500 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MqttError)
    expect((error as MqttError).message).toMatch(/could not reach the broker mqtt:\/\/127\.0\.0\.1:\d+ within 1500 ms/)
  })
})
