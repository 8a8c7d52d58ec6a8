import { describe, it, expect } from 'vitest'
import { VirtualClock } from '../../src/clock.js'
import { encodeIBeacon } from '../../src/frames/ibeacon.js'
import { compileFilter } from '../../src/range/filter.js'
import type { BeaconFilter } from '../../src/range/filter.js'
import type { BeaconChanges } from '../../src/range/merge.js'
import { RangeTable } from '../../src/range/range-table.js'
import type { RangeTableOptions } from '../../src/range/range-table-types.js'
import { createRssiFilter } from '../../src/range/rssi-filter.js'
import type { Beacon, BeaconReading } from '../../src/reading.js'

const UUID = '23A01AF0-232A-4518-9C0E-323FB773F5EF'
const T0 = 1_767_225_600_000

type Logged = [number, string, string]

function setup(over: Partial<Omit<RangeTableOptions, 'filter'>> & { filter?: BeaconFilter } = {}) {
  const clock = new VirtualClock(T0)
  const log: Logged[] = []
  const changes: [string, BeaconChanges][] = []
  const released: string[] = []
  const updates: [number, string[]][] = []
  const { filter, ...rest } = over
  const table = new RangeTable(
    {
      clock,
      goneTimeoutMs: 8000,
      updateIntervalMs: 1000,
      smoothing: createRssiFilter({ method: 'none' }),
      hideUnverifiedSecure: false,
      ...rest,
      filter: compileFilter(filter),
    },
    {
      found: (b) => log.push([clock.now() - T0, 'found', b.id]),
      gone: (b) => log.push([clock.now() - T0, 'gone', b.id]),
      changed: (b, c) => changes.push([b.id, c]),
      updated: (bs) => updates.push([clock.now() - T0, bs.map((b) => b.id)]),
      wantsChanged: () => true,
      wantsUpdated: () => true,
      released: (a) => released.push(a),
    },
  )
  const at = (ms: number, r: Partial<BeaconReading> & { address: string }, hint?: { major: number; minor: number; measuredPower: number }): void => {
    clock.advanceTo(T0 + ms)
    // The hint is the advertisement's manufacturer data: iBeacon bytes with these values.
    table.ingest({ rssi: -60, timestamp: T0 + ms, frames: ['ibeacon'], ...r }, hint === undefined ? undefined : encodeIBeacon({ proximityUUID: UUID, ...hint }))
  }
  return { clock, table, log, changes, updates, released, at }
}

const ib = (major: number, minor: number): Partial<BeaconReading> => ({
  frames: ['ibeacon'],
  proximityUUID: UUID,
  major,
  minor,
  beaconID: `${UUID}|${major}|${minor}`,
  measuredPower: -59,
})

