// End to end, as a user runs it (issue #24, /work/briefs/ha-contract.md): real processes
// `beaconkit fleet --site fixtures/site-demo.json --ha` (two of them, on one host and one broker)
// and `beaconkit simulate --site fixtures/site-demo.json --ha` (four gateways) against a real
// Mosquitto; a Home Assistant judge (test/support/ha-judge.ts) reads the live stream once a second
// and, at the end, every retained message (a restart). What it must show: every beacon the fleet
// announced `home` and then `not_home` once the simulation stopped, its room sensor the room the
// fleet published on `<p>/fleet/presence/<id>`, the gateways' connectivity entities (on, then
// off), no per-gateway beacon entities (the gateways saw the fleet), and no flips from the second
// fleet. The simulator stops its gateways only all together: "one gateway stops, nothing flips" is
// judged through the publisher API in test/mqtt/ha-judge.mosquitto.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { discoveryProblems, jinjaAvailable } from '../support/ha-schema.js'
import { HaJudge } from '../support/ha-judge.js'
import { jsonLines, startCli } from './run-cli.js'
import type { CliResult } from './run-cli.js'

const JINJA = jinjaAvailable()
const SKIP = JINJA ? '' : ' [skipped: /usr/bin/python3 lacks jinja2 (apt-get install -y python3-jinja2)]'
const SITE = 'fixtures/site-demo.json'
const GATEWAYS = ['kitchen-pi', 'living-pi', 'office-pi', 'bedroom-pi']
/** Seconds the simulation runs: past the 2 s discovery dwell, short enough to keep the suite fast. */
const SIMULATE_S = 8
const HA_FLAGS = ['--ha', '--ha-dwell', '2']

/** What the judge showed at one moment (real time, ms). */
interface Sample {
  at: number
  phase: 'running' | 'stopped'
  shown: Map<string, string>
}

/** Consecutive distinct values: ['a', 'a', 'b', 'a'] → ['a', 'b', 'a']. */
const runs = (values: readonly string[]): string[] => values.filter((v, i) => i === 0 || v !== values[i - 1])

