// `queueDir`: events wait on disk while the broker is away, go out after the current state on
// reconnect, in order, and leave the disk only once the broker acknowledged them. A gateway
// killed (SIGKILL) while the broker was down delivers its events after a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { EventEmitter } from 'eventemitter3'
import { RealClock } from '../../src/clock.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import type { PublisherEventSource } from '../../src/mqtt/publisher-types.js'
import type { MqttDropInfo } from '../../src/mqtt/outbox-types.js'
import type { Beacon } from '../../src/reading.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { Subscriber } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'
import { InvalidOptionError } from '../../src/errors.js'
import { encodeAckSlot, encodeFrame, encodePayload, segmentName } from '../../src/queue/journal.js'

const DIST = pathToFileURL(join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'index.js')).href
const P = 'beaconkit/gateways/hall'
const CLIENT = 'beaconkit-queue-dir-test'

/** A scanner stand-in that announces beacons on demand (only `found` matters here). */
class Announcer extends EventEmitter implements PublisherEventSource {
  readonly clock = new RealClock()
  beacons(): Beacon[] {
    return []
  }
  announce(id: string): void {
    this.emit('found', { id, address: 'aa:00:00:00:00:01', rssi: -60, inRange: true } as unknown as Beacon)
  }
}

function eventIds(sub: Subscriber): string[] {
  return sub.on(`${P}/events`).map((m) => (JSON.parse(m.payload) as { beacon: { id: string } }).beacon.id)
}

describe('MqttPublisher queueDir options', () => {
  it('refuses an empty queueDir and a disk bound below 64 KiB, naming the option', () => {
    expect(() => new MqttPublisher({ url: 'mqtt://127.0.0.1:1', gatewayId: 'hall', queueDir: '' })).toThrow(InvalidOptionError)
    expect(() => new MqttPublisher({ url: 'mqtt://127.0.0.1:1', gatewayId: 'hall', maxQueueBytes: -1 })).toThrow(expect.objectContaining({ option: 'maxQueueBytes' }) as Error)
  })

  it('rejects connect() with a typed error when the queue directory is locked by another queue', async () => {
    const locked = await mkdtemp(join(tmpdir(), 'beaconkit-mqtt-queue-'))
    const first = new MqttPublisher({ url: 'mqtt://127.0.0.1:1', gatewayId: 'hall', queueDir: locked, reconnect: { initialDelayMs: 60_000 } })
    first.on('error', () => undefined)
    await first.connect()
    const second = new MqttPublisher({ url: 'mqtt://127.0.0.1:1', gatewayId: 'hall', queueDir: locked })
    await expect(second.connect()).rejects.toMatchObject({ code: 'queue_locked' })
    await first.close()
    await second.close()
    await rm(locked, { recursive: true, force: true })
  })
})

