/**
 * At-least-once through a hostile network: half the requests fail with 500, others lose their
 * connection (before or after the server stored the batch), and every record still arrives,
 * duplicates recognisable by msgId.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AccountClient } from '../../src/cloud/account-client.js'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { Uploader } from '../../src/cloud/uploader.js'
import type { BeaconReading } from '../../src/reading.js'

let emu: Emulator
let dir: string
beforeAll(async () => {
  emu = await startEmulator({
    accounts: [
      { email: 'mem@example.com', password: 'p1' },
      { email: 'file@example.com', password: 'p2' },
    ],
    seed: 11,
    faults: { failureRate: 0.5, resetRate: 0.3 },
  })
  dir = mkdtempSync(join(tmpdir(), 'beaconkit-faults-'))
})
afterAll(async () => {
  await emu.close()
  rmSync(dir, { recursive: true, force: true })
})

function reading(n: number): BeaconReading {
  return {
    address: 'c0:00:00:00:00:02',
    timestamp: 1_800_000_000_000 + n,
    rssi: -70,
    frames: ['e780'],
    serialNumber: `0117C5${n.toString(16).toUpperCase().padStart(6, '0')}`,
    light: n % 1000,
  }
}

describe.each([
  ['memory queue', 'mem@example.com', 'p1', undefined],
  ['file queue', 'file@example.com', 'p2', 'queue'],
])('uploader with a %s through 50%% failures and connection resets', (_name, email, password, queueSub) => {
  it('delivers every record', async () => {
    const client = new AccountClient({ baseUrl: emu.url, email, password, retry: { retries: 0 } })
    const uploader = new Uploader({
      client,
      ...(queueSub === undefined ? {} : { queueDir: join(dir, queueSub) }),
      batchSize: 100,
      flushIntervalMs: 5,
      minIntervalPerBeaconMs: 0,
      retry: { initialDelayMs: 1, maxDelayMs: 8 },
    })
    const errors: Error[] = []
    uploader.on('error', (e) => errors.push(e))
    const ids: string[] = []
    for (let i = 0; i < 3000; i += 100) {
      ids.push(...((await Promise.all(Array.from({ length: 100 }, (_, k) => uploader.push(reading(i + k))))) as string[]))
    }
    await uploader.flush()
    await uploader.close()

    const stored = emu.store.uploads(email).map((r) => r.msgId)
    const storedSet = new Set(stored)
    expect(ids.filter((id) => !storedSet.has(id))).toEqual([])
    // The emulator stores each msgId once however often it was sent.
    expect(stored.length).toBe(storedSet.size)
    expect(stored.length).toBe(3000)
    // Some answers were lost after the batch was stored: those batches were sent again.
    expect(emu.store.duplicates).toBeGreaterThan(0)
    expect(errors).toEqual([])
    expect(uploader.stats.retries).toBeGreaterThan(0)
    expect(uploader.stats.uploaded).toBe(3000)
  })
})