describe('RangeTable timing', () => {
  it('emits gone exactly at lastSeen + goneTimeoutMs and releases the beacon', () => {
    const { clock, table, log, at } = setup()
    table.start()
    at(0, { address: 'aa:00:00:00:00:01', ...ib(1, 1) })
    at(500, { address: 'aa:00:00:00:00:02', ...ib(1, 2) })
    at(3_217, { address: 'aa:00:00:00:00:01', ...ib(1, 1) })
    clock.advanceTo(T0 + 20_000)
    expect(log).toEqual([
      [0, 'found', `${UUID}|1|1`],
      [500, 'found', `${UUID}|1|2`],
      [8_500, 'gone', `${UUID}|1|2`],
      [11_217, 'gone', `${UUID}|1|1`],
    ])
    expect(table.size).toBe(0)
    expect(table.beacons()).toEqual([])
  })

  it('finds a beacon again after it was gone, as a new visit', () => {
    const { clock, log, at } = setup()
    at(0, { address: 'aa:00:00:00:00:01', ...ib(1, 1) })
    clock.advanceTo(T0 + 9_000)
    at(9_001, { address: 'aa:00:00:00:00:01', ...ib(1, 1) })
    expect(log.map((l) => `${l[0]} ${l[1]}`)).toEqual(['0 found', '8000 gone', '9001 found'])
  })

  it('ticks updated every interval with the beacons in range, nearest first', () => {
    const { clock, table, updates, at } = setup()
    table.start()
    at(100, { address: 'aa:00:00:00:00:01', ...ib(1, 1), rssi: -80 })
    at(200, { address: 'aa:00:00:00:00:02', ...ib(1, 2), rssi: -50 })
    at(300, { address: 'aa:00:00:00:00:03', proximityUUID: UUID, frames: ['ibeacon'] })
    clock.advanceTo(T0 + 2_000)
    expect(updates).toEqual([
      [1000, [`${UUID}|1|2`, `${UUID}|1|1`, 'aa:00:00:00:00:03']],
      [2000, [`${UUID}|1|2`, `${UUID}|1|1`, 'aa:00:00:00:00:03']],
    ])
    const [near] = table.beacons()
    expect(near.accuracy).toBeGreaterThan(0)
    expect(near.proximity).toBe('immediate')
    // Snapshots are the caller's: changing one changes nothing inside the table.
    expect(Object.isFrozen(near.frames)).toBe(true)
    ;(near as { major?: number }).major = 999
    expect(table.beacons()[0].major).toBe(1)
  })
})

