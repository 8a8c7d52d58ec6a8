import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import type { Beacon } from '../../src/reading.js'
import { sortByAccuracy } from '../../src/range/ranking.js'

/** The specification: accuracy ascending (to 0.1 mm), unknown (negative or absent) last, ties in list order. */
function reference(list: Beacon[]): Beacon[] {
  const rank = (b: Beacon): number => {
    const acc = b.accuracy ?? -1
    return acc < 0 ? 2 ** 32 : Math.min(2 ** 32 - 1, Math.round(acc * 10_000))
  }
  return list
    .map((b, i) => ({ b, i }))
    .sort((x, y) => rank(x.b) - rank(y.b) || x.i - y.i)
    .map((x) => x.b)
}

const beacon = (id: number, accuracy: number | undefined): Beacon => ({ id: String(id), ...(accuracy === undefined ? {} : { accuracy }) }) as Beacon

describe('sortByAccuracy', () => {
  it('orders by accuracy, unknown last, ties in list order (property)', () => {
    const accuracy = fc.oneof(
      fc.constantFrom(-1, undefined, 0, 0.5, 1.2345, 4, 20),
      fc.integer({ min: 0, max: 300_000 }).map((k) => k / 10_000),
      fc.double({ min: 0, max: 1e7, noNaN: true }),
    )
    fc.assert(
      fc.property(fc.array(accuracy, { maxLength: 300 }), (accs) => {
        const list = accs.map((a, i) => beacon(i, a))
        expect(sortByAccuracy(list).map((b) => b.id)).toEqual(reference(list).map((b) => b.id))
      }),
    )
  })

  it('keeps the order of 10,000 beacons sharing a few hundred accuracies', () => {
    const list: Beacon[] = []
    let s = 7
    for (let i = 0; i < 10_000; i++) {
      s = (s * 1103515245 + 12345) % 2 ** 31
      list.push(beacon(i, s % 50 === 0 ? -1 : (s % 400) / 37))
    }
    const sorted = sortByAccuracy(list)
    expect(sorted).toHaveLength(10_000)
    expect(sorted.map((b) => b.id)).toEqual(reference(list).map((b) => b.id))
  })

  it('sorts accuracies beyond the key range (clamped) before unknown ones', () => {
    const list = [beacon(0, -1), beacon(1, 1e9), beacon(2, 3), beacon(3, 1e12)]
    expect(sortByAccuracy(list).map((b) => b.id)).toEqual(['2', '1', '3', '0'])
  })
})
