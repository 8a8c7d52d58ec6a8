// The MQTT contract of DESIGN.md section 6 against a real Mosquitto: a virtual-time replay of
// the demo recording through BeaconScanner and MqttPublisher, a subscriber collecting every
// message (MQTT 5, retain as published, so retain flags and QoS are those the publisher used).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'
import { readFileSync } from 'node:fs'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import type { Beacon } from '../../src/reading.js'
import type { BeaconChanges } from '../../src/range/merge.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { gateAnnounced } from '../support/ha-schema.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { publishReplay } from '../support/publish-replay.js'
import type { Received } from '../support/mqtt-subscriber.js'

const DEMO = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))
const TEST_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
const P = 'beaconkit/gateways/hall'

interface Run {
  messages: Received[]
  found: { id: string; time: number }[]
  gone: { id: string; time: number }[]
  changed: { id: string; time: number; changes: BeaconChanges }[]
  ticks: number[]
  /** Advertisements per address. */
  adverts: Map<string, number>
  beacons: Map<string, Beacon>
  retained: Map<string, string>
  retainedAfterClose: Map<string, string>
}

async function replayThroughBroker(url: string): Promise<Run> {
  const sub = await Subscriber.connect(url, ['beaconkit/#', 'homeassistant/#', 'beaconkit-test/marker/#'], { protocolVersion: 5 })
  const source = new ReplaySource(DEMO, { virtual: true })
  const scanner = new BeaconScanner({ source, keys: [TEST_KEY] })
  const publisher = new MqttPublisher({ url, gatewayId: 'hall', homeAssistant: true })
  const run: Run = { messages: sub.messages, found: [], gone: [], changed: [], ticks: [], adverts: new Map(), beacons: new Map(), retained: new Map(), retainedAfterClose: new Map() }
  const now = (): number => scanner.clock.now()
  source.on('advertisement', (a) => run.adverts.set(a.address, (run.adverts.get(a.address) ?? 0) + 1))
  scanner.on('found', (b) => {
    run.found.push({ id: b.id, time: now() })
    run.beacons.set(b.id, b)
  })
  scanner.on('gone', (b) => run.gone.push({ id: b.id, time: now() }))
  scanner.on('changed', (b, changes) => run.changed.push({ id: b.id, time: now(), changes }))
  scanner.on('updated', () => run.ticks.push(now()))
  await publishReplay(scanner, publisher)
  await sub.sync()
  run.retained = await retainedMessages(url, ['beaconkit/#', 'homeassistant/#'])
  await publisher.close()
  run.retainedAfterClose = await retainedMessages(url, ['beaconkit/#', 'homeassistant/#'])
  await sub.close()
  return run
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('MqttPublisher against Mosquitto: the DESIGN.md section 6 contract'), () => {
  let broker: Mosquitto
  let run: Run

  beforeAll(async () => {
    broker = await Mosquitto.start()
    run = await replayThroughBroker(broker.url)
  }, 120_000)

  afterAll(async () => {
    await broker?.close()
  })

  it('publishes status online (retained, QoS 1) first, and offline on a clean close', () => {
    const status = run.messages.filter((m) => m.topic === `${P}/status`)
    expect(status.length).toBeGreaterThanOrEqual(2)
    for (const m of status) expect([m.retain, m.qos]).toEqual([true, 1])
    const first = JSON.parse(status[0].payload) as Record<string, unknown>
    // Home Assistant is on here: the online form carries the beacons in range (the will does not).
    expect(first).toEqual({ state: 'online', time: expect.any(Number), version: VERSION, beacons: expect.any(Number) })
    expect(JSON.parse(run.retained.get(`${P}/status`) as string)).toMatchObject({ state: 'online' })
    const last = JSON.parse(run.retainedAfterClose.get(`${P}/status`) as string) as Record<string, unknown>
    expect(last).toEqual({ state: 'offline', time: expect.any(Number), version: VERSION })
    // On the scanner's clock: the replay's end.
    expect(last.time as number).toBeGreaterThanOrEqual(run.gone[run.gone.length - 1].time)
  })

  it('sends the found / gone / changed events of the --json output, QoS 1, not retained, no RSSI-only changes', () => {
    const events = run.messages.filter((m) => m.topic === `${P}/events`)
    for (const m of events) expect([m.retain, m.qos]).toEqual([false, 1])
    const parsed = events.map((m) => JSON.parse(m.payload) as { event: string; time: number; beacon: Beacon; changes?: BeaconChanges })
    const summary = (e: string): { id: string; time: number }[] => parsed.filter((p) => p.event === e).map((p) => ({ id: p.beacon.id, time: p.time }))
    expect(summary('found')).toEqual(run.found)
    expect(summary('gone')).toEqual(run.gone)
    const scannerChanges = run.changed.filter((c) => Object.keys(c.changes).some((k) => k !== 'rssi'))
    expect(run.changed.length).toBeGreaterThan(scannerChanges.length) // the recording has RSSI-only changes to leave out
    expect(scannerChanges.length).toBeGreaterThan(0)
    // Found on the update tick: each non-RSSI change of the scanner is in the next tick's event,
    // with the value the beacon had then; nothing else is.
    const changed = parsed.filter((p) => p.event === 'changed')
    expect(changed.length).toBeLessThanOrEqual(scannerChanges.length)
    for (const c of scannerChanges) {
      for (const field of Object.keys(c.changes).filter((k) => k !== 'rssi')) {
        const tick = run.ticks.find((t) => t >= c.time) as number
        const event = changed.find((p) => p.beacon.id === c.id && p.time === tick)
        expect(event?.changes, `${c.id} ${field} at ${c.time}`).toHaveProperty(field)
        expect((event?.changes as Record<string, { new: unknown }>)[field].new).toEqual(event?.beacon[field as keyof Beacon])
      }
    }
    for (const p of changed) {
      expect(run.ticks).toContain(p.time)
      expect(Object.keys(p.changes ?? {}).length).toBeGreaterThan(0)
      expect(Object.keys(p.changes ?? {})).not.toContain('rssi')
    }
    expect(parsed.every((p) => ['found', 'gone', 'changed'].includes(p.event))).toBe(true)
    // The beacon member is the scanner's Beacon object, as --json prints it.
    const found = parsed.find((p) => p.event === 'found') as { beacon: Beacon }
    expect(found.beacon).toEqual(JSON.parse(JSON.stringify(run.beacons.get(found.beacon.id))))
  })

  it('keeps a retained state per beacon, QoS 1, cleared with an empty retained message when it is gone', () => {
    const states = run.messages.filter((m) => m.topic.startsWith(`${P}/beacons/`))
    expect(states.length).toBeGreaterThan(0)
    for (const m of states) expect([m.retain, m.qos]).toEqual([true, 1])
    const ids = new Set(run.found.map((f) => f.id))
    for (const id of ids) {
      const mine = states.filter((m) => m.topic === `${P}/beacons/${id}`)
      expect(mine.length, id).toBeGreaterThanOrEqual(2)
      const first = JSON.parse(mine[0].payload) as Beacon
      expect(first.id).toBe(id)
      expect(first.inRange).toBe(true)
      expect(mine[mine.length - 1].payload).toBe('')
    }
    // A virtual replay ends with every beacon gone: nothing of them stays retained.
    expect([...run.retained.keys()].filter((t) => t.startsWith(`${P}/beacons/`))).toEqual([])
  })

  it('sends one RSSI batch per tick with something heard (QoS 0), with packet counts', () => {
    const batches = run.messages.filter((m) => m.topic === `${P}/rssi`)
    for (const m of batches) expect([m.retain, m.qos]).toEqual([false, 0])
    const parsed = batches.map((m) => JSON.parse(m.payload) as RssiBatch)
    expect(parsed.length).toBeGreaterThan(60)
    const times = parsed.map((b) => b.time)
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(1000)
    for (const b of parsed) {
      expect(run.ticks).toContain(b.time)
      expect(b.gateway).toBe('hall')
      expect(b.readings.length).toBeGreaterThan(0)
      expect(new Set(b.readings.map((r) => r.id)).size).toBe(b.readings.length)
      for (const r of b.readings) {
        expect(Object.keys(r).sort()).toEqual(r.measuredPower === undefined ? ['count', 'id', 'lastSeen', 'rssi'] : ['count', 'id', 'lastSeen', 'measuredPower', 'rssi'])
        expect(r.lastSeen).toBeLessThanOrEqual(b.time)
        expect(r.count).toBeGreaterThanOrEqual(1)
      }
    }
    // Every packet of a tracked beacon is counted once; only packets heard before the scanner
    // tracked the beacon (held until a private broadcast verified) are in no batch.
    const counted = new Map<string, number>()
    for (const b of parsed) for (const r of b.readings) counted.set(r.id, (counted.get(r.id) ?? 0) + r.count)
    for (const [id, beacon] of run.beacons) {
      const sent = run.adverts.get(beacon.address) ?? 0
      expect(counted.get(id), id).toBeLessThanOrEqual(sent)
      expect(counted.get(id), id).toBeGreaterThanOrEqual(sent - 3)
    }
  })

  it('leaves Home Assistant discovery configs retained, one device per beacon the gate admits', () => {
    const configs = [...run.retained].filter(([t]) => t.startsWith('homeassistant/'))
    const announced = gateAnnounced(run.messages.filter((m) => m.topic.startsWith(`${P}/beacons/`)).map((m) => m.payload))
    // The demo recording has beacons of both kinds: admitted, and short-lived or known by address only.
    expect(announced.size).toBeGreaterThan(0)
    expect(announced.size).toBeLessThan(run.beacons.size)
    expect(configs.length).toBeGreaterThan(announced.size)
    for (const id of run.beacons.keys()) {
      const obj = id.toLowerCase().replace(/[^a-z0-9]/g, '_')
      expect(run.retained.has(`homeassistant/sensor/beaconkit_hall/${obj}_rssi/config`), id).toBe(announced.has(id))
    }
  })
})
