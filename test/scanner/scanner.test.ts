import { describe, it, expect } from 'vitest'
import { inspect } from 'node:util'
import { EventEmitter } from 'eventemitter3'
import { formatAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { encodeIBeacon } from '../../src/frames/ibeacon.js'
import type { AdvertisementSource, AdvertisementSourceEvents } from '../../src/sources/source.js'
import { RealClock, VirtualClock } from '../../src/clock.js'
import { encodeE781 } from '../../src/frames/e781.js'
import type { Beacon } from '../../src/reading.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import type { ScannerEvent } from '../../src/scanner/event-stream.js'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { T0, UUID, ibeaconLine, vendorLine } from '../sources/helpers.js'

const KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'

/** Runs a virtual replay to its end (every beacon gone) and returns the event timeline. */
async function run(lines: string[], options: ConstructorParameters<typeof BeaconScanner>[0] = {}): Promise<{ scanner: BeaconScanner; log: string[] }> {
  const scanner = new BeaconScanner({ source: new ReplaySource(lines, { virtual: true }), ...options })
  const log: string[] = []
  const at = (): number => scanner.clock.now() - T0
  scanner.on('found', (b) => log.push(`${at()} found ${b.id}`))
  scanner.on('gone', (b) => log.push(`${at()} gone ${b.id}`))
  scanner.on('updated', (bs) => log.push(`${at()} updated ${bs.length}`))
  await scanner.start()
  await scanner.drain()
  await scanner.stop()
  return { scanner, log }
}

function encryptedLine(ms: number, address: string, serial: string, mode: 0x41 | 0x42, key = KEY): string {
  const data = encodeE781(
    { mode, hardwareModelName: 'C0', firmwareVersion: '4.1', serialNumber: serial, major: 10, minor: 20, batteryLevel: 77, temperature: 21, light: null, movingState: 'still', accelerometerCount: 3, measuredPower: -59, transmitPower: 5, advertisingInterval: 417.5 },
    { key: parseBroadcastKey(key), randomCode: 1000 + ms },
  )
  return formatAdvertisementLine({ address, rssi: -60, timestamp: T0 + ms, serviceData: [{ uuid: '81e7', data }] })
}

describe('BeaconScanner timeline (virtual replay)', () => {
  it('emits found, updated each second and gone at lastSeen + 8000, then drains', async () => {
    const { log, scanner } = await run([
      ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1),
      vendorLine(1, 'aa:00:00:00:00:01', '0117C5000001'),
      ibeaconLine(1500, 'aa:00:00:00:00:02', 1, 2),
      ibeaconLine(2100, 'aa:00:00:00:00:01', 1, 1),
    ])
    // The vendor scan response 1 ms after the iBeacon completes the identity: found carries the serial.
    expect(log).toEqual([
      '1 found 0117C5000001',
      '1000 updated 1',
      '1600 found 23A01AF0-232A-4518-9C0E-323FB773F5EF|1|2',
      ...[2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000].map((t) => `${t} updated 2`),
      '9500 gone 23A01AF0-232A-4518-9C0E-323FB773F5EF|1|2',
      '10000 updated 1',
      '10100 gone 0117C5000001',
    ])
    expect(scanner.stats).toMatchObject({ advertisements: 4, decoded: 4, byFrame: { ibeacon: 3, e781: 1 } })
  })

  it('honours goneTimeoutMs and updateIntervalMs', async () => {
    const { log } = await run([ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)], { goneTimeoutMs: 1200, updateIntervalMs: 500, identitySettleMs: 0 })
    expect(log).toEqual(['0 found 23A01AF0-232A-4518-9C0E-323FB773F5EF|1|1', '500 updated 1', '1000 updated 1', '1200 gone 23A01AF0-232A-4518-9C0E-323FB773F5EF|1|1'])
  })
})

