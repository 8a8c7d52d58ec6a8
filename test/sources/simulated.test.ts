import { describe, it, expect } from 'vitest'
import { decodeAdvertisement } from '../../src/decode/decode.js'
import { Keyring } from '../../src/secure/keyring.js'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { SimulatedSource, distanceAt, representableLux } from '../../src/sources/simulated.js'
import { seededRandom } from '../../src/util/random.js'
import type { SimulatedSourceOptions } from '../../src/sources/simulated.js'
import { SAMPLE_BROADCAST_KEY, siteScenario } from '../../src/sources/scenario.js'
import { advertisementSourceContract } from './source-contract.js'
import { UUID } from './helpers.js'

const KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'

function options(): SimulatedSourceOptions {
  return {
    virtual: true,
    seed: 42,
    durationMs: 5000,
    devices: [
      { address: 'aa:00:00:00:00:01', ibeacon: { proximityUUID: UUID, major: 1, minor: 1, measuredPower: -59 }, distance: 1 },
      { address: 'aa:00:00:00:00:02', vendor: [{ frame: 'e780' }], serialNumber: '0117C5000002', major: 2, minor: 2, distance: 3 },
      { address: 'aa:00:00:00:00:03', vendor: [{ frame: 'e781', mode: 0x41 }, { frame: 'e781', mode: 0x42 }], serialNumber: '0117C5000003', key: parseBroadcastKey(KEY), distance: { from: 1, to: 10, startMs: 0, durationMs: 4000 } },
      { address: 'aa:00:00:00:00:04', ibeacon: { proximityUUID: UUID, major: 4, minor: 4, measuredPower: -59 }, distance: 2, appearAtMs: 2000, leaveAtMs: 3000 },
    ],
  }
}

advertisementSourceContract('SimulatedSource (virtual)', () => ({ source: new SimulatedSource(options()) }))
advertisementSourceContract('SimulatedSource (real time)', () => ({
  source: new SimulatedSource({ seed: 1, devices: [{ address: 'aa:00:00:00:00:09', ibeacon: { proximityUUID: UUID, major: 9, minor: 9, measuredPower: -59 }, intervalMs: 20, distance: 1 }] }),
}))

describe('SimulatedSource', () => {
  it('is deterministic for a seed', () => {
    const a = [...new SimulatedSource(options()).advertisements(5000, 0)]
    const b = [...new SimulatedSource(options()).advertisements(5000, 0)]
    expect(a.length).toBeGreaterThan(20)
    expect(a).toEqual(b)
    const c = [...new SimulatedSource({ ...options(), seed: 43 }).advertisements(5000, 0)]
    expect(c).not.toEqual(a)
  })

  it('produces frames the decoder reads back: plaintext, and encrypted under the key', () => {
    const keyring = new Keyring([KEY])
    const readings = [...new SimulatedSource(options()).advertisements(5000, 0)].map((a) => decodeAdvertisement(a, { keyring }))
    expect(readings.every((r) => r !== null)).toBe(true)
    const d2 = readings.find((r) => r?.address === 'aa:00:00:00:00:02')
    expect(d2).toMatchObject({ serialNumber: '0117C5000002', major: 2, minor: 2, frames: ['e780'] })
    const d3 = readings.filter((r) => r?.address === 'aa:00:00:00:00:03')
    expect(d3.every((r) => r?.secure?.verified === true && r.serialNumber === '0117C5000003')).toBe(true)
    expect(d3.some((r) => r?.movingState === 'moving')).toBe(true)
  })

  it('lets devices come and go and walk', () => {
    const advs = [...new SimulatedSource(options()).advertisements(5000, 0)]
    const d4 = advs.filter((a) => a.address === 'aa:00:00:00:00:04').map((a) => a.timestamp)
    expect(Math.min(...d4)).toBeGreaterThanOrEqual(2000)
    expect(Math.max(...d4)).toBeLessThan(3000)
    const walker = advs.filter((a) => a.address === 'aa:00:00:00:00:03')
    const early = walker.filter((a) => a.timestamp < 1000).map((a) => a.rssi)
    const late = walker.filter((a) => a.timestamp > 3500).map((a) => a.rssi)
    const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length
    expect(mean(early)).toBeGreaterThan(mean(late))
    expect(distanceAt({ from: 1, to: 10, startMs: 0, durationMs: 4000 }, 2000)).toBe(5.5)
  })

  it('has helpers that behave', () => {
    const r = seededRandom(1)
    const xs = Array.from({ length: 1000 }, r)
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
    expect(representableLux(120)).toBeCloseTo(120, 0)
    expect(representableLux(null)).toBeNull()
  })

  it('validates options', () => {
    expect(() => new SimulatedSource({ devices: [{ address: 'AA', distance: 1 }] })).toThrow(expect.objectContaining({ code: 'invalid_option' }))
    expect(() => new SimulatedSource({ devices: [], lossRate: 1 })).toThrow(/lossRate/)
  })
})

describe('the default site (zero-argument SimulatedSource, siteScenario)', () => {
  it('new SimulatedSource() simulates the 12-beacon site of `beaconkit simulate`', () => {
    const advs = [...new SimulatedSource().advertisements(20_000, 0)]
    const addresses = new Set(advs.map((a) => a.address))
    expect(addresses.size).toBe(12)
    // The same site as the command line's default (12 beacons, seed 1), advertisement for advertisement.
    expect(advs).toEqual([...new SimulatedSource({ devices: siteScenario(), seed: 1 }).advertisements(20_000, 0)])
    // Its encrypted devices verify with the public sample key, and only with it.
    const readings = advs.map((a) => decodeAdvertisement(a, { keyring: new Keyring([SAMPLE_BROADCAST_KEY]) }))
    expect(readings.some((r) => r?.secure?.verified === true)).toBe(true)
    expect(readings.some((r) => r?.frames.includes('ibeacon') === true)).toBe(true)
  })

  it('options without devices keep the default site (virtual time, a seed)', async () => {
    const source = new SimulatedSource({ virtual: true, durationMs: 3000, seed: 7 })
    const seen: string[] = []
    source.on('advertisement', (a) => seen.push(a.address))
    const ended = new Promise<void>((resolve) => source.once('end', () => resolve()))
    await source.start()
    await ended
    expect(new Set(seen).size).toBeGreaterThan(6)
    expect([...new SimulatedSource({ seed: 7 }).advertisements(3000, 0)]).toEqual([...new SimulatedSource({ devices: siteScenario(12, 7), seed: 7 }).advertisements(3000, 0)])
  })

  it('siteScenario is public, deterministic and sized as asked', async () => {
    const pkg = await import('../../src/index.js')
    expect(pkg.siteScenario).toBe(siteScenario)
    expect(pkg.SAMPLE_BROADCAST_KEY).toBe(KEY)
    expect(siteScenario(40, 3)).toEqual(siteScenario(40, 3))
    expect(siteScenario(40, 3)).toHaveLength(40)
    expect(siteScenario(1)).toHaveLength(1)
    expect(siteScenario(12, 1)).not.toEqual(siteScenario(12, 2))
    expect(() => siteScenario(0)).toThrow(expect.objectContaining({ code: 'invalid_option' }))
    expect(() => siteScenario(1.5)).toThrow(expect.objectContaining({ code: 'invalid_option' }))
  })
})
