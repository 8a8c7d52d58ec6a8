// Clock-offset poisoning: a batch's `time` comes from the network. One hostile stamp (or a
// few) must not move a gateway's offset, or every reading of the gateway lands far in the past
// and its beacons go; a stamp absurdly far from arrival is rejected and counted; a genuine
// clock step is still followed within a few batches.
import { describe, expect, it } from 'vitest'
import { FleetState } from '../../src/fleet/fleet-state.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { ClockOffset, READING_WINDOW_MS, STEP_AGREEING } from '../../src/fleet/clock-offset.js'

const IDS = ['a', 'b', 'c', 'd', 'e']
const TRANSIT = 20

function fleet() {
  const log: string[] = []
  const state = new FleetState({}, {
    found: (b: FleetBeacon) => log.push(`found ${b.id}`),
    gone: (b: FleetBeacon) => log.push(`gone ${b.id}`),
    room: () => undefined,
    moved: () => undefined,
  })
  /** One real batch per second for `seconds` from `from`, the gateway clock `skew` ms off, calling `extra` each second. */
  const run = (from: number, seconds: number, skew = 0, extra?: (now: number) => void): number => {
    let now = from
    for (let i = 0; i < seconds; i++) {
      now += 1000
      const stamp = now - TRANSIT + skew
      state.ingest({ gateway: 'g', time: stamp, readings: IDS.map((id) => ({ id, rssi: -60, lastSeen: stamp, count: 1 })) }, now, 'g')
      extra?.(now)
      state.tick(now)
    }
    return now
  }
  return { state, log, run }
}

describe('clock offsets from hostile batch times', () => {
  it.each([
    ['time 1e15', 1e15],
    ['time -1e15', -1e15],
  ])('one batch with %s moves nothing: no beacon loses its gateway, the batch is counted', (_, time) => {
    const { state, log, run } = fleet()
    let now = run(0, 5)
    expect(state.offsetOf('g')).toBe(TRANSIT)
    now = run(now, 60, 0, (t) => {
      if (t === 10_000) state.ingest({ gateway: 'g', time, readings: [] }, t, 'g')
    })
    expect(log.filter((l) => l.startsWith('gone'))).toEqual([])
    expect(state.get('a', now)?.gateways.map((g) => g.gateway)).toEqual(['g'])
    expect(state.offsetOf('g')).toBe(TRANSIT)
    expect(state.stats.clockRejected).toBe(1)
  })

  it('a few lone outliers within the bound (hours ahead, minutes behind) are outvoted', () => {
    const { state, log, run } = fleet()
    const outliers = new Map([
      [8000, 3_600_000],
      [20_000, 7_200_000],
      [30_000, 10_800_000],
      [40_000, -600_000],
    ])
    const now = run(0, 70, 0, (t) => {
      const ahead = outliers.get(t)
      if (ahead !== undefined) state.ingest({ gateway: 'g', time: t + ahead, readings: [] }, t, 'g')
    })
    expect(log.filter((l) => l.startsWith('gone'))).toEqual([])
    expect(state.offsetOf('g')).toBe(TRANSIT)
    expect(state.get('e', now)?.gateways).toHaveLength(1)
    expect(state.stats.clockRejected).toBe(0)
  })

  it('follows a genuine clock step within a few batches, and a gateway hours behind from its first batch', () => {
    const { state, log, run } = fleet()
    let now = run(0, 10)
    // NTP steps the gateway's clock 5 s forward: stamps are 5 s later from now on.
    now = run(now, STEP_AGREEING, 5000)
    expect(state.offsetOf('g')).toBe(TRANSIT - 5000)
    now = run(now, 20, 5000)
    expect(log.filter((l) => l.startsWith('gone'))).toEqual([])
    expect(state.get('a', now)?.gateways).toHaveLength(1)

    const late = fleet()
    late.run(0, 20, -2 * 3600_000)
    expect(late.state.offsetOf('g')).toBe(TRANSIT + 2 * 3600_000)
    expect(late.log).toEqual(IDS.map((id) => `found ${id}`))
    expect(late.state.stats.clockRejected).toBe(0)
  })

  it('three agreeing batches stamped 29 days ahead, each minute, move nothing (they beat the window minimum)', () => {
    const { state, log, run } = fleet()
    const ahead = 29 * 24 * 3600_000
    let now = run(0, 60)
    for (let minute = 0; minute < 3; minute++) {
      now = run(now, 60, 0, (t) => {
        if (t % 60_000 !== 30_000) return
        for (let k = 0; k < 3; k++) state.ingest({ gateway: 'g', time: t + ahead + k, readings: IDS.map((id) => ({ id, rssi: -60, lastSeen: t + ahead + k, count: 1 })) }, t, 'g')
      })
    }
    expect(log.filter((l) => l.startsWith('gone'))).toEqual([])
    expect(state.offsetOf('g')).toBe(TRANSIT)
    expect(state.get('a', now)?.gateways).toHaveLength(1)
  })

  it('a flood of hostile batches inside one second is one vote, not a window', () => {
    const { state, log, run } = fleet()
    const now = run(run(0, 30), 30, 0, (t) => {
      if (t === 40_000) for (let k = 0; k < 200; k++) state.ingest({ gateway: 'g', time: t + 3600_000, readings: [] }, t, 'g')
    })
    expect(log.filter((l) => l.startsWith('gone'))).toEqual([])
    expect(state.offsetOf('g')).toBe(TRANSIT)
    expect(state.get('a', now)?.gateways).toHaveLength(1)
  })

  it('rejects batches further than maxClockOffsetMs from arrival (a clock at 1970)', () => {
    const state = new FleetState({ maxClockOffsetMs: 60_000 }, { found: () => undefined, gone: () => undefined, room: () => undefined, moved: () => undefined })
    const now = 1_700_000_000_000
    state.ingest({ gateway: 'g', time: 0, readings: [{ id: 'a', rssi: -60, lastSeen: 0, count: 1 }] }, now, 'g')
    expect(state.size).toBe(0)
    expect(state.stats).toMatchObject({ clockRejected: 1, gateways: 0, batches: 0 })
    state.ingest({ gateway: 'g', time: now - 59_000, readings: [{ id: 'a', rssi: -60, lastSeen: now - 59_000, count: 1 }] }, now, 'g')
    expect(state.size).toBe(1)
  })

  it('the estimator keeps the window minimum of agreeing batches and lets an old minimum leave', () => {
    const o = new ClockOffset()
    for (let i = 0; i < 64; i++) o.sample(i * 1000, i * 1000 + 50 + (i % 7))
    expect(o.offsetMs).toBe(50)
    o.sample(100_000, 100_000 - 1e9)
    expect(o.offsetMs).toBe(50)
    // A window later, only the later (slower) batches remain.
    for (let i = 0; i < 64; i++) o.sample(200_000 + i * 1000, 200_000 + i * 1000 + 300)
    expect(o.offsetMs).toBe(300)
  })
})

