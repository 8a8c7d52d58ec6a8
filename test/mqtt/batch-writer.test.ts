// The RSSI batch's byte writer against JSON.stringify, over the numbers a batch can carry.
import { describe, expect, it } from 'vitest'
import { BatchWriter } from '../../src/mqtt/batch-writer.js'

function written(write: (w: BatchWriter) => void): string {
  const w = new BatchWriter()
  write(w)
  return w.take().toString('latin1')
}

/** A seeded xorshift in [0, 1): the same cases on every run. */
function random(seed: number): () => number {
  let s = seed
  return () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) / 2 ** 32
  }
}

const EDGES = [0, -0, 1, -1, 9, 10, 99, 100, 1e15, -1e15, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 60, 1e21, 1e-7, 0.1, -0.05, -0.04, 0.05, 0.95, -63.25, -63.35, 1.7e12, 1_732_000_000_123, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE, Number.MAX_VALUE]

describe('BatchWriter', () => {
  it('writes numbers as JSON.stringify does', () => {
    const next = random(7)
    const cases = [...EDGES]
    for (let i = 0; i < 2000; i++) cases.push(Math.round((next() - 0.5) * 10 ** Math.floor(next() * 16)), (next() - 0.5) * 10 ** Math.floor(next() * 20 - 4))
    for (const x of cases) expect(written((w) => w.number(x)), String(x)).toBe(JSON.stringify(x))
  })

  it('writes tenths as JSON.stringify writes Math.round(x * 10) / 10', () => {
    const next = random(11)
    const cases = [...EDGES]
    for (let i = 0; i < 2000; i++) cases.push(-130 + next() * 150, Math.round(-1300 + next() * 1500) / 10)
    for (const x of cases) expect(written((w) => w.tenths(x)), String(x)).toBe(JSON.stringify(Math.round(x * 10) / 10))
  })

  it('grows past its first buffer, and what take() returns is not overwritten by the next batch', () => {
    const w = new BatchWriter()
    const chunk = Buffer.from('{"id":"0117C5000001","rssi":', 'latin1')
    for (let i = 0; i < 10_000; i++) {
      w.bytes(chunk)
      w.number(i)
      w.char(0x2c)
    }
    const first = w.take()
    expect(first.length).toBe(w.length)
    expect(first.toString('latin1').endsWith('"rssi":9999,')).toBe(true)
    const copy = Buffer.from(first)
    w.reset()
    w.bytes(Buffer.from('x'.repeat(200), 'latin1'))
    expect(first.equals(copy)).toBe(true)
    expect(w.take().toString('latin1')).toBe('x'.repeat(200))
  })
})