describe('BeaconScanner private broadcasts', () => {
  it('reports a keyed device once two verified frames agree, with both halves merged', async () => {
    const lines = [encryptedLine(0, 'aa:00:00:00:00:01', '0117C5000009', 0x41), encryptedLine(300, 'aa:00:00:00:00:01', '0117C5000009', 0x42)]
    const scanner = new BeaconScanner({ source: new ReplaySource(lines, { virtual: true }), keys: [KEY] })
    const found: Beacon[] = []
    scanner.on('found', (b) => found.push(b))
    await scanner.start()
    await scanner.drain()
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ id: '0117C5000009', major: 10, minor: 20, temperature: 21, batteryLevel: 77, secure: { encrypted: true, keyId: '0001', verified: true }, firstSeen: T0 + 300 })
    expect(scanner.stats.secure.verified).toBe(2)
  })

  it('reports a device with an unknown key id at once, by address and unverified; hides it on request', async () => {
    const lines = [encryptedLine(0, 'aa:00:00:00:00:01', '0117C5000009', 0x41)]
    const shown = await run(lines)
    // No serial to wait for beyond the settle window (100 ms by default).
    expect(shown.log[0]).toBe('100 found aa:00:00:00:00:01')
    const hidden = await run(lines, { hideUnverifiedSecure: true })
    expect(hidden.log).toEqual([])
  })
})

describe('BeaconScanner listeners and iteration', () => {
  it('reports a throwing listener as error and keeps the other listeners and scanning going', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource([ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1), ibeaconLine(100, 'aa:00:00:00:00:02', 1, 2)], { virtual: true }) })
    const errors: string[] = []
    const found: string[] = []
    let once = 0
    scanner.on('found', () => {
      throw new Error('listener bug')
    })
    scanner.on('found', (b) => found.push(b.id))
    scanner.once('found', () => once++)
    scanner.on('error', (e) => errors.push(e.message))
    await scanner.start()
    await scanner.drain()
    expect(found).toHaveLength(2)
    expect(errors).toEqual(['listener bug', 'listener bug'])
    expect(once).toBe(1)
    expect(scanner.stats.listenerErrors).toBe(2)
  })

  it('yields events as --json shaped objects and ends on stop', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource([ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)], { virtual: true }), goneTimeoutMs: 1500 })
    const events: ScannerEvent[] = []
    const iterator = scanner.events()
    await scanner.start()
    const consumed = (async () => {
      for await (const e of iterator) events.push(e)
    })()
    await scanner.drain()
    await scanner.stop()
    await consumed
    expect(events.map((e) => [e.event, e.time - T0])).toEqual([['found', 100], ['updated', 1000], ['gone', 1500]])
    const first = events[0]
    expect(first.event === 'found' && first.beacon.id).toBe('23A01AF0-232A-4518-9C0E-323FB773F5EF|1|1')
  })

  it('is itself async-iterable', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource([ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)], { virtual: true }), goneTimeoutMs: 500 })
    const seen: string[] = []
    const consumed = (async () => {
      for await (const e of scanner) {
        seen.push(e.event)
        if (e.event === 'gone') break
      }
    })()
    await scanner.start()
    await consumed
    expect(seen).toEqual(['found', 'gone'])
    await scanner.stop()
  })

  it('ends iteration on abort and drops the oldest events when the consumer lags', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => ibeaconLine(i, `aa:00:00:00:00:${i.toString(16).padStart(2, '0')}`, 1, i))
    const scanner = new BeaconScanner({ source: new ReplaySource(lines, { virtual: true }), eventBufferSize: 5 })
    const controller = new AbortController()
    const iterator = scanner.events({ signal: controller.signal })
    await scanner.start()
    await scanner.drain()
    // 20 found + updated ticks + 20 gone went into a buffer of 5.
    expect(iterator.dropped).toBeGreaterThan(30)
    const kept: ScannerEvent[] = []
    for (let i = 0; i < 2; i++) {
      const r = await iterator.next()
      if (r.done !== true) kept.push(r.value)
    }
    expect(kept.every((e) => e.event === 'gone')).toBe(true)
    controller.abort()
    expect(await iterator.next()).toEqual({ value: undefined, done: true })
    await scanner.stop()
  })
})

