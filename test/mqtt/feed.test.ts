// What a gateway publishes, as a function of scanner events and time: the traffic rules of
// DESIGN.md section 6 (state on change at most every minIntervalMs, heartbeat, RSSI batch).
import { describe, expect, it } from 'vitest'
import { GatewayFeed } from '../../src/mqtt/feed.js'
import type { FeedSink } from '../../src/mqtt/feed.js'
import { GatewayTopics, checkGatewayId, checkTopicPrefix, haObjectId } from '../../src/mqtt/topics.js'
import type { Beacon } from '../../src/reading.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { InvalidOptionError } from '../../src/errors.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { VirtualClock } from '../../src/clock.js'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import { PushSource } from '../support/push-source.js'
import { T0, vendorLine } from '../sources/helpers.js'

const topics = new GatewayTopics('beaconkit', 'hall')

function beacon(id: string, over: Partial<Beacon> = {}): Beacon {
  return { id, address: `aa:00:00:00:00:${id.slice(-2)}`, rssi: -60, smoothedRssi: -60, timestamp: 0, frames: ['e780'], inRange: true, firstSeen: 0, lastSeen: 0, temperature: 21, ...over }
}

class Collect implements FeedSink {
  readonly out: { kind: string; topic: string; payload: string }[] = []
  putRetained(topic: string, payload: string): void {
    this.out.push({ kind: 'retained', topic, payload })
  }
  putEvent(topic: string, payload: string): void {
    this.out.push({ kind: 'event', topic, payload })
  }
  putVolatile(topic: string, payload: Buffer): void {
    this.out.push({ kind: 'rssi', topic, payload: payload.toString() })
  }
  states(id: string): string[] {
    return this.out.filter((m) => m.topic === topics.beacon(id)).map((m) => m.payload)
  }
  take(): { kind: string; topic: string; payload: string }[] {
    return this.out.splice(0)
  }
}

function feed(minIntervalMs = 5000, heartbeatMs = 60_000): { feed: GatewayFeed; sink: Collect } {
  const sink = new Collect()
  return { feed: new GatewayFeed(topics, { minIntervalMs, heartbeatMs }, sink, undefined), sink }
}

