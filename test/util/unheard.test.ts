/**
 * An error nobody listens to must not vanish (eventemitter3 drops it): the Uploader and the
 * BeaconScanner turn it into a process warning, once per emitter and error code.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest'
import { AccountClient } from '../../src/cloud/account-client.js'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { Uploader } from '../../src/cloud/uploader.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { UNHEARD_ERROR_WARNING } from '../../src/util/unheard.js'
import { reading } from '../cloud/reading-fixture.js'
import { ibeaconLine } from '../sources/helpers.js'

let emu: Emulator
let client: AccountClient
let warnings: Error[] = []
const onWarning = (w: Error): void => {
  warnings.push(w)
}
beforeAll(async () => {
  emu = await startEmulator({ accounts: [{ email: 'w@example.com', password: 'w-password' }] })
  client = new AccountClient({ baseUrl: emu.url, email: 'w@example.com', password: 'w-password' })
  process.on('warning', onWarning)
})
afterAll(async () => {
  process.off('warning', onWarning)
  await emu.close()
})
afterEach(() => {
  warnings = []
  emu.setFaults({})
})

/** process.emitWarning delivers on a later tick. */
const nextTicks = (): Promise<void> => new Promise((r) => setImmediate(r))
const unheard = (): Error[] => warnings.filter((w) => (w as Error & { code?: string }).code === UNHEARD_ERROR_WARNING)

describe('errors with no error listener', () => {
  it('an Uploader warns once per error code instead of dropping the error silently', async () => {
    const u = new Uploader({ client, minIntervalPerBeaconMs: 0, closeTimeoutMs: 0 })
    emu.setFaults({ force401: true })
    await u.push(reading(1, 1))
    await expect(u.flush()).rejects.toMatchObject({ code: 'unauthorized' })
    await nextTicks()
    expect(unheard()).toHaveLength(1)
    expect(unheard()[0].name).toBe('BeaconkitWarning')
    expect(unheard()[0].message).toMatch(/^Uploader error with no 'error' listener \(unauthorized\)/)
    // The same failure again: not repeated.
    u.resume()
    await expect(u.flush()).rejects.toMatchObject({ code: 'unauthorized' })
    await nextTicks()
    expect(unheard()).toHaveLength(1)
    await u.close()
  })

  it('an Uploader with an error listener does not warn', async () => {
    const u = new Uploader({ client, minIntervalPerBeaconMs: 0, closeTimeoutMs: 0 })
    const errors: Error[] = []
    u.on('error', (e) => errors.push(e))
    emu.setFaults({ force401: true })
    await u.push(reading(2, 1))
    await expect(u.flush()).rejects.toMatchObject({ code: 'unauthorized' })
    await nextTicks()
    expect(errors).toHaveLength(1)
    expect(unheard()).toEqual([])
    await u.close()
  })

  it('a BeaconScanner makes a throwing listener visible when nobody listens to error', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource([ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1), ibeaconLine(100, 'aa:00:00:00:00:02', 1, 2)], { virtual: true }) })
    const found: string[] = []
    scanner.on('found', () => {
      throw new Error('listener bug')
    })
    scanner.on('found', (b) => found.push(b.id))
    await scanner.start()
    await scanner.drain()
    await scanner.stop()
    await nextTicks()
    // Scanning went on; the two throws (same code) gave one warning.
    expect(found).toHaveLength(2)
    expect(scanner.stats.listenerErrors).toBe(2)
    expect(unheard().map((w) => w.message)).toEqual([expect.stringMatching(/^BeaconScanner error with no 'error' listener \(Error\): listener bug/)])
  })

  it('a BeaconScanner whose error listener itself throws still reports it', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource([ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1)], { virtual: true }) })
    scanner.on('found', () => {
      throw new Error('first bug')
    })
    scanner.on('error', () => {
      throw new Error('error handler bug')
    })
    await scanner.start()
    await scanner.drain()
    await scanner.stop()
    await nextTicks()
    expect(unheard().map((w) => w.message)).toEqual([expect.stringContaining('error handler bug')])
  })
})