describe('BeaconScanner with a careless source of its own', () => {
  it('skips and counts advertisements that are not advertisements, and keeps going', async () => {
    const source = new EventEmitter<AdvertisementSourceEvents>() as EventEmitter<AdvertisementSourceEvents> & AdvertisementSource
    Object.assign(source, { start: async () => undefined, stop: async () => undefined })
    const clock = new VirtualClock(T0)
    const scanner = new BeaconScanner({ source, clock, identitySettleMs: 0 })
    const errors: Error[] = []
    const found: string[] = []
    scanner.on('error', (e) => errors.push(e))
    scanner.on('found', (b) => found.push(b.id))
    await scanner.start()
    const junk: unknown[] = [null, undefined, 42, {}, { address: 'aa:00:00:00:00:01', rssi: 'loud', timestamp: T0 }, { address: 'aa:00:00:00:00:01', rssi: -60, timestamp: T0, serviceData: 'nope', manufacturerData: 'x' }]
    for (const j of junk) source.emit('advertisement', j as Advertisement)
    source.emit('advertisement', { address: 'aa:00:00:00:00:02', rssi: -60, timestamp: T0, manufacturerData: encodeIBeacon({ proximityUUID: UUID, major: 1, minor: 1, measuredPower: -59 }) })
    expect(found).toEqual([`${UUID}|1|1`])
    expect(errors).toEqual([])
    expect(scanner.stats.malformed).toBe(5)
    expect(scanner.stats.ignored).toBe(1)
    expect(scanner.stats.advertisements).toBe(7)
    await scanner.stop()
  })
})

describe('BeaconScanner options', () => {
  it.each([
    [{ goneTimeoutMs: 0 }, 'goneTimeoutMs'],
    [{ updateIntervalMs: Number.NaN }, 'updateIntervalMs'],
    [{ enterRssi: -80, leaveRssi: -70 }, 'leaveRssi'],
    [{ smoothing: { method: 'arma', factor: 0 } }, 'smoothing'],
    [{ proximityThresholds: { immediate: 5, near: 1 } }, 'proximityThresholds'],
    [{ filter: { proximityUUIDs: ['x'] } }, 'filter.proximityUUIDs'],
    [{ clock: {} }, 'clock'],
    [{ keys: 'abc' }, 'keys'],
  ])('rejects %j naming %s', (options, option) => {
    expect(() => new BeaconScanner({ source: new ReplaySource([]), ...(options as object) })).toThrow(expect.objectContaining({ code: 'invalid_option', option }))
  })

  it('defaults to a NobleSource and real time without starting anything', async () => {
    const scanner = new BeaconScanner()
    expect(scanner.clock).toBeInstanceOf(RealClock)
    expect(scanner.beacons()).toEqual([])
    await scanner.stop()
  })

  it('never shows key material in JSON, inspect or String output', () => {
    const scanner = new BeaconScanner({ source: new ReplaySource([]), keys: [KEY] })
    const text = `${inspect(scanner, { depth: 20 })}${JSON.stringify(scanner)}${String(scanner)}`
    expect(text).not.toMatch(/7b4b5ff594fdaf8f9fc7f2b494e4/i)
    expect(text).toContain('0001')
  })

  it('rejects a malformed key with the key error, not a crash', () => {
    expect(() => new BeaconScanner({ source: new ReplaySource([]), keys: ['00'] })).toThrow(expect.objectContaining({ code: 'malformed' }))
  })

  it("uses the source's clock when it has one, else the one given", () => {
    const replay = new ReplaySource([], { virtual: true })
    expect(new BeaconScanner({ source: replay }).clock).toBe(replay.clock)
    const mine = new VirtualClock(5)
    expect(new BeaconScanner({ source: new ReplaySource([]), clock: mine }).clock).toBe(mine)
  })

  it('forwards replay warnings with line numbers', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource(['{oops', ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)], { virtual: true }) })
    const warnings: string[] = []
    scanner.on('warning', (w) => warnings.push(w.message))
    await scanner.start()
    await scanner.drain()
    expect(warnings).toEqual(['line 1: not valid JSON; line skipped'])
  })
})