describe('GatewayFeed', () => {
  it('publishes a state on found, then changes at most every minIntervalMs, coalesced to the latest', () => {
    const { feed: f, sink } = feed()
    f.found(beacon('A1'), 0)
    expect(sink.states('A1')).toHaveLength(1)
    // Changes at the 1 s and 2 s ticks are events at once; the state is held...
    f.updated([beacon('A1', { temperature: 22 })], 1000)
    f.updated([beacon('A1', { temperature: 23 })], 2000)
    for (let t = 3000; t < 5000; t += 1000) f.updated([beacon('A1', { temperature: 23 })], t)
    expect(sink.states('A1')).toHaveLength(1)
    // ...and goes out once, with the latest value, when minIntervalMs has passed.
    f.updated([beacon('A1', { temperature: 23 })], 5000)
    const states = sink.states('A1')
    expect(states).toHaveLength(2)
    expect((JSON.parse(states[1]) as Beacon).temperature).toBe(23)
    const events = sink.out.filter((m) => m.kind === 'event').map((m) => JSON.parse(m.payload) as { event: string; time: number; changes?: unknown })
    expect(events.map((e) => [e.event, e.time])).toEqual([['found', 0], ['changed', 1000], ['changed', 2000]])
    expect(events[2].changes).toEqual({ temperature: { old: 22, new: 23 } })
  })

  it('coalesces several changes within one tick into one changed event from the previous tick\'s value', () => {
    const { feed: f, sink } = feed()
    f.found(beacon('A1', { temperature: 21, batteryLevel: 90 }), 0)
    f.updated([beacon('A1', { temperature: 25, batteryLevel: 89 })], 1000)
    const changed = sink.out.filter((m) => m.kind === 'event').map((m) => JSON.parse(m.payload) as { event: string; changes?: unknown }).filter((e) => e.event === 'changed')
    expect(changed).toEqual([expect.objectContaining({ changes: { temperature: { old: 21, new: 25 }, batteryLevel: { old: 90, new: 89 } } })])
  })

  it('publishes a change at once when the previous state is older than minIntervalMs', () => {
    const { feed: f, sink } = feed()
    f.found(beacon('A1'), 0)
    f.updated([beacon('A1', { temperature: 25 })], 7000)
    expect(sink.states('A1')).toHaveLength(2)
  })

  it('repeats an unchanged state on the heartbeat only', () => {
    const { feed: f, sink } = feed(5000, 60_000)
    f.found(beacon('A1'), 0)
    for (let t = 1000; t <= 180_000; t += 1000) f.updated([beacon('A1', { lastSeen: t })], t)
    expect(sink.states('A1')).toHaveLength(4) // 0, 60 s, 120 s, 180 s
  })

  it('sends no event and no state for RSSI-only changes', () => {
    const { feed: f, sink } = feed()
    f.found(beacon('A1'), 0)
    sink.take()
    f.updated([beacon('A1', { rssi: -75, smoothedRssi: -70, accuracy: 4.2, proximity: 'far' })], 6000)
    expect(sink.out.filter((m) => m.kind !== 'rssi')).toEqual([])
  })

  it('clears the retained state with an empty message when the beacon is gone', () => {
    const { feed: f, sink } = feed()
    f.found(beacon('A1'), 0)
    f.gone(beacon('A1', { inRange: false }), 9000)
    expect(sink.states('A1')).toEqual([expect.stringContaining('"id":"A1"'), ''])
    expect(JSON.parse(sink.out.filter((m) => m.kind === 'event').pop()?.payload as string)).toMatchObject({ event: 'gone', time: 9000, beacon: { id: 'A1', inRange: false } })
  })

  it('batches RSSI once per tick: only beacons heard since the last batch, with their packet counts', () => {
    const { feed: f, sink } = feed()
    const a = beacon('A1', { lastSeen: 900, measuredPower: -59 })
    const b = beacon('B2', { lastSeen: 500 })
    f.found(a, 100)
    f.found(b, 500)
    for (let i = 0; i < 3; i++) f.packet(a.address)
    f.packet(b.address)
    f.packet('ff:ff:ff:ff:ff:ff') // another device: no beacon, no reading
    f.updated([a, b], 1000)
    f.packet(a.address)
    f.updated([{ ...a, lastSeen: 1500, smoothedRssi: -61 }, b], 2000)
    f.updated([a, b], 3000) // nothing heard: no batch
    const batches = sink.out.filter((m) => m.kind === 'rssi').map((m) => JSON.parse(m.payload) as RssiBatch)
    expect(batches).toEqual([
      { gateway: 'hall', time: 1000, readings: [
        { id: 'A1', rssi: -60, measuredPower: -59, lastSeen: 900, count: 3 },
        { id: 'B2', rssi: -60, lastSeen: 500, count: 1 },
      ] },
      { gateway: 'hall', time: 2000, readings: [{ id: 'A1', rssi: -61, measuredPower: -59, lastSeen: 1500, count: 1 }] },
    ])
  })
})

describe('GatewayFeed ids that cannot be a topic level', () => {
  it('publishes no state, discovery config or reading of a beacon whose id the broker would refuse, and counts it', () => {
    const { feed: f, sink } = feed()
    const bad = beacon('CTRL\u0001', { address: 'aa:00:00:00:00:99', lastSeen: 900 })
    const ok = beacon('OK1', { lastSeen: 900 })
    f.found(bad, 100)
    f.found(ok, 100)
    f.updated([bad, ok], 1000)
    expect(sink.out.filter((m) => m.kind === 'retained').map((m) => m.topic)).toEqual([topics.beacon('OK1')])
    const batches = sink.out.filter((m) => m.kind === 'rssi').map((m) => JSON.parse(m.payload) as RssiBatch)
    expect(batches.flatMap((b) => b.readings.map((r) => r.id))).toEqual(['OK1'])
    expect(f.invalidIds).toBe(2)
  })
})

