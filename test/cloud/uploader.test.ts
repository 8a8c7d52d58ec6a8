import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventEmitter } from 'eventemitter3'
import { AccountClient } from '../../src/cloud/account-client.js'
import type { CallOptions } from '../../src/cloud/account-options.js'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { Uploader } from '../../src/cloud/uploader.js'
import type { RetryInfo, UploaderOptions } from '../../src/cloud/uploader-options.js'
import { MemoryQueue } from '../../src/queue/queue.js'
import type { DropInfo } from '../../src/queue/queue.js'
import type { BeaconLogRecord } from '../../src/reading.js'
import { VirtualClock } from '../../src/clock.js'
import { AccountError, InvalidOptionError } from '../../src/errors.js'
import type { Beacon } from '../../src/reading.js'
import { reading } from './reading-fixture.js'
import { encodeFrame, encodePayload, segmentName } from '../../src/queue/journal.js'

const EMAIL = 'gw@example.com'
const PASSWORD = 'gateway-secret'
let emu: Emulator
let client: AccountClient
const open: Uploader[] = []
const dirs: string[] = []

beforeAll(async () => {
  emu = await startEmulator({ accounts: [{ email: EMAIL, password: PASSWORD }] })
  client = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD })
})
afterAll(async () => {
  await emu.close()
})
afterEach(async () => {
  emu.setFaults({})
  for (const u of open.splice(0)) await u.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function uploader(options: Partial<UploaderOptions> = {}): Uploader {
  const u = new Uploader({ client, minIntervalPerBeaconMs: 0, retry: { initialDelayMs: 1, maxDelayMs: 10 }, closeTimeoutMs: 2000, ...options })
  open.push(u)
  return u
}

function uploadedIds(): Set<string> {
  return new Set(emu.store.uploads(EMAIL).map((r) => r.msgId))
}

describe('Uploader', () => {
  it('sends records with the 2.7 fields, a unique msgId and the gateway location', async () => {
    const u = uploader({ location: { lat: 47.37, lon: 8.54 } })
    const id = await u.push(reading(100, 1_750_000_000_000))
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    await u.flush()
    const stored = emu.store.uploads(EMAIL).find((r) => r.msgId === id)
    expect(stored).toEqual({
      msgId: id,
      beaconMac: '0117C5000064',
      beaconUMM: 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825|10001|100',
      updatedTime: 1_750_000_000_000,
      location: { lat: 47.37, lon: 8.54 },
      sensor: { temperature: 21.5, light: 120, power: 88, accelerometer: 7 },
      __v: 0,
    })
    expect(u.stats.uploaded).toBe(1)
  })

  it('skips readings without a serial number and within the per-beacon interval', async () => {
    const u = uploader({ minIntervalPerBeaconMs: 30_000 })
    expect(await u.push(reading(1, 0, { serialNumber: undefined }))).toBeUndefined()
    expect(await u.push(reading(1, 1_000_000))).toBeDefined()
    expect(await u.push(reading(1, 1_010_000))).toBeUndefined()
    expect(await u.push(reading(2, 1_010_000))).toBeDefined()
    expect(await u.push(reading(1, 1_030_000))).toBeDefined()
    // A clock stepped back starts the interval afresh rather than muting the beacon.
    expect(await u.push(reading(1, 500_000))).toBeDefined()
    expect(u.stats).toMatchObject({ queued: 4, skippedNoSerial: 1, skippedInterval: 1 })
    // Malformed fields are skipped and counted, not sent to be refused.
    expect(await u.push(reading(3, 1, { beaconID: 42 as unknown as string }))).toBeUndefined()
    expect(u.stats.skippedInvalid).toBe(1)
    expect(await u.push(reading(3, 2))).toBeDefined()
  })

  it('refuses bad input and bad options with typed errors', async () => {
    const u = uploader()
    await expect(u.push(null as unknown as Beacon)).rejects.toBeInstanceOf(InvalidOptionError)
    await expect(u.push({ ...reading(1, 0), timestamp: Number.NaN })).rejects.toBeInstanceOf(InvalidOptionError)
    expect(() => new Uploader({ client, batchSize: 0 })).toThrow(/batchSize/)
    expect(() => new Uploader({ client, location: { lat: 100, lon: 0 } })).toThrow(/location/)
    expect(() => new Uploader({ client: {} as AccountClient })).toThrow(InvalidOptionError)
    expect(() => new Uploader({ client, retry: { initialDelayMs: 100, maxDelayMs: 10 } })).toThrow(/maxDelayMs/)
  })

  it('sends full batches at once and a partial batch after flushIntervalMs', async () => {
    const clock = new VirtualClock(0)
    const u = uploader({ batchSize: 10, flushIntervalMs: 5000, clock })
    const batches: number[] = []
    u.on('uploaded', (i) => batches.push(i.count))
    const full = new Promise<void>((r) => u.once('uploaded', () => r()))
    for (let i = 0; i < 15; i++) await u.push(reading(200 + i, 1000 + i))
    await full
    expect(batches).toEqual([10])
    expect(u.pending).toBe(5)
    // Nothing else can send until the flush timer fires.
    // The flush timer is armed once the first batch's request has finished.
    while (clock.nextDue() === undefined) await new Promise((r) => setImmediate(r))
    expect(clock.nextDue()).toBe(5000)
    const requests = emu.requests
    const partial = new Promise<void>((r) => u.once('uploaded', () => r()))
    clock.advanceBy(5000)
    await partial
    expect(batches).toEqual([10, 5])
    expect(emu.requests).toBe(requests + 1)
    expect(u.pending).toBe(0)
  })

  it('retries through 5xx and honours Retry-After on 429', async () => {
    const clock = new VirtualClock(0)
    const u = uploader({ clock })
    emu.setFaults({ force429: { retryAfterSeconds: 30 } })
    const retry = new Promise<RetryInfo>((r) => u.once('retrying', r))
    const id = await u.push(reading(300, 1))
    const done = u.flush()
    const info = await retry
    expect(info.error.code).toBe('rate_limited')
    expect(info.delayMs).toBeGreaterThanOrEqual(30_000)
    emu.setFaults({ failureRate: 1 })
    const second = new Promise<RetryInfo>((r) => u.once('retrying', r))
    clock.advanceBy(info.delayMs)
    const info2 = await second
    expect(info2.error.code).toBe('server')
    expect(info2.attempt).toBe(2)
    emu.setFaults({})
    clock.advanceBy(info2.delayMs)
    await done
    expect(uploadedIds().has(id as string)).toBe(true)
    expect(u.stats.retries).toBe(2)
  })

  it('stops with an error event on 401, keeps the records, and resumes', async () => {
    const u = uploader()
    const errors: Error[] = []
    u.on('error', (e) => errors.push(e))
    emu.setFaults({ force401: true })
    const id = await u.push(reading(400, 1))
    const err = await u.flush().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AccountError)
    expect((err as AccountError).code).toBe('unauthorized')
    expect(errors).toHaveLength(1)
    expect(u.pending).toBe(1)
    // Still accepts records while stopped.
    const id2 = await u.push(reading(401, 1))
    emu.setFaults({})
    u.resume()
    await u.flush()
    const ids = uploadedIds()
    expect(ids.has(id as string) && ids.has(id2 as string)).toBe(true)
  })

  it('isolates records the server rejects (400) by halving the batch, dropping only those', async () => {
    // A client that spoils two records on their way out, so the real server answers 400.
    const spoiled = new Set([reading(503, 0).serialNumber, reading(512, 0).serialNumber])
    const spoiling = {
      uploadLogs(records: BeaconLogRecord[], options?: CallOptions) {
        const wire = records.map((r) => (spoiled.has(r.beaconMac) ? { ...r, sensor: { light: -1, temperature: 'hot' as unknown as number } } : r))
        return fetch(`${emu.url}/users/me/beacons/logs`, {
          method: 'POST',
          body: JSON.stringify({ logs: wire }),
          headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${EMAIL}:${PASSWORD}`).toString('base64')}` },
          signal: options?.signal,
        }).then((res) => {
          if (res.status === 400) throw new AccountError('bad_request', 'rejected', { status: 400 })
          if (!res.ok) throw new AccountError('server', 'failed', { status: res.status })
          return { sent: records.length }
        })
      },
    }
    const u = uploader({ client: spoiling, batchSize: 16 })
    const drops: DropInfo[] = []
    u.on('dropped', (d) => drops.push(d))
    const ids: string[] = []
    for (let i = 0; i < 16; i++) ids.push((await u.push(reading(500 + i, i))) as string)
    await u.flush()
    const stored = uploadedIds()
    expect(ids.filter((id) => !stored.has(id))).toEqual([ids[3], ids[12]])
    expect(drops.map((d) => [d.count, d.reason])).toEqual([
      [1, 'rejected'],
      [1, 'rejected'],
    ])
    expect(u.stats.rejected).toBe(2)
    expect(u.pending).toBe(0)
  })

  it('attaches to a scanner-like emitter and detaches', async () => {
    const scanner = new EventEmitter<{ found: [Beacon]; gone: [Beacon]; updated: [Beacon[]]; changed: [Beacon, { rssi?: number }] }>()
    const u = uploader()
    const detach = u.attach(scanner)
    const beacon = (n: number, t: number, inRange = true): Beacon => ({ ...reading(n, t), id: `b${n}`, inRange, firstSeen: t, lastSeen: t, smoothedRssi: -60 })
    scanner.emit('found', beacon(600, 1))
    scanner.emit('updated', [beacon(601, 2), beacon(602, 3, false)])
    scanner.emit('changed', beacon(603, 4), { rssi: -50 })
    await u.flush()
    expect(emu.store.uploads(EMAIL).filter((r) => ['0117C5000258', '0117C5000259', '0117C500025A', '0117C500025B'].includes(r.beaconMac)).map((r) => r.beaconMac)).toEqual([
      '0117C5000258',
      '0117C5000259',
      '0117C500025B',
    ])
    detach()
    scanner.emit('found', beacon(604, 5))
    await u.flush()
    expect(u.stats.queued).toBe(3)
    expect(scanner.listenerCount('found')).toBe(0)
  })

  it('on close with a memory queue and the server down, reports what is left as dropped', async () => {
    emu.setFaults({ failureRate: 1 })
    const u = uploader({ closeTimeoutMs: 50 })
    const drops: DropInfo[] = []
    u.on('dropped', (d) => drops.push(d))
    for (let i = 0; i < 3; i++) await u.push(reading(700 + i, i))
    await u.close()
    expect(drops).toEqual([{ count: 3, reason: 'closed' }])
    await expect(u.push(reading(710, 1))).rejects.toThrow(/closed/)
  })

  it('on close, counts a batch the server stored while it was in flight as uploaded, not dropped', async () => {
    const u = uploader({ batchSize: 2, flushIntervalMs: 60_000, closeTimeoutMs: 2000 })
    const drops: DropInfo[] = []
    u.on('dropped', (d) => drops.push(d))
    // The first request is slow but will be stored; every later one fails (faults are read
    // when a request arrives).
    emu.setFaults({ latencyMs: 2500 })
    const sent = new Promise<void>((resolve) => {
      const before = emu.requests
      const check = setInterval(() => {
        if (emu.requests > before) {
          clearInterval(check)
          resolve()
        }
      }, 5)
    })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await u.push(reading(750 + i, i))) as string)
    await sent
    emu.setFaults({ failureRate: 1 })
    await u.close()
    // Wait for the server to have stored the slow batch, however the close went.
    const deadline = Date.now() + 20_000
    while (ids.filter((id) => uploadedIds().has(id)).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    const notStored = ids.filter((id) => !uploadedIds().has(id)).length
    expect(notStored).toBe(3)
    expect(u.stats.dropped).toBe(notStored)
    expect(drops).toEqual([{ count: notStored, reason: 'closed' }])
    expect(u.stats.uploaded).toBe(2)
  })

  it('keeps records of a queueDir across uploader instances', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-up-'))
    dirs.push(dir)
    emu.setFaults({ failureRate: 1 })
    const first = uploader({ queueDir: dir, closeTimeoutMs: 0 })
    const ids: string[] = []
    for (let i = 0; i < 20; i++) ids.push((await first.push(reading(800 + i, i))) as string)
    const drops: DropInfo[] = []
    first.on('dropped', (d) => drops.push(d))
    await first.close()
    expect(drops).toEqual([])
    emu.setFaults({})
    const second = uploader({ queueDir: dir })
    await second.flush()
    const stored = uploadedIds()
    expect(ids.every((id) => stored.has(id))).toBe(true)
    expect(second.stats.uploaded).toBe(20)
    expect(second.pending).toBe(0)
  })

  it('drops a record on disk the server would refuse (valid CRC, no beaconMac) as corrupt, and uploads the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-up-'))
    dirs.push(dir)
    const records: object[] = Array.from({ length: 5 }, (_, i) => ({ msgId: `disk-${i}`, beaconMac: '0117C5456A36', updatedTime: 1_750_000_000_000 + i, sensor: { power: 90 } }))
    records[2] = { msgId: 'disk-2', updatedTime: 1_750_000_000_002, sensor: {} }
    writeFileSync(join(dir, segmentName(1)), Buffer.concat(records.map((r, i) => encodeFrame(i + 1, encodePayload(r)))))
    const u = uploader({ queueDir: dir })
    const drops: DropInfo[] = []
    u.on('dropped', (d) => drops.push(d))
    await u.flush()
    expect(drops).toEqual([{ count: 1, reason: 'corrupt', segment: segmentName(1), salvaged: 2 }])
    const stored = uploadedIds()
    expect(['disk-0', 'disk-1', 'disk-3', 'disk-4'].every((id) => stored.has(id))).toBe(true)
    expect(stored.has('disk-2')).toBe(false)
    expect(u.pending).toBe(0)
  })

  it('reports records dropped by the disk bound', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-up-'))
    dirs.push(dir)
    emu.setFaults({ failureRate: 1 })
    const u = uploader({ queueDir: dir, maxQueueBytes: 64 * 1024, batchSize: 100_000, flushIntervalMs: 60_000, closeTimeoutMs: 0 })
    const drops: DropInfo[] = []
    u.on('dropped', (d) => drops.push(d))
    for (let i = 0; i < 1000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => u.push(reading(1000 + i + k, i + k))))
    expect(drops.length).toBeGreaterThan(0)
    expect(u.stats.dropped).toBe(drops.reduce((n, d) => n + d.count, 0))
    expect(u.pending + u.stats.dropped).toBe(1000)
  })

  it('takes a pluggable queue, and survives that queue failing a read', async () => {
    class FlakyQueue extends MemoryQueue {
      failures = 1
      override peek(max: number) {
        if (this.failures-- > 0) return Promise.reject(new Error('disk read failed'))
        return super.peek(max)
      }
    }
    const queue = new FlakyQueue()
    const u = uploader({ queue, flushIntervalMs: 5 })
    const errors: Error[] = []
    u.on('error', (e) => errors.push(e))
    const id = await u.push(reading(900, 1))
    await u.flush()
    expect(errors.map((e) => e.message)).toEqual(['disk read failed'])
    expect(uploadedIds().has(id as string)).toBe(true)
    expect(queue.size).toBe(0)
  })

  it('reports an unusable queueDir as an error', async () => {
    const errors: Error[] = []
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-up-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'file'), 'x')
    const u = uploader({ queueDir: join(dir, 'file', 'queue') })
    u.on('error', (e) => errors.push(e))
    await expect(u.push(reading(1, 1))).rejects.toBeInstanceOf(InvalidOptionError)
    expect(errors[0]).toBeInstanceOf(InvalidOptionError)
  })
})
