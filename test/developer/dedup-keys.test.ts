// The webhook's de-dup memory is bounded in entries and in bytes: keys of any length are kept
// as fixed-size digests, the oldest forgotten beyond the configured bound.
import { describe, expect, it } from 'vitest'
import { DIGEST_CHARS, DedupKeys, dedupDigest } from '../../src/developer/dedup-keys.js'

describe('DedupKeys', () => {
  it('keeps at most maxEntries digests of fixed size however long the keys are', () => {
    const keys = new DedupKeys(10)
    const long = 'k'.repeat(100_000)
    for (let i = 0; i < 50; i++) keys.add(dedupDigest(`text\u0000${long}\u0000${i}`))
    expect(keys.size).toBe(10)
    expect(keys.keyChars).toBe(10 * DIGEST_CHARS)
    // The newest are remembered, the oldest forgotten.
    expect(keys.has(dedupDigest(`text\u0000${long}\u000049`))).toBe(true)
    expect(keys.has(dedupDigest(`text\u0000${long}\u00000`))).toBe(false)
  })

  it('tells keys apart that differ only past any prefix, and refuses anything but a digest', () => {
    const a = dedupDigest('text\u0000app\u00001')
    const b = dedupDigest('text\u0000app\u000011')
    expect(a).toHaveLength(DIGEST_CHARS)
    expect(a).not.toBe(b)
    expect(() => new DedupKeys(2).add('raw key')).toThrow(RangeError)
  })
})
