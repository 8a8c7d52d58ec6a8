import { describe, it, expect } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import type { Advertisement } from '../../src/advertisement.js'
import { VirtualClock } from '../../src/clock.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { advertisementSourceContract } from './source-contract.js'
import { T0, header, ibeaconLine, vendorLine } from './helpers.js'

const lines = [
  header(),
  ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1),
  vendorLine(1, 'aa:00:00:00:00:01', '0117C5000001'),
  ibeaconLine(250, 'aa:00:00:00:00:02', 1, 2),
  ibeaconLine(1000, 'aa:00:00:00:00:01', 1, 1),
]

function play(source: ReplaySource): Promise<{ advs: Advertisement[]; times: number[]; warnings: string[] }> {
  const advs: Advertisement[] = []
  const times: number[] = []
  const warnings: string[] = []
  source.on('advertisement', (a) => {
    advs.push(a)
    times.push(source.clock?.now() ?? Number.NaN)
  })
  source.on('warning', (w) => warnings.push(w))
  return new Promise((resolve) => {
    source.on('end', () => resolve({ advs, times, warnings }))
    void source.start()
  })
}

advertisementSourceContract('ReplaySource (virtual, lines)', () => ({ source: new ReplaySource(lines, { virtual: true }) }))
// Real time at 100× speed: the recording's second takes 10 ms.
advertisementSourceContract('ReplaySource (real time, speed 100)', () => ({ source: new ReplaySource(lines, { speed: 100 }) }))

describe('ReplaySource', () => {
  it('moves its virtual clock to each line before emitting it', async () => {
    const source = new ReplaySource(lines, { virtual: true })
    const { advs, times } = await play(source)
    expect(advs.map((a) => a.timestamp - T0)).toEqual([0, 1, 250, 1000])
    expect(times.map((t) => t - T0)).toEqual([0, 1, 250, 1000])
    expect(source.header).toMatchObject({ format: 'beaconkit-advertisements', test: true })
    expect(source.stats).toMatchObject({ lines: 5, advertisements: 4, malformed: 0 })
  })

  it('starts the clock at the first advertisement, so timers armed after start() run on recording time', async () => {
    const source = new ReplaySource(lines, { virtual: true })
    await source.start()
    expect(source.clock?.now()).toBe(T0)
    await source.stop()
  })

  it('skips malformed lines, counts them and reports their line numbers', async () => {
    const source = new ReplaySource([lines[1], 'garbage', '', '{"t":"x","address":"aa:00:00:00:00:01","rssi":-1}', lines[2]], { virtual: true })
    const { advs, warnings } = await play(source)
    expect(advs).toHaveLength(2)
    expect(source.stats.malformed).toBe(2)
    expect(source.stats.malformedLines).toEqual([
      { line: 2, reason: 'not valid JSON' },
      { line: 4, reason: '"t" must be a number of milliseconds' },
    ])
    expect(warnings[0]).toMatch(/^line 2: not valid JSON/)
  })

  it('reads files and streams', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-replay-'))
    const file = join(dir, 'r.jsonl')
    writeFileSync(file, `${lines.join('\n')}\n`)
    const fromFile = await play(new ReplaySource(file, { virtual: true }))
    const fromStream = await play(new ReplaySource(Readable.from([lines.join('\n').slice(0, 100), lines.join('\n').slice(100)]), { virtual: true }))
    expect(fromFile.advs.map((a) => a.timestamp)).toEqual(fromStream.advs.map((a) => a.timestamp))
    expect(fromFile.advs).toHaveLength(4)
  })

  it('paces real-time replays by (t - t0) / speed on its clock, keeping the recording\'s time line', async () => {
    const pace = new VirtualClock(5_000)
    const source = new ReplaySource(lines, { speed: 2, clock: pace })
    const got: number[] = []
    const paced: number[] = []
    source.on('advertisement', (a) => {
      got.push(a.timestamp - T0)
      paced.push(pace.now())
    })
    const ended = new Promise<void>((r) => source.on('end', r))
    await source.start()
    // Drive the pacing clock until the replay has delivered everything.
    while (got.length < 4) {
      await new Promise((r) => setImmediate(r))
      const due = pace.nextDue()
      if (due !== undefined) pace.advanceTo(due)
    }
    await ended
    expect(got).toEqual([0, 1, 250, 1000])
    expect(paced).toEqual([5_000, 5_000.5, 5_125, 5_500])
    expect(source.clock.now()).toBe(T0 + 1000)
  })

  it('presentTime: a real-time replay moves the recording onto the present, spacing kept (what a live replay publishes)', async () => {
    const pace = new VirtualClock(1_800_000_000_000)
    const source = new ReplaySource(lines, { clock: pace, presentTime: true })
    const got: number[] = []
    source.on('advertisement', (a) => got.push(a.timestamp))
    const ended = new Promise<void>((r) => source.on('end', r))
    await source.start()
    while (got.length < 4) {
      await new Promise((r) => setImmediate(r))
      const due = pace.nextDue()
      if (due !== undefined) pace.advanceTo(due)
    }
    await ended
    expect(got).toEqual([0, 1, 250, 1000].map((d) => 1_800_000_000_000 + d))
    expect(source.clock.now()).toBe(1_800_000_001_000)
    expect(() => new ReplaySource(lines, { virtual: true, presentTime: true })).toThrow(expect.objectContaining({ code: 'invalid_option', option: 'presentTime' }))
  })

  it('refuses a missing file and bad options with typed errors', () => {
    expect(() => new ReplaySource('/nonexistent/x.jsonl')).toThrow(expect.objectContaining({ code: 'file_not_found' }))
    expect(() => new ReplaySource(tmpdir())).toThrow(expect.objectContaining({ code: 'unreadable_file' }))
    expect(() => new ReplaySource(lines, { speed: 0 })).toThrow(expect.objectContaining({ code: 'invalid_option', option: 'speed' }))
  })
})
