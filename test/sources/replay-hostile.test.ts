/**
 * Replays of recordings that a corrupt disk, a hostile sender or a careless caller produce:
 * absurd timestamps, gaps of decades, endless lines, non-strings. None may hang, crash or
 * grow memory without bound; each bad line is skipped, counted and reported.
 */
import { describe, it, expect } from 'vitest'
import { PassThrough, Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { ReplaySource } from '../../src/sources/replay.js'
import type { ScannerEvent } from '../../src/scanner/event-stream.js'
import { T0, ibeaconLine } from './helpers.js'

/** Runs a scanner over `source` to the end of its input and the last gone; returns its events. */
async function scan(source: ReplaySource): Promise<{ events: ScannerEvent[]; warnings: string[] }> {
  const scanner = new BeaconScanner({ source })
  const events: ScannerEvent[] = []
  const warnings: string[] = []
  const iterator = scanner.events()
  scanner.on('warning', (w) => warnings.push(w.message))
  const collected = (async () => {
    for await (const e of iterator) events.push(e)
  })()
  await scanner.start()
  await scanner.drain()
  await scanner.stop()
  await collected
  return { events: events.filter((e) => e.event !== 'warning'), warnings }
}

/** A stream of `total` bytes of `x` without a line break, then the given text. */
function hugeLineThen(total: number, tail: string): Readable {
  const chunk = Buffer.alloc(1 << 20, 'x')
  let sent = 0
  return new Readable({
    read() {
      if (sent >= total) {
        this.push(tail)
        this.push(null)
        return
      }
      const n = Math.min(chunk.length, total - sent)
      sent += n
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n))
    },
  })
}

describe('timestamps', () => {
  it('refuses a t outside the Date range as a malformed line, with its line number', async () => {
    const lines = [
      ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1),
      '{"t":1e300,"address":"aa:00:00:00:00:01","rssi":-60}',
      '{"t":-5,"address":"aa:00:00:00:00:01","rssi":-60}',
      '{"t":8640000000000001,"address":"aa:00:00:00:00:01","rssi":-60}',
      ibeaconLine(500, 'aa:00:00:00:00:01', 1, 1),
    ]
    const source = new ReplaySource(lines, { virtual: true })
    const { events } = await scan(source)
    expect(source.stats.malformed).toBe(3)
    expect(source.stats.malformedLines.map((m) => m.line)).toEqual([2, 3, 4])
    expect(source.stats.malformedLines[0].reason).toMatch(/"t" must be between 0 and 8640000000000000/)
    // The good lines still play, and time never left the recording's range.
    expect(events.filter((e) => e.event === 'found')).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ event: 'gone', time: T0 + 500 + 8000 })
  })

  it('skips a gap of decades at once: beacons go at their exact gone time, no tick while the table is empty', async () => {
    // From 1970 to 2026: ticking through it was 1.77 billion `updated` events.
    const early = 1000
    const lines = [
      ibeaconLine(early - T0, 'aa:00:00:00:00:01', 1, 1),
      ibeaconLine(early - T0 + 2000, 'aa:00:00:00:00:01', 1, 1),
      ibeaconLine(0, 'aa:00:00:00:00:02', 1, 2),
    ]
    const { events } = await scan(new ReplaySource(lines, { virtual: true }))
    const summary = events.map((e) => [e.event, e.time])
    // Found after the identity settle delay (100 ms: an iBeacon alone carries no serial number).
    expect(summary.filter(([e]) => e !== 'updated')).toEqual([
      ['found', early + 100],
      ['gone', early + 2000 + 8000],
      ['found', T0 + 100],
      ['gone', T0 + 8000],
    ])
    const ticks = events.filter((e) => e.event === 'updated').map((e) => e.time)
    // Ticks fall every second from the start, only while a beacon is tracked.
    expect(ticks).toEqual([...Array.from({ length: 10 }, (_, i) => early + 1000 * (i + 1)), ...Array.from({ length: 8 }, (_, i) => T0 + 1000 * (i + 1))])
  })

  it('keeps the tick phase and ticks while anything is tracked across short gaps', async () => {
    const lines = [ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1), ibeaconLine(20_500, 'aa:00:00:00:00:01', 1, 1)]
    const { events } = await scan(new ReplaySource(lines, { virtual: true }))
    const ticks = events.filter((e) => e.event === 'updated').map((e) => e.time - T0)
    expect(ticks).toEqual([1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 21_000, 22_000, 23_000, 24_000, 25_000, 26_000, 27_000, 28_000])
  })
})