describe.skipIf(!MOSQUITTO || !JINJA)(needsMosquitto(`Home Assistant end to end: beaconkit simulate --site --ha with two beaconkit fleet --ha, through Mosquitto${SKIP}`), () => {
  let broker: Mosquitto
  let sub: Subscriber
  const judge = new HaJudge()
  const samples: Sample[] = []
  const fleets: ReturnType<typeof startCli>[] = []
  let fleetResults: CliResult[] = []
  let simulated: CliResult
  let retained = new Map<string, string>()
  let restarted = new Map<string, string>()
  /** Device tracker unique_id → beacon id, for every device_tracker config the fleet published. */
  const announced = new Map<string, string>()

  let read = 0
  const sample = async (phase: Sample['phase']): Promise<void> => {
    await sub.sync()
    const batch = sub.messages.slice(read).filter((m) => !m.topic.startsWith('beaconkit-test/'))
    read = sub.messages.length
    judge.receive(batch.map((m) => ({ topic: m.topic, payload: m.payload, retain: m.retain })), Date.now())
    samples.push({ at: Date.now(), phase, shown: new Map([...judge.entities.values()].map((e) => [String(e.config.unique_id), e.shown])) })
  }
  /** The beacons whose presence says present:false, among those announced. */
  const goneOnes = (): string[] => [...announced.values()].filter((id) => (JSON.parse(sub.on(`beaconkit/fleet/presence/${id}`).at(-1)?.payload || '{}') as { present?: boolean }).present === false)

  beforeAll(async () => {
    broker = await Mosquitto.start()
    sub = await Subscriber.connect(broker.url, ['beaconkit/#', 'homeassistant/#', 'beaconkit-test/marker/#'], { protocolVersion: 5 })
    // Two fleets on one host (their default client ids differ), started before the gateways, so
    // the gateways find a fleet's retained status and announce no beacon of their own.
    for (let i = 0; i < 2; i++) fleets.push(startCli(['fleet', '--mqtt', broker.url, '--site', SITE, ...HA_FLAGS, '--json']))
    await sub.until((ms) => ms.some((m) => m.topic === 'beaconkit/fleet/status' && m.payload.includes('online')), 'a fleet online', 30_000)
    const simulation = startCli(['simulate', '--site', SITE, '--mqtt', broker.url, ...HA_FLAGS, '--duration', String(SIMULATE_S)])
    let running = true
    void simulation.done.then(() => {
      running = false
    })
    while (running) {
      await sample('running')
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    simulated = await simulation.done
    await sample('stopped')
    for (const [topic, payload] of sub.messages.map((m) => [m.topic, m.payload] as const)) {
      const m = /^homeassistant\/device_tracker\/beaconkit_([^/]+)\/config$/.exec(topic)
      if (m === null || payload === '') continue
      const config = JSON.parse(payload) as { unique_id: string; json_attributes_topic?: string; state_topic?: string }
      announced.set(config.unique_id, (config.json_attributes_topic ?? config.state_topic ?? '').split('/').at(-1) ?? '')
    }
    // Every announced beacon goes after the fleet's gone timeout (30 s) once nothing hears it.
    const deadline = Date.now() + 60_000
    while (goneOnes().length < announced.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      await sample('stopped')
    }
    await sample('stopped')
    retained = await retainedMessages(broker.url, ['beaconkit/#', 'homeassistant/#'])
    judge.restart(Date.now(), retained)
    restarted = new Map([...judge.entities.values()].map((e) => [String(e.config.unique_id), e.shown]))
    for (const f of fleets) f.child.kill('SIGINT')
    fleetResults = await Promise.all(fleets.map((f) => f.done))
    const table = [...announced].map(([uid, id]) => `    ${id}  ${runs(samples.map((s) => s.shown.get(uid) ?? '-')).join(' → ')}  | room ${runs(samples.map((s) => s.shown.get(uid.replace(/_presence$/, '_room')) ?? '-')).join(' → ')}  | after restart ${restarted.get(uid) ?? '-'}`)
    console.log(`${samples.length} samples, ${announced.size} device_trackers announced:\n${table.join('\n')}\ngateways: ${GATEWAYS.map((g) => `${g} ${runs(samples.map((s) => s.shown.get(`beaconkit_gw_${g}_connectivity`) ?? '-')).join(' → ')}`).join(', ')}`)
  }, 150_000)

  afterAll(async () => {
    for (const f of fleets) f.child.kill('SIGKILL')
    await sub?.close()
    await broker?.close()
  })

  it('the simulation and both fleets ran and ended cleanly; no session was taken over, no takeover warning', () => {
    expect(simulated.code, simulated.stderr).toBe(0)
    for (const r of fleetResults) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toMatch(/client id|taken over|takeover/i)
      expect(jsonLines(r.stdout).some((e) => e.event === 'found')).toBe(true)
    }
    expect(broker.takeovers()).toBe(0)
  })

  it('every announced beacon: device_tracker home while simulated, not_home after it left; the same after a restart', () => {
    expect(announced.size).toBeGreaterThanOrEqual(3)
    for (const [uid, id] of announced) {
      const running = runs(samples.filter((s) => s.phase === 'running').map((s) => s.shown.get(uid) ?? '-').filter((v) => v !== '-'))
      // Announced once home: no flip back and forth while the simulation runs (two fleets write it).
      expect(running, id).toEqual(['home'])
      expect(samples.at(-1)?.shown.get(uid), id).toBe('not_home')
      expect(restarted.get(uid), id).toBe('not_home')
    }
  })

  it('room sensors show the room the fleet published on <p>/fleet/presence/<id>, with no more changes than a fleet decided', () => {
    // Room events per beacon, the most either fleet decided (the first placement is one too).
    const decided = new Map<string, number>()
    for (const r of fleetResults) {
      const mine = new Map<string, number>()
      for (const e of jsonLines(r.stdout)) if (e.event === 'room') mine.set((e.beacon as { id: string }).id, (mine.get((e.beacon as { id: string }).id) ?? 0) + 1)
      for (const [id, n] of mine) decided.set(id, Math.max(decided.get(id) ?? 0, n))
    }
    for (const [uid, id] of announced) {
      const roomId = uid.replace(/_presence$/, '_room')
      const last = JSON.parse(retained.get(`beaconkit/fleet/presence/${id}`) ?? '{}') as { present?: boolean; room?: string }
      expect(last.present, id).toBe(false)
      expect(restarted.get(roomId), id).toBe('away')
      const shown = runs(samples.filter((s) => s.phase === 'running').map((s) => s.shown.get(roomId) ?? '-').filter((v) => v !== '-' && v !== 'unknown'))
      const published = new Set(sub.on(`beaconkit/fleet/presence/${id}`).map((m) => (JSON.parse(m.payload || '{}') as { room?: string }).room).filter((r) => r !== undefined))
      expect(shown.length, id).toBeGreaterThan(0)
      for (const room of shown) expect(published, `${id} shows ${room}`).toContain(room)
      expect(shown.length, `${id}: ${shown.join(' → ')}`).toBeLessThanOrEqual(decided.get(id) ?? 0)
    }
  })

  it('each gateway has its connectivity entity (on while simulated, off after) and no beacon entity of its own', () => {
    for (const gw of GATEWAYS) {
      const uid = `beaconkit_gw_${gw}_connectivity`
      expect(retained.has(`homeassistant/binary_sensor/beaconkit_gw_${gw}/connectivity/config`), gw).toBe(true)
      expect(samples.filter((s) => s.phase === 'running').some((s) => s.shown.get(uid) === 'on'), gw).toBe(true)
      expect(samples.at(-1)?.shown.get(uid), gw).toBe('off')
      expect(restarted.get(uid), gw).toBe('off')
    }
    const own = sub.messages.filter((m) => m.payload !== '' && new RegExp(`^homeassistant/[a-z_]+/beaconkit_(${GATEWAYS.join('|')})/`).test(m.topic))
    expect(own.map((m) => m.topic)).toEqual([])
    for (const [topic, payload] of retained) if (topic.startsWith('homeassistant/')) expect(discoveryProblems(topic, payload), topic).toEqual([])
  })
})