describe('reading times bounded to their batch', () => {
  it.each([
    ['-1e20', -1e20],
    ['1e20', 1e20],
    ['an hour before its batch', -3_600_000],
  ])('a reading with lastSeen %s reaches the positioner within the arrival window', (_, lastSeen) => {
    const seen: number[] = []
    const positioner = { observe: (o: { time: number }) => void seen.push(o.time), estimate: () => undefined }
    const state = new FleetState({ positioner }, { found: () => undefined, gone: () => undefined, room: () => undefined, moved: () => undefined })
    const arrival = 1_700_000_000_000
    const stamp = arrival - TRANSIT
    state.ingest({ gateway: 'g', time: stamp, readings: [{ id: 'P6', rssi: -60, lastSeen: Math.abs(lastSeen) > 1e15 ? lastSeen : stamp + lastSeen, count: 1 }] }, arrival, 'g')
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeLessThanOrEqual(arrival)
    expect(seen[0]).toBeGreaterThanOrEqual(arrival - READING_WINDOW_MS)
    expect(state.get('P6', arrival)?.lastSeen).toBe(seen[0])
  })
})

describe('batches refused for their clock', () => {
  it('says once per gateway when it refuses its batches for their clock, counts it, and says when it takes them again', () => {
    const said: [string, boolean, number][] = []
    const state = new FleetState({}, {
      found: () => undefined, gone: () => undefined, room: () => undefined, moved: () => undefined,
      gatewayClock: (gateway, refused, offsetMs) => said.push([gateway, refused, offsetMs]),
    })
    // A recording of 2026-01-01 published 331 days later, from two gateways.
    const recorded = 1_767_254_400_000
    const now = recorded + 331 * 24 * 3600_000
    for (let i = 0; i < 3; i++) {
      for (const gateway of ['demo-pi', 'hall-pi']) state.ingest({ gateway, time: recorded + i * 1000, readings: [{ id: 'a', rssi: -60, lastSeen: recorded + i * 1000, count: 1 }] }, now + i * 1000, gateway)
    }
    expect(said).toEqual([['demo-pi', true, 331 * 24 * 3600_000], ['hall-pi', true, 331 * 24 * 3600_000]])
    expect(state.stats).toMatchObject({ clockRejected: 6, clockRefusedGateways: 2, gateways: 0 })
    expect(state.size).toBe(0)
    // Its clock set (NTP answered): taken again, and said so.
    state.ingest({ gateway: 'demo-pi', time: now + 5000, readings: [{ id: 'a', rssi: -60, lastSeen: now + 5000, count: 1 }] }, now + 5020, 'demo-pi')
    expect(said.at(-1)).toEqual(['demo-pi', false, 20])
    expect(state.stats).toMatchObject({ clockRejected: 6, clockRefusedGateways: 1 })
    expect(state.size).toBe(1)
  })
})
