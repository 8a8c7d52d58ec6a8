/**
 * The contract every AdvertisementSource must meet (the aedes-persistence pattern: one abstract
 * suite, run against each implementation). Call it from a test file:
 *
 *   advertisementSourceContract('ReplaySource', async () => ({ source: new ReplaySource(lines, { virtual: true }) }))
 *
 * `make` returns a fresh, unstarted source that produces at least `minAdvertisements`
 * advertisements after start() (plus an optional `cleanup`).
 */
import { describe, it, expect } from 'vitest'
import type { Advertisement } from '../../src/advertisement.js'
import type { AdvertisementSource } from '../../src/sources/source.js'

export interface ContractSubject {
  source: AdvertisementSource
  cleanup?: () => Promise<void> | void
}

function collect(source: AdvertisementSource, n: number): Promise<Advertisement[]> {
  const got: Advertisement[] = []
  return new Promise((resolve, reject) => {
    source.on('error', reject)
    source.on('advertisement', (adv) => {
      got.push(adv)
      if (got.length === n) resolve(got)
    })
  })
}

/** Registers the contract tests for one implementation. */
export function advertisementSourceContract(name: string, make: () => Promise<ContractSubject> | ContractSubject, minAdvertisements = 3): void {
  describe(`AdvertisementSource contract: ${name}`, () => {
    it('emits well-formed advertisement snapshots after start()', async () => {
      const { source, cleanup } = await make()
      try {
        const pending = collect(source, minAdvertisements)
        await expect(source.start()).resolves.toBeUndefined()
        const advs = await pending
        for (const adv of advs) {
          expect(adv.address).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/)
          expect(Number.isFinite(adv.rssi)).toBe(true)
          expect(Number.isFinite(adv.timestamp)).toBe(true)
          if (adv.manufacturerData !== undefined) expect(adv.manufacturerData).toBeInstanceOf(Uint8Array)
          for (const sd of adv.serviceData ?? []) {
            expect(typeof sd.uuid).toBe('string')
            expect(sd.data).toBeInstanceOf(Uint8Array)
          }
        }
        // Timestamps never run backwards within one source.
        for (let i = 1; i < advs.length; i++) expect(advs[i].timestamp).toBeGreaterThanOrEqual(advs[i - 1].timestamp)
      } finally {
        await source.stop()
        await cleanup?.()
      }
    })

    it('treats a second start() and a second stop() as harmless', async () => {
      const { source, cleanup } = await make()
      try {
        const pending = collect(source, 1)
        await source.start()
        await source.start()
        await pending
        await source.stop()
        await expect(source.stop()).resolves.toBeUndefined()
      } finally {
        await cleanup?.()
      }
    })

    it('emits nothing after stop() has resolved', async () => {
      const { source, cleanup } = await make()
      try {
        const pending = collect(source, 1)
        await source.start()
        await pending
        await source.stop()
        let late = 0
        source.on('advertisement', () => late++)
        // Give any already scheduled work a few turns of the event loop to misbehave.
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
        expect(late).toBe(0)
      } finally {
        await cleanup?.()
      }
    })

    it('exposes a clock whose time matches the timestamps, if it has one', async () => {
      const { source, cleanup } = await make()
      try {
        const clock = source.clock
        if (clock === undefined) {
          expect(clock).toBeUndefined()
          return
        }
        const seen: number[] = []
        source.on('advertisement', (adv) => seen.push(clock.now() - adv.timestamp))
        const pending = collect(source, minAdvertisements)
        await source.start()
        await pending
        expect(seen.every((d) => d === 0)).toBe(true)
      } finally {
        await source.stop()
        await cleanup?.()
      }
    })
  })
}