describe('RangeTable identity and merging', () => {
  it('keeps at most 16 further addresses linked to one beacon, releasing the oldest', () => {
    const { clock, table, log, released, at } = setup()
    const addr = (i: number): string => `aa:00:00:00:01:${i.toString(16).padStart(2, '0')}`
    // Twenty phones send one beaconID, each from an address of its own.
    for (let i = 0; i < 20; i++) at(i * 10, { address: addr(i), ...ib(3, 3) })
    expect(table.beacons()).toHaveLength(1)
    expect(released).toEqual([addr(1), addr(2), addr(3)])
    // A released address heard again is linked again, to the same beacon.
    at(300, { address: addr(1), ...ib(3, 3) })
    expect(table.beacons()).toHaveLength(1)
    expect(released).toEqual([addr(1), addr(2), addr(3), addr(4)])
    clock.advanceTo(T0 + 9_000)
    expect(log.map((l) => l[1])).toEqual(['found', 'gone'])
    // Gone releases the primary address and the 16 still linked (addr 5–19 and 1).
    expect(released.slice(4).sort()).toEqual([addr(0), ...Array.from({ length: 15 }, (_, i) => addr(i + 5)), addr(1)].sort())
  })

  it('moves an address from beaconID to serial identity without a found/gone pair', () => {
    const { clock, table, log, at } = setup()
    at(0, { address: 'aa:00:00:00:00:01', ...ib(7, 8) })
    at(1, { address: 'aa:00:00:00:00:01', frames: ['e781'], serialNumber: '0117C5000001', batteryLevel: 80 })
    at(1000, { address: 'aa:00:00:00:00:01', ...ib(7, 8) })
    const [b] = table.beacons()
    expect(b.id).toBe('0117C5000001')
    expect(b.beaconID).toBe(`${UUID}|7|8`)
    expect(b.batteryLevel).toBe(80)
    expect([...b.frames].sort()).toEqual(['e781', 'ibeacon'])
    clock.advanceTo(T0 + 10_000)
    expect(log).toEqual([
      [0, 'found', `${UUID}|7|8`],
      [9000, 'gone', '0117C5000001'],
    ])
  })

  it('keeps vendor major/minor over later iBeacon values (PROTOCOL 2.5)', () => {
    const { table, at } = setup()
    const hint = { major: 7, minor: 8, measuredPower: -59 }
    at(0, { address: 'aa:00:00:00:00:01', frames: ['e781'], serialNumber: '0117C5000001', major: 100, minor: 200, measuredPower: -62 })
    at(10, { address: 'aa:00:00:00:00:01', ...ib(7, 8) }, hint)
    // An advertisement with both frames whose vendor half lacks major/minor (sensor mode).
    at(20, { address: 'aa:00:00:00:00:01', ...ib(7, 8), frames: ['ibeacon', 'e781'], serialNumber: '0117C5000001', temperature: 21 }, hint)
    const [b] = table.beacons()
    expect([b.major, b.minor, b.measuredPower]).toEqual([100, 200, -62])
    expect(b.beaconID).toBe(`${UUID}|100|200`)
    expect(b.temperature).toBe(21)
  })

  it('merges split identity/sensor halves per device, never across devices', () => {
    const { table, at } = setup()
    const secure = { encrypted: true, keyId: '0001', verified: true }
    const hold = (ms: number, n: number, r: Partial<BeaconReading>): void => at(ms, { address: `aa:00:00:00:00:0${n}`, frames: ['e781'], secure, serialNumber: `0117C500000${n}`, ...r })
    hold(0, 1, { major: 1, minor: 1 })
    hold(5, 2, { major: 2, minor: 2 })
    hold(100, 1, { temperature: 10, batteryLevel: 11 })
    hold(105, 2, { temperature: 20, batteryLevel: 22 })
    const byId = new Map(table.beacons().map((b) => [b.id, b]))
    expect(byId.get('0117C5000001')).toMatchObject({ major: 1, temperature: 10, batteryLevel: 11 })
    expect(byId.get('0117C5000002')).toMatchObject({ major: 2, temperature: 20, batteryLevel: 22 })
  })

  it('lets Eddystone TLM supply temperature only while no vendor frame has', () => {
    const { table, at } = setup()
    at(0, { address: 'aa:00:00:00:00:01', frames: ['eddystone'], temperature: 30, eddystone: { uid: { namespace: 'a'.repeat(20), instance: 'b'.repeat(12), txPowerAt0m: -20 } } })
    expect(table.beacons()[0].temperature).toBe(30)
    at(10, { address: 'aa:00:00:00:00:01', frames: ['e780'], temperature: 21 })
    at(20, { address: 'aa:00:00:00:00:01', frames: ['eddystone'], temperature: 35, eddystone: { url: { url: 'https://x.y', txPowerAt0m: -20 } } })
    const [b] = table.beacons()
    expect(b.temperature).toBe(21)
    expect(Object.keys(b.eddystone ?? {}).sort()).toEqual(['uid', 'url'])
  })

  it('reports changed values with old and new', () => {
    const { changes, at } = setup()
    at(0, { address: 'aa:00:00:00:00:01', frames: ['e780'], serialNumber: '0117C5000001', temperature: 20, movingState: 'still' })
    at(100, { address: 'aa:00:00:00:00:01', frames: ['e780'], serialNumber: '0117C5000001', temperature: 20, movingState: 'still' })
    at(200, { address: 'aa:00:00:00:00:01', frames: ['e780'], serialNumber: '0117C5000001', temperature: 21, movingState: 'moving', rssi: -70 })
    expect(changes).toEqual([
      ['0117C5000001', { rssi: { old: -60, new: -70 }, temperature: { old: 20, new: 21 }, movingState: { old: 'still', new: 'moving' } }],
    ])
  })
})