describe('line length', () => {
  it('skips a line longer than maxLineBytes, counts it, and goes on with the next line', async () => {
    const good = ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)
    const text = `${'y'.repeat(300)}\r${good}\r\n${'z'.repeat(5000)}\n${good}\n`
    const source = new ReplaySource(Readable.from([text.slice(0, 7), text.slice(7, 2500), text.slice(2500)]), { virtual: true, maxLineBytes: 256 })
    const { events } = await scan(source)
    expect(source.stats).toMatchObject({ lines: 4, advertisements: 2, malformed: 2 })
    expect(source.stats.malformedLines).toEqual([
      { line: 1, reason: 'longer than 256 bytes' },
      { line: 3, reason: 'longer than 256 bytes' },
    ])
    expect(events.filter((e) => e.event === 'found')).toHaveLength(1)
  })

  it('bounds array lines the same way', async () => {
    const source = new ReplaySource(['w'.repeat(1001), ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)], { virtual: true, maxLineBytes: 1000 })
    await scan(source)
    expect(source.stats).toMatchObject({ advertisements: 1, malformed: 1 })
  })

  it('streams past a 520 MB line (beyond the longest string V8 can hold) without keeping it', async () => {
    const source = new ReplaySource(hugeLineThen(520 * 2 ** 20, `\n${ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)}\n`), { virtual: true })
    const before = process.memoryUsage().rss
    const { events, warnings } = await scan(source)
    expect(source.stats.malformedLines).toEqual([{ line: 1, reason: 'longer than 65536 bytes' }])
    expect(warnings[0]).toMatch(/^line 1: longer than 65536 bytes; line skipped/)
    expect(events.filter((e) => e.event === 'found')).toHaveLength(1)
    // Kept: at most the bound; a readline-style reader would hold the whole line.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20)
  }, 60_000)

  it('rejects option values that are not a positive whole number', () => {
    expect(() => new ReplaySource([], { maxLineBytes: 0 })).toThrow(expect.objectContaining({ code: 'invalid_option', option: 'maxLineBytes' }))
  })
})

describe('what a lines array holds', () => {
  it('counts a non-string element as malformed instead of rejecting unhandled', async () => {
    const lines = [ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1), 42, null, { t: 1 }, ibeaconLine(100, 'aa:00:00:00:00:01', 1, 1)] as unknown as string[]
    const source = new ReplaySource(lines, { virtual: true })
    await scan(source)
    expect(source.stats).toMatchObject({ lines: 5, advertisements: 2, malformed: 3 })
    expect(source.stats.malformedLines).toEqual([
      { line: 2, reason: 'not a string (a number)' },
      { line: 3, reason: 'not a string (a null)' },
      { line: 4, reason: 'not a string (a object)' },
    ])
  })

  it('counts a chunk of an object-mode stream that is not text as malformed', async () => {
    const source = new ReplaySource(Readable.from([`${ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)}\n`, 7]), { virtual: true })
    await scan(source)
    expect(source.stats).toMatchObject({ advertisements: 1, malformed: 1 })
    expect(source.stats.malformedLines[0].reason).toBe('the stream gave a number, not text')
  })
})

describe('stopping', () => {
  it('stops while waiting for a line from a stream that is not its own (stdin), without ending that stream', async () => {
    const input = new PassThrough()
    const source = new ReplaySource(input, { virtual: true })
    const started = source.start()
    await source.stop()
    await started
    expect(source.stats.lines).toBe(0)
    expect(input.destroyed).toBe(false)
  })
})

describe('speed', () => {
  const walkAway = fileURLToPath(new URL('../../fixtures/walk-away.jsonl', import.meta.url))

  it('a replay at speed 20 emits the same events at the same recording times as the virtual replay', async () => {
    const virtual = await scan(new ReplaySource(walkAway, { virtual: true }))
    const paced = await scan(new ReplaySource(walkAway, { speed: 20 }))
    expect(virtual.events.filter((e) => e.event === 'gone').length).toBeGreaterThan(0)
    expect(paced.events).toEqual(virtual.events)
  }, 60_000)
})
