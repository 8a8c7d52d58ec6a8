// The discovery gate on its own (src/mqtt/ha-gate.ts): the dwell is a span heard, not a time
// present; the cap refuses and counts once per visit; a bare address is never admitted; a gone
// beacon expires after expireMs and one back in time does not.
import { describe, expect, it } from 'vitest'
import { HaGate } from '../../src/mqtt/ha-gate.js'
import { hasStableIdentity, isAddressId } from '../../src/mqtt/stable-identity.js'

describe('HaGate', () => {
  it('admits a stable id heard over the dwell, below the cap, and counts the refused once per visit', () => {
    const gate = new HaGate({ dwellMs: 30_000, maxBeacons: 2, expireMs: 60_000 })
    // One packet: present for the scanner's gone timeout, but heard over no span at all.
    gate.found('spoof', 0)
    expect(gate.woken(30_000)).toEqual(['spoof'])
    expect(gate.admit('spoof', true, 0, 0, 30_000)).toBe(false)
    gate.gone('spoof', 38_000)
    expect(gate.woken(1e9)).toEqual([])
    for (const id of ['a', 'b', 'c']) gate.found(id, 0)
    expect(gate.admit('a', true, 0, 30_000, 30_000)).toBe(true)
    expect(gate.admit('b', true, 0, 31_000, 31_000)).toBe(true)
    expect(gate.admit('c', true, 0, 31_000, 31_000)).toBe(false)
    expect(gate.admit('c', true, 0, 32_000, 32_000)).toBe(false)
    expect(gate.admit('x', false, 0, 99_000, 99_000)).toBe(false)
    expect(gate.stats).toEqual({ announced: 2, refused: 1, removed: 0 })
    // a goes; c gets its place once a's configs expired.
    gate.gone('a', 40_000)
    expect(gate.expired(99_999)).toEqual([])
    expect(gate.expired(100_000)).toEqual(['a'])
    expect(gate.admit('c', true, 0, 100_000, 100_000)).toBe(true)
    // b goes and comes back before the expiry: kept.
    gate.gone('b', 100_000)
    gate.found('b', 120_000)
    expect(gate.expired(1e9)).toEqual([])
    expect(gate.stats).toEqual({ announced: 2, refused: 1, removed: 1 })
  })

  it('adopts configs of an earlier run except bare addresses and beyond the cap', () => {
    const gate = new HaGate({ maxBeacons: 1, expireMs: 1000 })
    expect(gate.adopt('aa:bb:cc:dd:ee:ff', 0)).toBe(false)
    expect(gate.adopt('0117C5000001', 0)).toBe(true)
    expect(gate.adopt('0117C5000002', 0)).toBe(false)
    expect(gate.expired(1000)).toEqual(['0117C5000001'])
  })

  it('knows a stable identity from a bare address', () => {
    expect(isAddressId('c0:00:00:00:00:06')).toBe(true)
    expect(isAddressId('0117C5000001')).toBe(false)
    expect(hasStableIdentity({ id: '0117C5000001', serialNumber: '0117C5000001' })).toBe(true)
    expect(hasStableIdentity({ id: 'c0:00:00:00:00:06', beaconID: 'U|1|2' })).toBe(false)
    expect(hasStableIdentity({ id: 'c0:00:00:00:00:06', eddystone: { uid: {} } })).toBe(true)
    expect(() => new HaGate({ dwellMs: -1 })).toThrow(/homeAssistant.dwellMs/)
  })
})