describe('RangeTable secure confirmation (PROTOCOL 3)', () => {
  const verified = { encrypted: true, keyId: '0001', verified: true }

  it('reports a keyed device only after two verified frames agree on the serial', () => {
    const { table, log, at } = setup()
    const addr = 'aa:00:00:00:00:01'
    at(0, { address: addr, frames: ['e781'], secure: verified, serialNumber: '0117C5000001', major: 5, minor: 6 })
    at(50, { address: addr, ...ib(9, 9) }, { major: 9, minor: 9, measuredPower: -59 })
    expect(log).toEqual([])
    at(100, { address: addr, frames: ['e781'], secure: verified, serialNumber: '0117C5000001', temperature: 22 })
    expect(log).toEqual([[100, 'found', '0117C5000001']])
    const [b] = table.beacons()
    // Held readings were merged: identity half, iBeacon (its rotating values do not win), sensors.
    expect(b).toMatchObject({ major: 5, minor: 6, temperature: 22, proximityUUID: UUID, secure: { verified: true } })
  })

  it('restarts confirmation when a second verified frame disagrees', () => {
    const { log, at } = setup()
    const addr = 'aa:00:00:00:00:01'
    at(0, { address: addr, frames: ['e781'], secure: verified, serialNumber: '0117C5AAAAAA' })
    at(100, { address: addr, frames: ['e781'], secure: verified, serialNumber: '0117C5000001' })
    at(200, { address: addr, frames: ['e781'], secure: verified, serialNumber: '0117C5000001' })
    expect(log).toEqual([[200, 'found', '0117C5000001']])
  })

  it('reports a device whose key id is unknown at once, by address, unless hidden', () => {
    const shown = setup()
    shown.at(0, { address: 'aa:00:00:00:00:01', frames: ['e781'], secure: { encrypted: true, keyId: '00ff', verified: false, rejected: 'no_key' } })
    expect(shown.log).toEqual([[0, 'found', 'aa:00:00:00:00:01']])
    expect(shown.table.beacons()[0].secure).toEqual({ encrypted: true, keyId: '00ff', verified: false, rejected: 'no_key' })
    const hidden = setup({ hideUnverifiedSecure: true })
    hidden.at(0, { address: 'aa:00:00:00:00:01', frames: ['e781'], secure: { encrypted: true, keyId: '00ff', verified: false, rejected: 'no_key' } })
    expect(hidden.log).toEqual([])
  })

  it('reports a keyed device whose frames fail verification as unverified, by address', () => {
    const { log, table, at } = setup()
    at(0, { address: 'aa:00:00:00:00:01', frames: ['e781'], secure: { encrypted: true, keyId: '0001', verified: false, rejected: 'crc' } })
    expect(log).toEqual([[0, 'found', 'aa:00:00:00:00:01']])
    expect(table.beacons()[0].secure?.verified).toBe(false)
  })

  it('ignores failing frames at an address already confirmed', () => {
    const { table, at } = setup()
    const addr = 'aa:00:00:00:00:01'
    at(0, { address: addr, frames: ['e781'], secure: verified, serialNumber: '0117C5000001' })
    at(100, { address: addr, frames: ['e781'], secure: verified, serialNumber: '0117C5000001' })
    at(200, { address: addr, frames: ['e781'], secure: { encrypted: true, keyId: '0001', verified: false, rejected: 'crc' } })
    expect(table.beacons()[0].secure?.verified).toBe(true)
    expect(table.stats.droppedSecure).toBe(1)
  })
})

