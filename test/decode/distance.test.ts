// PROTOCOL.md 4: accuracy from RSSI and measured power; proximity zones.
import { describe, expect, it } from 'vitest'
import { accuracy, checkProximityThresholds, proximity } from '../../src/decode/distance.js'
import { InvalidOptionError } from '../../src/errors.js'

describe('accuracy', () => {
  it('uses r^10 below a ratio of 1 and the fitted curve from 1 on, rounded to 4 decimals', () => {
    expect(accuracy(-50, -59)).toBe(Math.round((50 / 59) ** 10 * 1e4) / 1e4)
    expect(accuracy(-59, -59)).toBe(Math.round((0.89976 + 0.111) * 1e4) / 1e4)
    expect(accuracy(-80, -59)).toBe(Math.round((0.89976 * (80 / 59) ** 7.7095 + 0.111) * 1e4) / 1e4)
  })
  it('is -1 when either value is 0 or missing', () => {
    expect(accuracy(0, -59)).toBe(-1)
    expect(accuracy(-60, 0)).toBe(-1)
    expect(accuracy(-60, undefined)).toBe(-1)
    expect(accuracy(Number.NaN, -59)).toBe(-1)
  })
  it('grows with weaker signal', () => {
    let last = -1
    for (let rssi = -40; rssi >= -100; rssi--) {
      const a = accuracy(rssi, -59)
      expect(a).toBeGreaterThanOrEqual(last)
      last = a
    }
  })
})

describe('proximity', () => {
  it('maps accuracy to zones with the default thresholds', () => {
    expect(proximity(-1)).toBe('unknown')
    expect(proximity(0)).toBe('immediate')
    expect(proximity(0.4999)).toBe('immediate')
    expect(proximity(0.5)).toBe('near')
    expect(proximity(4)).toBe('near')
    expect(proximity(4.0001)).toBe('far')
  })
  it('takes configured thresholds and validates them', () => {
    expect(proximity(1, { immediate: 1.5, near: 10 })).toBe('immediate')
    expect(proximity(11, { immediate: 1.5, near: 10 })).toBe('far')
    expect(() => checkProximityThresholds({ immediate: 5, near: 1 })).toThrow(InvalidOptionError)
    expect(() => checkProximityThresholds(null)).toThrow(/immediate/)
    expect(checkProximityThresholds({ immediate: 1, near: 2 })).toEqual({ immediate: 1, near: 2 })
  })
})
