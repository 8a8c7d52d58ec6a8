// Who gets into a full beacon table: a gateway id cannot introduce more than its quota, a beacon
// heard by a site gateway with a stable identity evicts the least recently heard of the weakest
// claim (with a `gone`, like any beacon that goes) instead of being refused, and a batch holds at
// most maxBatchReadings readings.
import { describe, expect, it } from 'vitest'
import { FleetState } from '../../src/fleet/fleet-state.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { isStableIdentity } from '../../src/mqtt/stable-identity.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { Site } from '../../src/positioning/site.js'

const site = Site.fromJSON({ gateways: { 'hall-pi': { x: 1, y: 1 } }, rooms: { Hall: ['hall-pi'] } })
const SERIAL = '0117C5456A36'
const IBEACON = '23A01AF0-232A-4518-9C0E-323FB773F5EF|1|2'

function harness(options: ConstructorParameters<typeof FleetState>[0] = {}) {
  const log: string[] = []
  const state = new FleetState(options, {
    found: (b: FleetBeacon) => log.push(`found ${b.id}`),
    gone: (b: FleetBeacon) => log.push(`gone ${b.id}`),
    room: () => undefined,
    moved: () => undefined,
  })
  const batch = (gateway: string, time: number, ids: string[]): RssiBatch => ({
    gateway, time, readings: ids.map((id) => ({ id, rssi: -60, lastSeen: time, count: 1 })),
  })
  return { state, log, batch }
}

const fakes = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `fake-${from + i}`)

describe('beacon admission', () => {
  it('tells stable identities from addresses and other ids', () => {
    expect(isStableIdentity(SERIAL)).toBe(true)
    expect(isStableIdentity(IBEACON)).toBe(true)
    expect(isStableIdentity('0123456789abcdef0123456789abcdef')).toBe(true)
    expect(isStableIdentity('c4:7c:8d:6a:3e:01')).toBe(false)
    expect(isStableIdentity('fake-1')).toBe(false)
  })

  it('gives each gateway id a quota of new beacons, so one flood cannot fill the table', () => {
    const { state, batch } = harness({ maxBeacons: 100, maxBeaconsPerGateway: 10 })
    state.ingest(batch('flood', 0, fakes(50)), 0)
    expect(state.size).toBe(10)
    expect(state.stats.refusedBeacons).toBe(40)
    state.ingest(batch('other', 0, ['c4:7c:8d:6a:3e:01']), 0)
    expect(state.get('c4:7c:8d:6a:3e:01', 0)).toBeDefined()
    // Room again once its beacons go.
    state.tick(60_000)
    state.ingest(batch('flood', 60_000, fakes(5, 100)), 60_000)
    expect(state.get('fake-100', 60_000)).toBeDefined()
  })

  it('evicts the least recently heard beacon of the weakest claim for a beacon a site gateway hears', () => {
    const { state, log, batch } = harness({ site, maxBeacons: 4 })
    state.ingest(batch('stranger-1', 0, fakes(2)), 0)
    state.ingest(batch('stranger-2', 500, fakes(2, 2)), 500)
    // fake-2 and fake-3 are heard again: fake-0 and fake-1 are the least recently heard.
    state.ingest(batch('stranger-2', 900, ['fake-2', 'fake-3']), 900)
    state.ingest(batch('stranger-3', 1000, fakes(3, 10)), 1000)
    expect(state.stats.droppedBeacons).toBe(3)
    state.ingest(batch('hall-pi', 1000, [SERIAL, 'c4:7c:8d:6a:3e:01']), 1000)
    expect(state.get(SERIAL, 1000)).toBeDefined()
    expect(state.get('c4:7c:8d:6a:3e:01', 1000)).toBeDefined()
    expect(state.stats.evictedBeacons).toBe(2)
    expect(log.filter((l) => l.startsWith('gone')).sort()).toEqual(['gone fake-0', 'gone fake-1'])
    // A full table of stronger claims refuses a weaker new one rather than evicting.
    state.ingest(batch('stranger-4', 1100, ['fake-99']), 1100)
    state.ingest(batch('hall-pi', 1100, ['d0:00:00:00:00:01']), 1100)
    expect(state.get('fake-99', 1100)).toBeUndefined()
    // The address heard by the site gateway outranks the strangers' fakes.
    expect(state.get('d0:00:00:00:00:01', 1100)).toBeDefined()
    const ids = state.list(1100).map((b) => b.id)
    expect(ids).toHaveLength(4)
    expect(ids).toEqual(expect.arrayContaining([SERIAL, 'c4:7c:8d:6a:3e:01', 'd0:00:00:00:00:01']))
    expect(state.stats.evictedBeacons).toBe(3)
  })

  it('raises a beacon first heard by a stranger once a site gateway hears it', () => {
    const { state, batch } = harness({ site, maxBeacons: 2 })
    state.ingest(batch('stranger', 0, ['fake-a', 'fake-b']), 0)
    state.ingest(batch('hall-pi', 10, ['fake-a']), 10)
    state.ingest(batch('hall-pi', 20, ['e0:00:00:00:00:01']), 20)
    // fake-b (stranger only) went, though fake-a was heard earlier by the stranger.
    expect(state.get('fake-a', 20)).toBeDefined()
    expect(state.get('fake-b', 20)).toBeUndefined()
  })

  it('refuses count options that are not whole numbers of at least 1', () => {
    expect(() => harness({ maxBeaconsPerGateway: 0 })).toThrow(/maxBeaconsPerGateway must be a whole number/)
    expect(() => harness({ maxBatchReadings: 1.5 })).toThrow(/maxBatchReadings must be a whole number/)
  })

  it('reads at most maxBatchReadings readings of a batch and counts the rest', () => {
    const { state, batch } = harness({ maxBatchReadings: 5 })
    state.ingest(batch('g', 0, fakes(12)), 0)
    expect(state.size).toBe(5)
    expect(state.stats.skippedReadings).toBe(7)
    expect(state.stats.observations).toBe(5)
  })
})