describe('topic names', () => {
  it('builds the DESIGN.md topics', () => {
    expect([topics.status, topics.events, topics.rssi, topics.beacon('0117C5456A36')]).toEqual([
      'beaconkit/gateways/hall/status',
      'beaconkit/gateways/hall/events',
      'beaconkit/gateways/hall/rssi',
      'beaconkit/gateways/hall/beacons/0117C5456A36',
    ])
  })

  it('refuses gateway ids outside [A-Za-z0-9_-]{1,128} with a typed error', () => {
    // Longer than 128: the fleet tracker would skip every message of that gateway.
    expect(checkGatewayId('g'.repeat(128))).toHaveLength(128)
    for (const bad of ['', 'a/b', 'a+b', '#', 'hall 1', 'häll', 42, 'g'.repeat(129)]) {
      expect(() => checkGatewayId(bad), String(bad)).toThrow(InvalidOptionError)
    }
    expect(checkGatewayId('Pi-3_b')).toBe('Pi-3_b')
    try {
      checkGatewayId('a/b')
    } catch (error) {
      expect((error as InvalidOptionError).code).toBe('invalid_option')
      expect((error as InvalidOptionError).option).toBe('gatewayId')
    }
  })

  it('refuses prefixes with wildcards or empty levels', () => {
    for (const bad of ['', 'a/+/b', '#', '/a', 'a/', 'a//b']) expect(() => checkTopicPrefix(bad), bad).toThrow(InvalidOptionError)
    expect(checkTopicPrefix('site/beaconkit')).toBe('site/beaconkit')
  })

  it('makes Home Assistant object ids from beacon ids', () => {
    expect(haObjectId('0117C5456A36')).toBe('0117c5456a36')
    expect(haObjectId('E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|100|1')).toBe('e2c56db5_dffb_48d2_b060_d0f5a71096e0_100_1')
    expect(haObjectId('c0:00:00:00:00:06')).toBe('c0_00_00_00_00_06')
  })

  it('writes the batch byte for byte as JSON.stringify of the contract object, ids escaped, odd numbers as null, RSSI to a tenth', () => {
    const { feed: f, sink } = feed()
    const odd = beacon('id "with" \\ quotes \u00e9', { lastSeen: 900, smoothedRssi: -61.5, measuredPower: -59 })
    const plain = beacon('B2', { lastSeen: 950, smoothedRssi: Number.NaN })
    // Not from a scanner (whose smoothed RSSI is in tenths already): rounded to a tenth.
    const fine = beacon('B3', { lastSeen: 960.25, smoothedRssi: -70.96, measuredPower: -58.5 })
    f.found(odd, 100)
    f.found(plain, 200)
    f.found(fine, 300)
    f.packet(odd.address)
    f.updated([odd, plain, fine], 1000)
    const [batch] = sink.out.filter((m) => m.kind === 'rssi').map((m) => m.payload)
    const expected = { gateway: 'hall', time: 1000, readings: [
      { id: odd.id, rssi: -61.5, measuredPower: -59, lastSeen: 900, count: 1 },
      { id: 'B2', rssi: null, lastSeen: 950, count: 1 },
      { id: 'B3', rssi: -71, measuredPower: -58.5, lastSeen: 960.25, count: 1 },
    ] }
    expect(batch).toBe(JSON.stringify(expected))
  })

  it('counts packets heard before a beacon was announced, and under its new address after it changed', () => {
    const { feed: f, sink } = feed()
    const a = beacon('A1', { lastSeen: 900 })
    f.packet(a.address)
    f.packet(a.address)
    f.found(a, 900)
    f.packet(a.address)
    f.updated([a], 1000)
    // The beacon moves to another address (rotation): packets there count from the next tick on.
    f.packet('bb:00:00:00:00:01')
    f.updated([{ ...a, address: 'bb:00:00:00:00:01', lastSeen: 1900 }], 2000)
    f.packet('bb:00:00:00:00:01')
    f.packet(a.address) // the old address is nobody's now
    f.updated([{ ...a, address: 'bb:00:00:00:00:01', lastSeen: 2900 }], 3000)
    const counts = sink.out.filter((m) => m.kind === 'rssi').map((m) => (JSON.parse(m.payload) as RssiBatch).readings.map((r) => r.count))
    expect(counts).toEqual([[3], [1], [1]])
  })

  it("counts a scanner's packets from its snapshots, without a listener per packet", async () => {
    const clock = new VirtualClock(T0)
    const source = new PushSource(clock)
    const scanner = new BeaconScanner({ source })
    await scanner.start()
    const send = (n: number): void => {
      for (let i = 0; i < n; i++) {
        clock.advanceTo(clock.now() + 10)
        const parsed = parseAdvertisementLine(vendorLine(clock.now() - T0, 'aa:00:00:00:00:01', '0117C5000001'))
        if (parsed.kind === 'advertisement') source.emit('advertisement', parsed.advertisement)
      }
    }
    const { feed: f, sink } = feed()
    send(5)
    const [b] = scanner.beacons()
    f.found(b, clock.now())
    send(2)
    f.updated(scanner.beacons(), clock.now())
    send(3)
    f.updated(scanner.beacons(), clock.now())
    f.updated(scanner.beacons(), clock.now()) // nothing heard since
    const counts = sink.out.filter((m) => m.kind === 'rssi').map((m) => (JSON.parse(m.payload) as RssiBatch).readings.map((r) => r.count))
    expect(counts).toEqual([[7], [3]])
    await scanner.stop()
  })
})
