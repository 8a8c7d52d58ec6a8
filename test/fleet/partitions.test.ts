// The partition hash and the rendezvous assignment: gateways and trackers in different
// processes (and versions) must agree, every partition has exactly one holder, and a tracker
// joining or leaving moves only the partitions it gains or held.
import { describe, expect, it } from 'vitest'
import { rssiPartition, stableHash } from '../../src/mqtt/partition.js'
import { ownerOf, partitionsOf } from '../../src/fleet/partitions.js'

describe('rssiPartition', () => {
  it('is a fixed function of the id (a contract: changing it splits a fleet)', () => {
    // Pinned values (computed independently: FNV-1a 32 over UTF-16 code units, then the murmur3
    // finalizer): a change of the hash must fail here, not silently between versions.
    expect(['', 'a', '0117C5000001', 'aa:bb:cc:dd:ee:ff'].map(stableHash)).toEqual([2872998923, 444641715, 3698590884, 3731478993])
    expect(['', 'a', '0117C5000001', 'aa:bb:cc:dd:ee:ff'].map((id) => rssiPartition(id, 16))).toEqual([11, 3, 4, 1])
  })

  it('spreads sequential serial numbers evenly', () => {
    const counts = new Array<number>(16).fill(0)
    for (let i = 0; i < 16_000; i++) counts[rssiPartition(`0117C5${i.toString(16).toUpperCase().padStart(6, '0')}`, 16)]++
    for (const c of counts) expect(c).toBeGreaterThan(800)
  })
})

describe('rendezvous assignment', () => {
  const P = 64
  const trackers = ['t1', 't2', 't3']

  it('gives every partition to exactly one tracker', () => {
    const all = trackers.flatMap((t) => partitionsOf(t, trackers, P))
    expect(all.sort((a, b) => a - b)).toEqual([...Array(P).keys()])
    for (const t of trackers) expect(partitionsOf(t, trackers, P).length).toBeGreaterThan(P / 6)
  })

  it('moves only the partitions of a tracker that leaves, and only to the others', () => {
    const before = [...Array(P).keys()].map((n) => ownerOf(n, trackers))
    const after = [...Array(P).keys()].map((n) => ownerOf(n, ['t1', 't3']))
    for (let n = 0; n < P; n++) if (before[n] !== 't2') expect(after[n]).toBe(before[n])
    expect(after.includes('t2')).toBe(false)
  })

  it('does not depend on the order the trackers are listed in', () => {
    for (let n = 0; n < P; n++) expect(ownerOf(n, ['t3', 't1', 't2'])).toBe(ownerOf(n, trackers))
  })
})
