import { describe, it, expect } from 'vitest'
import { ArmaFilter, DEFAULT_SMOOTHING, TrimmedMeanFilter, rssiFilterFactory } from '../../src/range/rssi-filter.js'

describe('ArmaFilter', () => {
  it('starts at the first sample and moves a factor of the way to each new one', () => {
    const f = new ArmaFilter(0.25)
    expect(f.value()).toBeNaN()
    f.add(-60)
    expect(f.value()).toBe(-60)
    f.add(-80)
    expect(f.value()).toBe(-65)
  })
})

describe('TrimmedMeanFilter', () => {
  it('averages the window after trimming the extremes', () => {
    const f = new TrimmedMeanFilter(1000, 0.1, 32)
    const samples = [-60, -61, -59, -60, -100, -60, -20, -61, -59, -60]
    samples.forEach((s, i) => f.add(s, i * 10))
    // 10 samples, 10 % trimmed at each end: -100 and -20 are dropped.
    expect(f.value(100)).toBeCloseTo(-60, 5)
  })

  it('forgets samples older than the window but keeps the newest when all are old', () => {
    const f = new TrimmedMeanFilter(1000, 0, 32)
    f.add(-90, 0)
    f.add(-50, 1500)
    expect(f.value(1600)).toBe(-50)
    expect(f.value(10_000)).toBe(-50)
  })

  it('holds at most maxSamples', () => {
    const f = new TrimmedMeanFilter(10_000, 0, 4)
    for (let i = 0; i < 8; i++) f.add(i < 4 ? -100 : -50, i)
    expect(f.value(8)).toBe(-50)
  })
})

describe('rssiFilterFactory', () => {
  it('defaults to ARMA and validates options', () => {
    expect(DEFAULT_SMOOTHING.method).toBe('arma')
    expect(rssiFilterFactory()()).toBeInstanceOf(ArmaFilter)
    expect(() => rssiFilterFactory({ method: 'arma', factor: 2 })).toThrow(expect.objectContaining({ code: 'invalid_option', option: 'smoothing' }))
    expect(() => rssiFilterFactory({ method: 'trimmed-mean', trim: 0.5 })).toThrow(/trim/)
    expect(() => rssiFilterFactory({ method: 'kalman' } as never)).toThrow(/unknown method/)
  })
})
