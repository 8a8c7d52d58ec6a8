// irk:<name> devices at the fleet (issue 37): an `irk:` id is a stable identity only for a name
// the fleet's own IRK file holds (anyone on the broker can make one up), so such a device takes
// its place in a full table, is named by its key's name, and is announced without the dwell.
import { describe, expect, it } from 'vitest'
import { BeaconFacts } from '../../src/fleet/beacon-facts.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { FleetState } from '../../src/fleet/fleet-state.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { irkNameOf, isStableIdentity } from '../../src/mqtt/stable-identity.js'
import { parseIdentityKey } from '../../src/secure/identity-key.js'
import { IdentityKeyring } from '../../src/secure/identity-keyring.js'

const keys = new IdentityKeyring([parseIdentityKey('alice-phone', 'ec0234a357c8ad05341010a60a397d9b')])
const holds = (name: string): boolean => keys.get(name) !== undefined

describe('irk:<name> at the fleet', () => {
  it('is a stable identity only for a name of the fleet’s IRK file', () => {
    expect(irkNameOf('irk:alice-phone')).toBe('alice-phone')
    expect(irkNameOf('irk:')).toBeUndefined()
    expect(irkNameOf('irk:a/b')).toBeUndefined()
    expect(isStableIdentity('irk:alice-phone', holds)).toBe(true)
    expect(isStableIdentity('irk:mallory', holds)).toBe(false)
    expect(isStableIdentity('irk:alice-phone')).toBe(false)
  })

  it('admits a held irk:<name> into a full table, evicting a made-up id; refuses a made-up irk:', () => {
    const log: string[] = []
    const state = new FleetState(
      { maxBeacons: 3, holdsIdentity: holds },
      {
        found: (b: FleetBeacon) => log.push(`found ${b.id}`),
        gone: (b: FleetBeacon) => log.push(`gone ${b.id}`),
        room: () => undefined,
        moved: () => undefined,
      },
    )
    const batch = (time: number, ids: string[]): RssiBatch => ({
      gateway: 'hall',
      time,
      readings: ids.map((id) => ({ id, rssi: -60, lastSeen: time, count: 1 })),
    })
    state.ingest(batch(0, ['fake-1', 'fake-2', 'fake-3']), 0)
    state.ingest(batch(1000, ['irk:mallory']), 1000)
    expect(state.get('irk:mallory', 1000)).toBeUndefined()
    state.ingest(batch(2000, ['irk:alice-phone']), 2000)
    expect(state.get('irk:alice-phone', 2000)).toBeDefined()
    expect(state.stats.evictedBeacons).toBe(1)
  })

  it('is named by its key’s name and counts as named (no dwell) and listed', () => {
    const facts = new BeaconFacts(undefined, () => true, {}, holds)
    expect(facts.named('irk:alice-phone')).toBe(true)
    expect(facts.listed('irk:alice-phone')).toBe(true)
    expect(facts.describe('irk:alice-phone')).toEqual({ name: 'alice-phone' })
    expect(facts.named('irk:mallory')).toBe(false)
    expect(facts.describe('irk:mallory')).toBeUndefined()
    expect(new BeaconFacts(undefined, () => true).named('irk:alice-phone')).toBe(false)
  })
})
