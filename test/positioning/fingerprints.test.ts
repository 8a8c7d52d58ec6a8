// Taught fingerprints (#39): a teaching's per-gateway mean and spread, the store's bounds (rooms ×
// samples × gateways), and the match that prefers the room whose pattern the readings follow.
import { describe, expect, it } from 'vitest'
import { FingerprintRecorder, Fingerprints, matchFingerprint } from '../../src/positioning/fingerprints.js'

describe('fingerprints', () => {
  it('a teaching keeps each gateway\'s mean and spread, leaving out gateways heard in under a third of it', () => {
    const rec = new FingerprintRecorder('Kitchen', 'ground')
    for (let i = 0; i < 9; i++) rec.add([{ gateway: 'k', rssi: i % 2 === 0 ? -60 : -64 }, ...(i < 2 ? [{ gateway: 'far', rssi: -90 }] : [])])
    const s = rec.finish(1000)
    expect(s).toMatchObject({ room: 'Kitchen', floor: 'ground', taught: 1000, readings: 9 })
    expect(Object.keys(s?.gateways ?? {})).toEqual(['k'])
    expect(s?.gateways.k.mean).toBeCloseTo(-61.78, 1)
    expect(s?.gateways.k.sd).toBeCloseTo(2.11, 1)
    expect(new FingerprintRecorder('Empty').finish(0)).toBeUndefined()
    // A gateway id that is a property of every object is a gateway like any other.
    const odd = new FingerprintRecorder('Hall')
    odd.add([{ gateway: '__proto__', rssi: -70 }])
    expect(Object.keys(odd.finish(0)?.gateways ?? {})).toEqual(['__proto__'])
  })

  it('is bounded: rooms, samples per room (the oldest gives way), gateways per sample (the strongest stay)', () => {
    const store = new Fingerprints({ maxRooms: 2, maxSamplesPerRoom: 2, maxGatewaysPerSample: 2 })
    const sample = (room: string, taught: number) => ({ room, taught, readings: 1, gateways: { a: { mean: -60, sd: 1, n: 1 } } })
    expect(store.add(sample('A', 1))).toBe(true)
    expect(store.add(sample('A', 2))).toBe(true)
    expect(store.add(sample('A', 3))).toBe(true)
    expect(store.of('A').map((s) => s.taught)).toEqual([2, 3])
    expect(store.add(sample('B', 1))).toBe(true)
    expect(store.add(sample('C', 1))).toBe(false)
    expect(store.rooms).toBe(2)
    const rec = new FingerprintRecorder('A')
    rec.add([{ gateway: 'x', rssi: -80 }, { gateway: 'y', rssi: -60 }, { gateway: 'z', rssi: -70 }])
    expect(Object.keys(rec.finish(0, store.maxGatewaysPerSample)?.gateways ?? {})).toEqual(['y', 'z'])
    store.clear('A')
    expect(store.taught('A')).toBe(false)
  })

  it('matches the room whose pattern the readings follow; silence where the pattern hears counts against', () => {
    const kitchen = { room: 'Kitchen', taught: 0, readings: 20, gateways: { k: { mean: -60, sd: 2, n: 20 }, h: { mean: -78, sd: 3, n: 20 } } }
    const hall = { room: 'Hall', taught: 0, readings: 20, gateways: { k: { mean: -75, sd: 2, n: 20 }, h: { mean: -62, sd: 3, n: 20 } } }
    const heard = new Map([['k', -62], ['h', -80]])
    const up = (): boolean => true
    expect(matchFingerprint(kitchen, heard, up)).toBeGreaterThan(matchFingerprint(hall, heard, up))
    const onlyK = new Map([['k', -60]])
    // h is silent: the kitchen pattern expects it at −78, the hall's at −62 (far above what silence allows).
    expect(matchFingerprint(kitchen, onlyK, up)).toBeGreaterThan(matchFingerprint(hall, onlyK, up))
    // h offline: its silence is no evidence at all.
    expect(matchFingerprint(kitchen, onlyK, (g) => g !== 'h')).toBeCloseTo(0, 5)
  })
})
