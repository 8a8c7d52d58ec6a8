// The feed's shortcut on the update tick: a scanner's beacon whose version is the one its mark
// saw is not compared value by value. These tests check that the shortcut skips only what cannot
// have changed, and that the feed's output is byte for byte what the full comparison gives.
import { afterEach, describe, expect, it } from 'vitest'
import { GatewayFeed } from '../../src/mqtt/feed.js'
import type { FeedSink } from '../../src/mqtt/feed.js'
import { GatewayTopics } from '../../src/mqtt/topics.js'
import { slotOf, versionOf } from '../../src/range/snapshot.js'
import type { Beacon } from '../../src/reading.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { VirtualClock } from '../../src/clock.js'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import { PushSource } from '../support/push-source.js'
import { T0, vendorLine } from '../sources/helpers.js'

const topics = new GatewayTopics('beaconkit', 'hall')

class Collect implements FeedSink {
  readonly out: string[] = []
  putRetained(topic: string, payload: string): void {
    this.out.push(`retained ${topic} ${payload}`)
  }
  putEvent(topic: string, payload: string): void {
    this.out.push(`event ${topic} ${payload}`)
  }
  putVolatile(topic: string, payload: Buffer): void {
    this.out.push(`rssi ${topic} ${payload.toString()}`)
  }
  changed(): { changes: unknown }[] {
    return this.out
      .filter((m) => m.startsWith('event '))
      .map((m) => JSON.parse(m.slice(m.indexOf('{'))) as { event: string; changes: unknown })
      .filter((e) => e.event === 'changed')
  }
}

function newFeed(): { feed: GatewayFeed; sink: Collect } {
  const sink = new Collect()
  return { feed: new GatewayFeed(topics, { minIntervalMs: 5000, heartbeatMs: 60_000 }, sink, undefined), sink }
}

/** A real scanner on a virtual clock, fed vendor sensor packets by hand. */
class Rig {
  readonly clock = new VirtualClock(T0)
  readonly source = new PushSource(this.clock)
  readonly scanner = new BeaconScanner({ source: this.source })
  /** Called with each packet's address (a feed that counts packets itself). */
  onPacket: ((address: string) => void) | undefined = undefined

  /** One packet of beacon `serial` (address from its last two digits) 10 ms later. */
  send(serial: string, extra: { temperature?: number; batteryLevel?: number; rssi?: number } = {}): void {
    this.clock.advanceTo(this.clock.now() + 10)
    const parsed = parseAdvertisementLine(vendorLine(this.clock.now() - T0, `aa:00:00:00:00:${serial.slice(-2)}`, serial, extra))
    if (parsed.kind !== 'advertisement') throw new Error(`test line did not parse: ${parsed.kind}`)
    this.source.emit('advertisement', parsed.advertisement)
    this.onPacket?.(parsed.advertisement.address)
  }
}

const rigs: Rig[] = []
function rig(): Rig {
  const r = new Rig()
  rigs.push(r)
  return r
}
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.scanner.stop()
})

