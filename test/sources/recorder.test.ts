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
import { EventEmitter } from 'eventemitter3'
import { BluetoothUnavailableError } from '../../src/errors.js'
import type { AdvertisementSource, AdvertisementSourceEvents } from '../../src/sources/source.js'
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

/** A real simulator that counts how often it was started and stopped. */
class CountingSimulator extends SimulatedSource {
  starts = 0
  stops = 0
  override async start(): Promise<void> {
    this.starts++
    return super.start()
  }
  override async stop(): Promise<void> {
    this.stops++
    return super.stop()
  }
}

describe('AdvertisementRecorder.start() (the README snippet: the recorder runs its source)', () => {
  it('starts the source it was given, records, and close() stops it and ends the file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'beaconkit-rec-')), 'site.jsonl')
    // Real time, the default site: what `new NobleSource()` would deliver, minus the radio.
    const source = new CountingSimulator()
    const recorder = new AdvertisementRecorder(file, { source })
    const heard = new Promise<void>((resolve) => source.once('advertisement', () => resolve()))
    await recorder.start()
    await recorder.start() // twice is harmless
    expect(source.starts).toBe(1)
    await heard
    await recorder.close()
    expect(source.stops).toBe(1)
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    expect(lines.length).toBeGreaterThan(1)
    expect(lines.length - 1).toBe(recorder.stats.written)
    expect(lines.slice(1).every((l) => parseAdvertisementLine(l).kind === 'advertisement')).toBe(true)
  })

  it('records a whole finite source in virtual time', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'beaconkit-rec-')), 'site.jsonl')
    const source = simulated()
    const recorder = new AdvertisementRecorder(file, { source })
    const ended = new Promise<void>((r) => source.once('end', r))
    await recorder.start()
    await ended
    await recorder.close()
    expect(recorder.stats.written).toBeGreaterThan(5)
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(recorder.stats.written + 1)
  })

  it('leaves alone an attached source (the caller runs it), and starts nothing once closed', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'beaconkit-rec-')), 'site.jsonl')
    const source = new CountingSimulator({ virtual: true, durationMs: 2000 })
    const recorder = new AdvertisementRecorder(file).attach(source)
    const ended = new Promise<void>((r) => source.once('end', r))
    await source.start()
    await recorder.start()
    await ended
    expect(recorder.stats.written).toBeGreaterThan(0)
    await recorder.close()
    expect(source.starts).toBe(1)
    expect(source.stops).toBe(0)
    const late = new CountingSimulator()
    const closed = new AdvertisementRecorder(join(file, '..', 'late.jsonl'), { source: late })
    await closed.close()
    await closed.start()
    expect(late.starts).toBe(0)
  })

  it('rejects with the source\'s own error when the source cannot start', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'beaconkit-rec-')), 'site.jsonl')
    // A user's own source whose adapter is missing, as NobleSource's start() rejects without Bluetooth.
    class NoAdapter extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
      stops = 0
      async start(): Promise<void> {
        throw new BluetoothUnavailableError('no_adapter', 'no adapter here')
      }
      async stop(): Promise<void> {
        this.stops++
      }
    }
    const source = new NoAdapter()
    const recorder = new AdvertisementRecorder(file, { source })
    await expect(recorder.start()).rejects.toMatchObject({ code: 'no_adapter' })
    await recorder.close()
    expect(source.stops).toBe(0)
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(1)
  })
})
