import { describe, it, expect } from 'vitest'
import { EntryNumbers, NUMBERS_PER_ENTRY } from '../../src/range/entry-numbers.js'

describe('EntryNumbers', () => {
  it('hands out distinct slots, grows without losing values, and reuses given-back slots', () => {
    const numbers = new EntryNumbers()
    const bases: number[] = []
    for (let i = 0; i < 1000; i++) {
      const base = numbers.take()
      numbers.values[base] = i
      numbers.values[base + NUMBERS_PER_ENTRY - 1] = -i
      bases.push(base)
    }
    expect(new Set(bases).size).toBe(1000)
    bases.forEach((base, i) => {
      expect(numbers.values[base]).toBe(i)
      expect(numbers.values[base + NUMBERS_PER_ENTRY - 1]).toBe(-i)
    })
    // Grown by half each time, not doubled: at most 1.5× (+ rounding) what 1,000 entries need.
    expect(numbers.values.length).toBeLessThanOrEqual(1500 * NUMBERS_PER_ENTRY + NUMBERS_PER_ENTRY)
    numbers.give(bases[10])
    expect(numbers.used).toBe(999)
    expect(numbers.take()).toBe(bases[10])
  })

  it('shrinks back to its first size once every slot is given back', () => {
    const numbers = new EntryNumbers()
    const first = numbers.values.length
    const bases = Array.from({ length: 500 }, () => numbers.take())
    expect(numbers.values.length).toBeGreaterThan(first)
    for (const base of bases) numbers.give(base)
    expect(numbers.used).toBe(0)
    expect(numbers.values.length).toBe(first)
    expect(numbers.take()).toBe(0)
  })
})
