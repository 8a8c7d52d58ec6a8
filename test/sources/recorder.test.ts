import { describe, it, expect } from 'vitest'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { AdvertisementRecorder } from '../../src/sources/recorder.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { SimulatedSource } from '../../src/sources/simulated.js'
import { UUID } from './helpers.js'

function simulated(): SimulatedSource {
  return new SimulatedSource({
    virtual: true,
    durationMs: 3000,
    seed: 7,
    devices: [
      { address: 'aa:00:00:00:00:01', ibeacon: { proximityUUID: UUID, major: 1, minor: 1, measuredPower: -59 }, vendor: [{ frame: 'e781', mode: 0x30 }], serialNumber: '0117C5000001', distance: 2 },
    ],
  })
}

describe('AdvertisementRecorder', () => {
  it('writes a header and one line per advertisement that replays to the same advertisements', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-rec-'))
    const file = join(dir, 'site.jsonl')
    const source = simulated()
    const recorder = new AdvertisementRecorder(file, { source, header: { site: 'lab' } })
    const seen: Advertisement[] = []
    source.on('advertisement', (a) => seen.push(a))
    const ended = new Promise<void>((r) => source.on('end', r))
    await source.start()
    await ended
    await recorder.close()
    const text = readFileSync(file, 'utf8').trimEnd().split('\n')
    expect(parseAdvertisementLine(text[0])).toMatchObject({ kind: 'header', header: { site: 'lab', recordedBy: 'beaconkit' } })
    expect(text.length - 1).toBe(seen.length)
    expect(recorder.stats).toEqual({ written: seen.length, dropped: 0 })

    const replay = new ReplaySource(file, { virtual: true })
    const replayed: Advertisement[] = []
    replay.on('advertisement', (a) => replayed.push(a))
    const replayEnded = new Promise<void>((r) => replay.on('end', r))
    await replay.start()
    await replayEnded
    expect(replayed).toEqual(seen)
  })

  it('drops and counts lines instead of buffering without bound when the stream is stuck', async () => {
    let release: (() => void) | undefined
    const stuck = new Writable({
      highWaterMark: 16,
      write(_chunk, _enc, cb) {
        // Never completes until released: a disk that stopped answering.
        release ??= () => cb()
      },
    })
    const recorder = new AdvertisementRecorder(stuck, { maxBufferedBytes: 1000 })
    for (let i = 0; i < 100; i++) recorder.write({ address: 'aa:00:00:00:00:01', rssi: -60, timestamp: i })
    expect(recorder.stats.dropped).toBeGreaterThan(80)
    expect(recorder.stats.written + recorder.stats.dropped).toBe(100)
    release?.()
  })

  it('rejects close() with a typed error when the file cannot be written', async () => {
    const recorder = new AdvertisementRecorder('/nonexistent-dir/x/site.jsonl')
    recorder.on('error', () => undefined)
    await expect(recorder.close()).rejects.toMatchObject({ code: 'unwritable_file' })
  })
})