describe('GatewayFeed: version shortcut', () => {
  it('does not compare the values of scanner beacons that changed nothing but RSSI, and still reports each change', async () => {
    const r = rig()
    await r.scanner.start()
    r.send('0117C5000001')
    r.send('0117C5000002')
    const { feed, sink } = newFeed()
    for (const b of r.scanner.beacons()) feed.found(b, r.clock.now())
    expect(feed.compared).toBe(0)
    // Ten ticks in which both beacons are heard with a new RSSI each time, values unchanged.
    for (let i = 0; i < 10; i++) {
      r.send('0117C5000001', { rssi: -50 - i })
      r.send('0117C5000002', { rssi: -70 + i })
      feed.updated(r.scanner.beacons(), r.clock.now())
    }
    expect(feed.compared).toBe(0)
    expect(sink.changed()).toEqual([])
    // One beacon's temperature changes: only it is compared, and its change is reported.
    r.send('0117C5000002', { temperature: 25 })
    feed.updated(r.scanner.beacons(), r.clock.now())
    expect(feed.compared).toBe(1)
    expect(sink.changed().map((e) => e.changes)).toEqual([{ temperature: { old: 22, new: 25 } }])
    // Compared once for that version, not at every later tick.
    r.send('0117C5000002', { temperature: 25, rssi: -40 })
    feed.updated(r.scanner.beacons(), r.clock.now())
    expect(feed.compared).toBe(1)
  })

  it('compares beacons that did not come from a scanner at every tick', () => {
    const { feed } = newFeed()
    const b: Beacon = { id: 'A1', address: 'aa:00:00:00:00:a1', rssi: -60, smoothedRssi: -60, timestamp: 0, frames: ['e780'], inRange: true, firstSeen: 0, lastSeen: 0, temperature: 21 }
    expect(versionOf(b)).toBeUndefined()
    feed.found(b, 0)
    feed.updated([b], 1000)
    feed.updated([b], 2000)
    expect(feed.compared).toBe(2)
  })

  it('misses no change when a new tracking of the same beacon reaches the version the mark saw', async () => {
    const r = rig()
    await r.scanner.start()
    const { feed, sink } = newFeed()
    r.send('0117C5000001', { temperature: 22 })
    const [first] = r.scanner.beacons()
    feed.found(first, r.clock.now())
    feed.updated(r.scanner.beacons(), r.clock.now())
    // The scanner forgets the beacon without a gone event and tracks it anew, from a packet
    // with another temperature and as many merges as before: a version counted per beacon
    // would be the one the mark saw, and the change would be lost.
    await r.scanner.stop()
    await r.scanner.start()
    r.send('0117C5000001', { temperature: 30 })
    const [again] = r.scanner.beacons()
    expect(again.temperature).toBe(30)
    expect(versionOf(again)).not.toBe(versionOf(first))
    feed.updated([again], r.clock.now())
    expect(sink.changed().map((e) => e.changes)).toEqual([{ temperature: { old: 22, new: 30 } }])
  })

  it('misses no change between two scanners that track the same beacon', async () => {
    const a = rig()
    const b = rig()
    await a.scanner.start()
    await b.scanner.start()
    const { feed, sink } = newFeed()
    a.send('0117C5000001', { temperature: 22 })
    b.send('0117C5000001', { temperature: 28 })
    feed.found(a.scanner.beacons()[0], a.clock.now())
    feed.updated(a.scanner.beacons(), a.clock.now())
    feed.updated(b.scanner.beacons(), b.clock.now())
    expect(sink.changed().map((e) => e.changes)).toEqual([{ temperature: { old: 22, new: 28 } }])
  })

  it('publishes byte for byte what comparing every beacon at every tick publishes', async () => {
    const r = rig()
    await r.scanner.start()
    const shortcut = newFeed()
    // Spread copies carry no version (nor packet total): this feed compares every beacon at every
    // tick, and counts packets as they come.
    const full = newFeed()
    r.onPacket = (address) => full.feed.packet(address)
    const serials = ['0117C5000001', '0117C5000002', '0117C5000003', '0117C5000004']
    for (const s of serials) r.send(s)
    for (const b of r.scanner.beacons()) {
      shortcut.feed.found(b, r.clock.now())
      full.feed.found({ ...b }, r.clock.now())
    }
    for (let tick = 1; tick <= 40; tick++) {
      serials.forEach((s, i) => {
        // Beacon i changes a value every (i + 1)th tick, sometimes twice within the tick, sometimes back.
        const step = Math.floor(tick / (i + 1))
        if (tick % 3 === 0) r.send(s, { temperature: 20 + step, batteryLevel: 90 - (step % 2) })
        r.send(s, { temperature: 20 + (step % 4), batteryLevel: 90 - (step % 3), rssi: -60 - ((tick + i) % 7) })
      })
      r.clock.advanceTo(r.clock.now() + 1000)
      const beacons = r.scanner.beacons()
      shortcut.feed.updated(beacons, r.clock.now())
      full.feed.updated(beacons.map((b) => ({ ...b })), r.clock.now())
    }
    expect(full.sink.changed().length).toBeGreaterThan(20)
    expect(shortcut.feed.compared).toBeLessThan(full.feed.compared)
    expect(shortcut.sink.out).toEqual(full.sink.out)
  })

  it('finds each beacon\'s own mark when the order of the list changes, and never a forgotten one', () => {
    const { feed, sink } = newFeed()
    const b = (id: string, temperature: number): Beacon => ({ id, address: `aa:00:00:00:00:${id.slice(-2)}`, rssi: -60, smoothedRssi: -60, timestamp: 0, frames: ['e780'], inRange: true, firstSeen: 0, lastSeen: 0, temperature })
    feed.found(b('A1', 21), 0)
    feed.found(b('B2', 22), 0)
    feed.updated([b('A1', 21), b('B2', 22)], 1000)
    // Swapped places: each keeps its own values.
    feed.updated([b('B2', 22), b('A1', 21)], 2000)
    expect(sink.changed()).toEqual([])
    // B2 gone and found again with another value, at the place its old mark had: no change
    // from the forgotten mark's value is reported.
    feed.gone(b('B2', 22), 2500)
    feed.found(b('B2', 30), 2600)
    feed.updated([b('B2', 30), b('A1', 21)], 3000)
    expect(sink.changed()).toEqual([])
    feed.updated([b('B2', 31), b('A1', 21)], 4000)
    expect(sink.changed().map((e) => e.changes)).toEqual([{ temperature: { old: 30, new: 31 } }])
  })

  it.each([
    ['told', true],
    ['not told', false],
  ])("finds a scanner beacon's mark by its slot, and not the mark of a gone beacon whose slot it took (feed %s of the gone)", async (_told, tellGone) => {
    const r = rig()
    await r.scanner.start()
    const { feed, sink } = newFeed()
    r.scanner.on('found', (b) => feed.found(b, r.clock.now()))
    if (tellGone) r.scanner.on('gone', (b) => feed.gone(b, r.clock.now()))
    r.scanner.on('updated', (bs) => feed.updated(bs, r.clock.now()))
    const slotOfId = (id: string): number | undefined => slotOf(r.scanner.beacons().find((b) => b.id === id) as Beacon)
    r.send('0117C5000001', { temperature: 22 })
    r.send('0117C5000002', { temperature: 23 })
    r.clock.advanceTo(r.clock.now() + 1000)
    const firstSlot = slotOfId('0117C5000001')
    expect(firstSlot).toBeTypeOf('number')
    // Only the second is heard from now on: the first is gone after the timeout.
    for (let s = 0; s < 10; s++) {
      r.send('0117C5000002', { temperature: 23, rssi: -60 - s })
      r.clock.advanceTo(r.clock.now() + 1000)
    }
    expect(r.scanner.beacons().map((b) => b.id)).toEqual(['0117C5000002'])
    // A new beacon takes the freed slot; its values are its own, not the gone one's.
    r.send('0117C5000003', { temperature: 30 })
    r.send('0117C5000003', { temperature: 30 })
    r.clock.advanceTo(r.clock.now() + 1000)
    expect(slotOfId('0117C5000003')).toBe(firstSlot)
    r.send('0117C5000003', { temperature: 31 })
    r.clock.advanceTo(r.clock.now() + 1000)
    expect(sink.changed().map((e) => e.changes)).toEqual([{ temperature: { old: 30, new: 31 } }])
    const batches = sink.out.filter((m) => m.startsWith('rssi ')).map((m) => JSON.parse(m.slice(m.indexOf('{'))) as RssiBatch)
    const last = batches[batches.length - 1]
    expect(last.readings.map((x) => [x.id, x.count])).toEqual([['0117C5000003', 1]])
    expect(batches[batches.length - 2].readings.find((x) => x.id === '0117C5000003')?.count).toBe(2)
  })
})
