import { describe, it, expect } from 'vitest'
import { RssiHistory, sparkline } from '../../../src/cli/ui/sparkline.js'

describe('sparkline', () => {
  it('maps the fixed dBm scale onto eight levels, oldest on the left', () => {
    const samples = [-100, -91, -83, -74, -66, -57, -49, -40].map((rssi, i) => ({ t: (i + 1) * 1000, rssi }))
    expect(sparkline(samples, { now: 8000, windowMs: 8000, width: 8 })).toBe('▁▂▃▄▅▆▇█')
  })

  it('leaves a blank where nothing was heard and averages within a bucket', () => {
    const samples = [
      { t: 1000, rssi: -100 },
      { t: 2000, rssi: -40 },
      { t: 2000, rssi: -100 },
    ]
    // Buckets of 1 s over (0, 4000]: heard in the first two, silent in the last two.
    expect(sparkline(samples, { now: 4000, windowMs: 4000, width: 4 })).toBe('▁▅  ')
  })

  it('ignores samples outside the window and clamps out-of-scale values', () => {
    const samples = [
      { t: 0, rssi: -50 },
      { t: 5000, rssi: 10 },
      { t: 6000, rssi: -200 },
    ]
    expect(sparkline(samples, { now: 6000, windowMs: 2000, width: 2 })).toBe('█▁')
  })

  it('has the requested width even with no samples', () => {
    expect(sparkline([], { now: 0 })).toBe(' '.repeat(15))
  })
})

describe('RssiHistory', () => {
  it('keeps one sample per tick within the window and forgets beacons that aged out', () => {
    const h = new RssiHistory(3000)
    h.record([{ id: 'a', rssi: -50 }, { id: 'b', rssi: -70 }], 1000)
    h.record([{ id: 'a', rssi: -51 }], 2000)
    h.record([{ id: 'a', rssi: -52 }], 4000)
    expect(h.samples('a')).toEqual([
      { t: 2000, rssi: -51 },
      { t: 4000, rssi: -52 },
    ])
    expect(h.samples('b')).toEqual([])
    expect(h.size).toBe(1)
    h.forget('a')
    expect(h.size).toBe(0)
  })
})
