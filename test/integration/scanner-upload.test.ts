/**
 * From recording to cloud: the demo recording replayed in virtual time through a real
 * BeaconScanner, an attached Uploader, and the emulator over loopback HTTP.
 */
import { describe, it, expect, afterAll, beforeAll } from 'vitest'
import { fileURLToPath } from 'node:url'
import { AccountClient } from '../../src/cloud/account-client.js'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { Uploader } from '../../src/cloud/uploader.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { ReplaySource } from '../../src/sources/replay.js'

const demo = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))
const TEST_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ accounts: [{ email: 'site@example.com', password: 'site-password' }] })
})
afterAll(async () => {
  await emu.close()
})

describe('scanner → uploader → emulator', () => {
  it('uploads each identified beacon at most once per interval with its sensor values', async () => {
    const source = new ReplaySource(demo, { virtual: true })
    const scanner = new BeaconScanner({ source, keys: [TEST_KEY] })
    const client = new AccountClient({ baseUrl: emu.url, email: 'site@example.com', password: 'site-password' })
    const uploader = new Uploader({ client, location: { lat: 52.52, lon: 13.405 } })
    const detach = uploader.attach(scanner)
    await scanner.start()
    const start = Number(source.header?.startTime)
    await scanner.drain()
    await scanner.stop()
    detach()
    await uploader.flush()
    await uploader.close()

    const records = emu.store.uploads('site@example.com')
    const macs = new Set(records.map((r) => r.beaconMac))
    for (const serial of ['0117C5000002', '0117C5000003', '0117C5000004', '0117C5000005']) expect(macs.has(serial)).toBe(true)
    // The iBeacon-only device has no serial number: skipped, not guessed at.
    expect(uploader.stats.skippedNoSerial).toBeGreaterThan(0)
    expect(uploader.stats.skippedInterval).toBeGreaterThan(0)
    expect(uploader.stats.uploaded).toBe(records.length)

    const byMac = new Map<string, number[]>()
    for (const r of records) {
      expect(r.beaconMac).toMatch(/^0117C5[0-9A-F]{6}$/)
      expect(r.location).toEqual({ lat: 52.52, lon: 13.405 })
      expect(r.updatedTime).toBeGreaterThanOrEqual(start)
      expect(r.updatedTime).toBeLessThanOrEqual(start + 90_000)
      for (const v of Object.values(r.sensor)) expect(typeof v).toBe('number')
      byMac.set(r.beaconMac, [...(byMac.get(r.beaconMac) ?? []), r.updatedTime])
    }
    for (const times of byMac.values()) {
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(30_000)
      expect(times.length).toBeLessThanOrEqual(4)
    }
    // The vendor frames carry battery levels; at least one record per plaintext device reports it.
    expect(records.some((r) => r.beaconMac === '0117C5000003' && typeof r.sensor.power === 'number')).toBe(true)
  })
})