describe('RangeTable identity settle window', () => {
  it('announces a device once its scan response completes its identity', () => {
    const { clock, log, at } = setup({ identitySettleMs: 100 })
    at(0, { address: 'aa:00:00:00:00:01', ...ib(7, 8) })
    at(2, { address: 'aa:00:00:00:00:01', frames: ['e781'], serialNumber: '0117C5000001' })
    at(40, { address: 'aa:00:00:00:00:02', ...ib(7, 9) })
    clock.advanceTo(T0 + 1000)
    expect(log).toEqual([
      [2, 'found', '0117C5000001'],
      [140, 'found', `${UUID}|7|9`],
    ])
  })

  it('waits for the confirmation of a private broadcast that follows a plain iBeacon packet', () => {
    const { clock, log, at } = setup({ identitySettleMs: 100 })
    const secure = { encrypted: true, keyId: '0001', verified: true }
    const hint = { major: 9, minor: 9, measuredPower: -59 }
    at(0, { address: 'aa:00:00:00:00:01', ...ib(9, 9) }, hint)
    at(1, { address: 'aa:00:00:00:00:01', frames: ['e781'], secure, serialNumber: '0117C5000001', major: 1, minor: 2 })
    at(1000, { address: 'aa:00:00:00:00:01', ...ib(9, 9) }, hint)
    expect(log).toEqual([])
    at(1001, { address: 'aa:00:00:00:00:01', frames: ['e781'], secure, serialNumber: '0117C5000001', temperature: 20 })
    clock.advanceTo(T0 + 20_000)
    expect(log).toEqual([
      [1001, 'found', '0117C5000001'],
      [9001, 'gone', '0117C5000001'],
    ])
  })

  it('never announces a device that went before its window ended', () => {
    const { clock, log, at } = setup({ identitySettleMs: 100, goneTimeoutMs: 50 })
    at(0, { address: 'aa:00:00:00:00:01', ...ib(7, 8) })
    clock.advanceTo(T0 + 1000)
    expect(log).toEqual([])
  })
})

describe('RangeTable filters and hysteresis', () => {
  it('reports only matching beacons, matching on merged fields', () => {
    const { log, at } = setup({ filter: { serialNumbers: ['0117c5000002'] } })
    at(0, { address: 'aa:00:00:00:00:01', ...ib(1, 1) })
    at(1, { address: 'aa:00:00:00:00:01', frames: ['e781'], serialNumber: '0117C5000001' })
    at(2, { address: 'aa:00:00:00:00:02', ...ib(1, 2) })
    at(3, { address: 'aa:00:00:00:00:02', frames: ['e781'], serialNumber: '0117C5000002' })
    expect(log).toEqual([[3, 'found', '0117C5000002']])
  })

  it('drops readings below minRssi', () => {
    const { log, table, at } = setup({ filter: { minRssi: -70 } })
    at(0, { address: 'aa:00:00:00:00:01', ...ib(1, 1), rssi: -80 })
    expect(log).toEqual([])
    expect(table.stats.belowMinRssi).toBe(1)
  })

  it('uses enter/leave thresholds on the smoothed RSSI', () => {
    const { log, at } = setup({ enterRssi: -65, leaveRssi: -75 })
    const a = { address: 'aa:00:00:00:00:01', ...ib(1, 1) }
    at(0, { ...a, rssi: -70 })
    at(100, { ...a, rssi: -64 })
    at(200, { ...a, rssi: -74 })
    at(300, { ...a, rssi: -76 })
    at(400, { ...a, rssi: -70 })
    at(500, { ...a, rssi: -60 })
    expect(log.map((l) => `${l[0]} ${l[1]}`)).toEqual(['100 found', '300 gone', '500 found'])
  })

  it('rejects bad filter options with a typed error naming the option', () => {
    expect(() => compileFilter({ serialNumbers: ['nope'] })).toThrow(expect.objectContaining({ code: 'invalid_option', option: 'filter.serialNumbers' }))
    expect(() => compileFilter({ beaconIDs: [`${UUID}|1`] })).toThrow(/beaconID/)
    expect(() => compileFilter({ minRssi: Number.NaN })).toThrow(expect.objectContaining({ option: 'filter.minRssi' }))
  })
})

describe('RangeTable memory', () => {
  it('releases every device that came and went', () => {
    const { clock, table, at } = setup()
    for (let i = 0; i < 5000; i++) at(i, { address: `bb:00:00:00:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`, ...ib(2, i) })
    expect(table.size).toBe(5000)
    clock.advanceTo(T0 + 5000 + 8000)
    expect(table.size).toBe(0)
    // No gone check stays scheduled for beacons that are gone.
    expect(clock.nextDue()).toBeUndefined()
  })
})

// Keep the Beacon type import meaningful for readers of the expectations above.
export type { Beacon }
