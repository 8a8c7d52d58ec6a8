import { describe, it, expect } from 'vitest'
import { ArmaFilter, DEFAULT_SMOOTHING, TimeDecayFilter, TrimmedMeanFilter, createRssiFilter } from '../../src/range/rssi-filter.js'
import type { RssiFilter, SmoothingState } from '../../src/range/rssi-filter.js'

/** One beacon's samples through `filter`, its state moved on the way the range table does. */
function track(filter: RssiFilter): { add(rssi: number, t?: number): void; value(t?: number): number } {
  // What a new tracked entry starts with.
  const state: SmoothingState = { smoothed: Number.NaN, weight: 0, lastSeen: 0, window: undefined }
  let last = 0
  return {
    add(rssi, t = last) {
      filter.add(state, rssi, t)
      last = t
      ;(state as { lastSeen: number }).lastSeen = t
    },
    value: (t = last) => filter.value(state, t),
  }
}

describe('ArmaFilter', () => {
  it('starts at the first sample and moves a factor of the way to each new one', () => {
    const f = track(new ArmaFilter(0.25))
    expect(f.value()).toBeNaN()
    f.add(-60)
    expect(f.value()).toBe(-60)
    f.add(-80)
    expect(f.value()).toBe(-65)
  })
})

describe('TimeDecayFilter', () => {
  it('weighs simultaneous samples equally and fades old ones with time', () => {
    const f = track(new TimeDecayFilter(1000))
    f.add(-60, 0)
    f.add(-70, 0)
    expect(f.value()).toBe(-65)
    const g = track(new TimeDecayFilter(1000))
    g.add(-60, 0)
    g.add(-70, 1000)
    // Weight of the old sample is e^-1: s = (-60 e^-1 - 70) / (e^-1 + 1).
    expect(g.value()).toBeCloseTo((-60 * Math.exp(-1) - 70) / (Math.exp(-1) + 1), 10)
  })

  it('has the same lag at any sample rate', () => {
    const settle = (interval: number): number => {
      const f = track(new TimeDecayFilter(1500))
      let t = 0
      for (; t < 10_000; t += interval) f.add(-50, t)
      const start = t
      while (f.value() > -60) {
        f.add(-70, t)
        t += interval
      }
      return t - start
    }
    expect(Math.abs(settle(100) - settle(250))).toBeLessThanOrEqual(250)
  })
})

describe('TrimmedMeanFilter', () => {
  it('averages the window after trimming the extremes', () => {
    const f = track(new TrimmedMeanFilter(1000, 0.1, 32))
    const samples = [-60, -61, -59, -60, -100, -60, -20, -61, -59, -60]
    samples.forEach((s, i) => f.add(s, i * 10))
    // 10 samples, 10 % trimmed at each end: -100 and -20 are dropped.
    expect(f.value(100)).toBeCloseTo(-60, 5)
  })

  it('forgets samples older than the window but keeps the newest when all are old', () => {
    const f = track(new TrimmedMeanFilter(1000, 0, 32))
    f.add(-90, 0)
    f.add(-50, 1500)
    expect(f.value(1600)).toBe(-50)
    expect(f.value(10_000)).toBe(-50)
  })

  it('keeps each beacon\'s samples apart (one filter serves every beacon)', () => {
    const filter = new TrimmedMeanFilter(1000, 0, 32)
    const a = track(filter)
    const b = track(filter)
    a.add(-40, 0)
    b.add(-80, 0)
    b.add(-90, 10)
    expect(a.value(20)).toBe(-40)
    expect(b.value(20)).toBe(-85)
  })

  it('holds at most maxSamples', () => {
    const f = track(new TrimmedMeanFilter(10_000, 0, 4))
    for (let i = 0; i < 8; i++) f.add(i < 4 ? -100 : -50, i)
    expect(f.value(8)).toBe(-50)
  })
})

describe('createRssiFilter', () => {
  it('defaults to ARMA and validates options', () => {
    expect(DEFAULT_SMOOTHING.method).toBe('arma')
    expect(createRssiFilter()).toBeInstanceOf(TimeDecayFilter)
    expect(createRssiFilter({ method: 'arma', factor: 0.1 })).toBeInstanceOf(ArmaFilter)
    expect(() => createRssiFilter({ method: 'arma', timeConstantMs: -1 })).toThrow(/timeConstantMs/)
    expect(() => createRssiFilter({ method: 'arma', factor: 2 })).toThrow(expect.objectContaining({ code: 'invalid_option', option: 'smoothing' }))
    expect(() => createRssiFilter({ method: 'trimmed-mean', trim: 0.5 })).toThrow(/trim/)
    expect(() => createRssiFilter({ method: 'kalman' } as never)).toThrow(/unknown method/)
  })
})
