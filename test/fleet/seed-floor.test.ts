// Scale-out handover with floors (#39): a beacon taken over from the retained state another
// tracker left keeps its floor beside its room; a floor that is no floor id is refused.
import { describe, expect, it } from 'vitest'
import { seededRecord } from '../../src/fleet/fused-beacon.js'
import { parseSeed } from '../../src/fleet/wire.js'

const state = (floor: unknown): Record<string, unknown> => ({
  id: 'b1', present: true, room: 'Bedroom', floor, firstSeen: 1000, lastSeen: 2000,
  gateways: [{ gateway: 'gw1', rssi: -60, lastSeen: 2000 }],
})

describe('seed states with floors', () => {
  it('keeps the floor through the seed into the record', () => {
    const seed = parseSeed('b1', state('first'))
    expect(seed).toMatchObject({ room: 'Bedroom', floor: 'first' })
    expect(seed === undefined ? undefined : seededRecord(seed, 5000)).toMatchObject({ room: 'Bedroom', floor: 'first' })
  })

  it('refuses a floor that is no floor id', () => {
    for (const bad of [3, 'a/b', 'x'.repeat(65), '']) expect(parseSeed('b1', state(bad)), String(bad)).toBeUndefined()
    expect(parseSeed('b1', state(undefined))).not.toHaveProperty('floor')
  })
})
