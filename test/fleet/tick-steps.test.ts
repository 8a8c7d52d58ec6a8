// The fused state's tick in steps (FleetState.beginTick): a large positioned fleet is placed a
// chunk at a time, a step told not to estimate keeps the previous positions (counted), and the
// next tick positions those first, so every beacon gets its turn.
import { describe, expect, it } from 'vitest'
import { FleetState } from '../../src/fleet/fleet-state.js'
import { Positioner } from '../../src/positioning/positioner.js'
import { Site } from '../../src/positioning/site.js'

const site = Site.fromJSON({ gateways: { a: { x: 0, y: 0 }, b: { x: 10, y: 0 }, c: { x: 5, y: 8 } } })

/** The real positioner, with each estimate's beacon written down. */
function counted(): { positioner: Positioner; asked: string[]; times: number[] } {
  const positioner = new Positioner({ site })
  const asked: string[] = []
  const estimate = positioner.estimate.bind(positioner)
  const times: number[] = []
  positioner.estimate = (beacon, time) => {
    asked.push(beacon)
    times.push(time)
    return estimate(beacon, time)
  }
  return { positioner, asked, times }
}

function fleet(beacons: number) {
  const { positioner, asked, times } = counted()
  const state = new FleetState(
    { site, positioner },
    { found: () => undefined, gone: () => undefined, room: () => undefined, moved: () => undefined },
  )
  const ids = Array.from({ length: beacons }, (_, i) => `tag-${i}`)
  const feed = (time: number): void => {
    for (const gateway of ['a', 'b', 'c']) {
      state.ingest(
        {
          gateway,
          time,
          readings: ids.map((id, i) => ({
            id,
            rssi: -60 - ((i + gateway.charCodeAt(0)) % 20),
            lastSeen: time,
            count: 1,
          })),
        },
        time,
        gateway,
      )
    }
  }
  return { state, asked, times, ids, feed }
}

describe('FleetState.beginTick', () => {
  it('places a chunk per step, all as of the tick, and is done after the last', () => {
    const { state, asked, feed } = fleet(25)
    feed(1000)
    asked.length = 0
    const step = state.beginTick(2000, 10)
    expect(step()).toBe(false)
    expect(asked.length).toBe(10)
    expect(step()).toBe(false)
    expect(step()).toBe(true)
    expect(asked.length).toBe(25)
    expect(new Set(asked).size).toBe(25)
    expect(state.stats.positionsDeferred).toBe(0)
  })

  it('a step without estimates keeps positions and counts them; the next tick starts with those beacons', () => {
    const { state, asked, ids, feed } = fleet(30)
    feed(1000)
    state.tick(2000)
    const before = new Map(ids.map((id) => [id, state.get(id, 2000)?.position]))
    feed(2500)
    asked.length = 0
    const step = state.beginTick(3000, 10)
    step({ estimate: true })
    expect(step({ estimate: false })).toBe(false)
    expect(step({ estimate: false })).toBe(true)
    expect(asked.length).toBe(10)
    expect(state.stats.positionsDeferred).toBe(20)
    const estimated = new Set(asked)
    for (const id of ids) if (!estimated.has(id)) expect(state.get(id, 3000)?.position).toEqual(before.get(id))
    // The next tick begins with the 20 that waited.
    asked.length = 0
    const next = state.beginTick(4000, 20)
    next({ estimate: true })
    expect(new Set(asked)).toEqual(new Set(ids.filter((id) => !estimated.has(id))))
  })

  it('a beacon forgotten between steps is not placed again', () => {
    const { state, asked, feed } = fleet(4)
    feed(1000)
    asked.length = 0
    const step = state.beginTick(2000, 2)
    step()
    state.release((id) => id === 'tag-3')
    expect(step()).toBe(true)
    expect(asked).not.toContain('tag-3')
  })

  it('asks positions at the last whole step of the positioner, where its estimate is reused the next tick', () => {
    const { state, times, feed } = fleet(3)
    feed(1000)
    expect(state.positionTime(2437)).toBe(2000)
    expect(state.positionTime(3000)).toBe(3000)
    times.length = 0
    state.tick(2437)
    expect(new Set(times)).toEqual(new Set([2000]))
    // Without a positioner (or one without steps) a tick's time is its own.
    const plain = new FleetState(
      { site },
      { found: () => undefined, gone: () => undefined, room: () => undefined, moved: () => undefined },
    )
    expect(plain.positionTime(2437)).toBe(2437)
  })

  it('tickOrder lists the beacons in the order the tick places them, the gone ones left out', () => {
    const { state, asked, ids, feed } = fleet(12)
    feed(1000)
    // Rotate the cursor: a tick that estimates only 5, so the next starts with the sixth.
    const step = state.beginTick(2000, 5)
    step({ estimate: true })
    while (!step({ estimate: false }));
    const order = state.tickOrder(3000)
    expect(order).toHaveLength(12)
    expect(order[0]).toBe(ids[5])
    asked.length = 0
    state.tick(3000)
    expect(asked).toEqual(order)
    // 30 s without a reading: gone at the next tick, so not asked for.
    expect(state.tickOrder(1000 + 30_000)).toEqual([])
  })

  it('a step given a count places that many, whatever the chunk', () => {
    const { state, asked, feed } = fleet(10)
    feed(1000)
    asked.length = 0
    const step = state.beginTick(2000)
    expect(step({ estimate: true, count: 4 })).toBe(false)
    expect(asked).toHaveLength(4)
    expect(step({ estimate: false })).toBe(true)
    expect(asked).toHaveLength(4)
    expect(state.stats.positionsDeferred).toBe(6)
  })
})