describe('MqttPublisher queueDir damage reports', () => {
  it('emits a warning for a damaged ack file and dropped events (with their segment) for a deleted segment, at connect()', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-mqtt-queue-'))
    const records = Array.from({ length: 12 }, (_, i) => ({ topic: `${P}/events`, payload: `e${i}` }))
    await writeFile(join(dir, segmentName(1)), Buffer.concat(records.map((r, i) => encodeFrame(i + 1, encodePayload(r)))))
    await writeFile(join(dir, 'written'), '20')
    await writeFile(join(dir, 'ack'), Buffer.concat([encodeAckSlot(5000), encodeAckSlot(5000)]))
    const publisher = new MqttPublisher({ url: 'mqtt://127.0.0.1:1', gatewayId: 'hall', queueDir: dir, reconnect: { initialDelayMs: 60_000 } })
    publisher.on('error', () => undefined)
    const warnings: string[] = []
    const drops: MqttDropInfo[] = []
    publisher.on('warning', (w) => warnings.push(w.code))
    publisher.on('dropped', (d) => drops.push(d))
    await publisher.connect()
    expect(warnings).toEqual(['ack_invalid'])
    // Seqs 13 to 20 were written (the watermark says so) but no segment holds them: the clean
    // segment before ends at 12, so the file from 13 on is gone.
    expect(drops).toEqual([{ count: 8, reason: 'missing', kind: 'event', segment: segmentName(13) }])
    expect(publisher.stats.diskQueued).toBe(12)
    await publisher.close()
    await rm(dir, { recursive: true, force: true })
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('MqttPublisher with queueDir against Mosquitto'), () => {
  let broker: Mosquitto
  let dir: string

  beforeAll(async () => {
    broker = await Mosquitto.start({ logPublishes: true })
  })

  afterAll(async () => {
    await broker?.close()
  })

  it('keeps events on disk while the broker is down and sends them after the current state, then deletes them', async () => {
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-mqtt-queue-'))
    const source = new Announcer()
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'hall', clientId: CLIENT, queueDir: dir, reconnect: { initialDelayMs: 50, maxDelayMs: 400 } })
    const drops: MqttDropInfo[] = []
    publisher.on('dropped', (d) => drops.push(d))
    publisher.attach(source)
    let connections = 0
    publisher.on('connected', () => connections++)
    await publisher.connect()
    await waitFor(() => connections === 1, 'the first connection')

    const disconnected = new Promise<void>((resolve) => publisher.once('disconnected', () => resolve()))
    await broker.stop()
    await disconnected
    broker.clearLog()
    for (let i = 0; i < 50; i++) source.announce(`B${String(i).padStart(2, '0')}`)
    await waitFor(() => publisher.stats.diskQueued === 50, '50 events written to the queue directory')
    expect((await readdir(dir)).some((name) => name.endsWith('.seg'))).toBe(true)

    await broker.restart()
    await waitFor(() => connections === 2, 'the reconnection', 30_000)
    expect(await publisher.flush(20_000)).toBe(true)
    expect(publisher.stats.diskQueued).toBe(0)
    expect(drops).toEqual([])

    const received = broker.received(CLIENT)
    expect(received[0]).toMatchObject({ topic: `${P}/status`, qos: 1, retain: true })
    const events = received.filter((r) => r.topic === `${P}/events`)
    expect(events).toHaveLength(50)
    expect(events.every((e) => e.qos === 1 && !e.retain)).toBe(true)
    // Current state (one per beacon) before the queued events.
    const lastState = received.findLastIndex((r) => r.topic.startsWith(`${P}/beacons/`))
    expect(received.findIndex((r) => r.topic === `${P}/events`)).toBeGreaterThan(lastState)
    await publisher.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('delivers the events of a gateway killed (SIGKILL) while the broker was down, after broker and gateway restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-mqtt-queue-'))
    const script = `
      import { MqttPublisher, RealClock } from ${JSON.stringify(DIST)}
      import { EventEmitter } from 'eventemitter3'
      const [url, dir, mode] = process.argv.slice(1)
      const source = new EventEmitter()
      source.clock = new RealClock()
      source.beacons = () => []
      const p = new MqttPublisher({ url, gatewayId: 'hall', queueDir: dir, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } })
      p.on('error', () => {})
      p.attach(source)
      await p.connect()
      if (mode === 'queue') {
        for (let i = 0; i < 30; i++) source.emit('found', { id: 'K' + String(i).padStart(2, '0'), address: 'aa:00:00:00:00:01', rssi: -60, inRange: true })
        const wait = setInterval(() => {
          if (p.stats.diskQueued === 30) {
            clearInterval(wait)
            console.log('queued ' + p.stats.state)
          }
        }, 5)
        setInterval(() => {}, 1000)
      } else {
        await new Promise((resolve) => p.once('connected', resolve))
        const ok = await p.flush(20000)
        console.log('delivered ' + ok + ' ' + p.stats.diskQueued)
        await p.close()
      }`
    const run = (mode: string): { child: ChildProcess; output: () => string } => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, broker.url, dir, mode], { stdio: ['ignore', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('../..', import.meta.url)) })
      let out = ''
      child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d))
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d))
      return { child, output: () => out }
    }
    const exited = (child: ChildProcess): Promise<[number | null, string | null]> =>
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve([child.exitCode, child.signalCode]) : new Promise((resolve) => child.once('exit', (c, s) => resolve([c, s])))

    await broker.stop()
    const first = run('queue')
    try {
      await waitFor(() => first.output().includes('queued'), 'the gateway to write its events to disk', 20_000)
      // Not connected: nothing of it can have reached a broker.
      expect(first.output()).toContain('queued connecting')
    } finally {
      first.child.kill('SIGKILL')
    }
    expect((await exited(first.child))[1]).toBe('SIGKILL')

    await broker.restart()
    const sub = await Subscriber.connect(broker.url, [`${P}/events`, 'beaconkit-test/marker/#'])
    const second = run('deliver')
    const [code] = await exited(second.child)
    expect(second.output()).toContain('delivered true 0')
    expect(code).toBe(0)
    await sub.sync()
    const expected = Array.from({ length: 30 }, (_, i) => `K${String(i).padStart(2, '0')}`)
    expect(eventIds(sub)).toEqual(expected)
    await sub.close()
    // Acknowledged events are gone from disk: a third run has nothing left to send.
    expect((await readdir(dir)).filter((name) => name.endsWith('.seg'))).toEqual([])
    await rm(dir, { recursive: true, force: true })
  }, 90_000)

  it('drops a queued record with an intact CRC but a wildcard topic (reported with its segment) and delivers the 198 others', async () => {
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-mqtt-queue-'))
    // A segment as an earlier run (or someone with write access to the directory) left it.
    const ids = Array.from({ length: 199 }, (_, i) => `W${String(i).padStart(3, '0')}`)
    const records = ids.map((id, i) => ({ topic: i === 99 ? 'beaconkit/#' : `${P}/events`, payload: JSON.stringify({ beacon: { id } }) }))
    const name = segmentName(1)
    await writeFile(join(dir, name), Buffer.concat(records.map((r, i) => encodeFrame(i + 1, encodePayload(r)))))
    const sub = await Subscriber.connect(broker.url, [`${P}/events`, 'beaconkit-test/marker/#'])
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'hall', clientId: CLIENT, queueDir: dir, reconnect: { initialDelayMs: 50, maxDelayMs: 400 } })
    const drops: MqttDropInfo[] = []
    publisher.on('dropped', (d) => drops.push(d))
    let connections = 0
    publisher.on('connected', () => connections++)
    await publisher.connect()
    expect(await publisher.flush(20_000)).toBe(true)
    await sub.sync()
    expect(eventIds(sub)).toEqual(ids.filter((_, i) => i !== 99))
    expect(drops).toEqual([{ count: 1, reason: 'corrupt', kind: 'event', segment: name }])
    // Never disconnected by the broker for a wildcard publish.
    expect(connections).toBe(1)
    await publisher.close()
    await sub.close()
    await rm(dir, { recursive: true, force: true })
  }, 60_000)

  it('delivers 300 of 300 events through 8 broker restarts, half of them queued while the broker was down', async () => {
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-mqtt-queue-'))
    const source = new Announcer()
    // A reconnect slower than the test's subscriber: it is subscribed before anything is sent. Each
    // wait is jittered between half and all of its step, so a 1.5 s step waits at least 750 ms.
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'hall', clientId: CLIENT, queueDir: dir, reconnect: { initialDelayMs: 1500, maxDelayMs: 1500 } })
    const drops: MqttDropInfo[] = []
    publisher.on('dropped', (d) => drops.push(d))
    publisher.on('error', () => undefined)
    let connections = 0
    publisher.on('connected', () => connections++)
    publisher.attach(source)
    let sub = await Subscriber.connect(broker.url, [`${P}/events`, 'beaconkit-test/marker/#'])
    await publisher.connect()
    await waitFor(() => connections === 1, 'the first connection')
    const seen = new Set<string>()
    let next = 0
    const announce = (n: number): void => {
      for (let k = 0; k < n && next < 300; k++) source.announce(`R${String(next++).padStart(3, '0')}`)
    }
    for (let restart = 1; restart <= 8; restart++) {
      announce(18)
      expect(await publisher.flush(20_000)).toBe(true)
      await sub.sync()
      for (const id of eventIds(sub)) seen.add(id)
      await sub.close()
      const disconnected = new Promise<void>((resolve) => publisher.once('disconnected', () => resolve()))
      await broker.stop()
      await disconnected
      announce(18)
      await waitFor(() => publisher.stats.diskQueued === 18, `the events of outage ${restart} on disk`)
      await broker.restart()
      sub = await Subscriber.connect(broker.url, [`${P}/events`, 'beaconkit-test/marker/#'])
      await waitFor(() => connections === restart + 1, `reconnection ${restart}`, 30_000)
    }
    announce(300 - next)
    expect(await publisher.flush(20_000)).toBe(true)
    await sub.sync()
    for (const id of eventIds(sub)) seen.add(id)
    await sub.close()
    expect(next).toBe(300)
    expect(seen.size).toBe(300)
    expect(drops).toEqual([])
    expect(publisher.stats.diskQueued).toBe(0)
    await publisher.close()
    await rm(dir, { recursive: true, force: true })
  }, 180_000)
})
