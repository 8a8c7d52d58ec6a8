// The positioner on its worker thread (the build's dist/positioner-worker.js, made by `npm test`
// before vitest runs): the same estimates as the in-thread positioner over the same readings,
// beacons forgotten and their slots reused without mixing, a bounded hand-over queue, and a
// thread that cannot start falling back to this one with a typed error.
import { afterEach, describe, expect, it } from 'vitest'
import { Positioner } from '../../src/positioning/positioner.js'
import { PositioningThreadError } from '../../src/errors.js'
import { ThreadedPositioner } from '../../src/positioning/positioner-thread.js'
import { loadFixture } from './fixture.js'

const { site, map, track } = loadFixture()
const opened: ThreadedPositioner[] = []

function threaded(options: Partial<ConstructorParameters<typeof ThreadedPositioner>[0]> = {}): ThreadedPositioner {
  const t = new ThreadedPositioner({ site, radioMap: map, ...options })
  opened.push(t)
  return t
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()))
})

/** Replays the fixture's track as three beacons (shifted copies), asking both positioners once a second. */
async function replay(t: ThreadedPositioner, local: Positioner, onSecond?: (second: number) => void): Promise<{ compared: number; worst: number }> {
  const beacons = ['a', 'b', 'c']
  const rows = beacons.flatMap((beacon, k) => track.map((r) => ({ ...r, beacon, time: r.time + 137 * k }))).sort((x, y) => x.time - y.time)
  let next = rows[0].time + 1000
  let compared = 0
  let worst = 0
  let second = 0
  for (let i = 0; i < rows.length; i++) {
    while (rows[i].time > next) {
      const done = await t.prepare(beacons, next, 10_000)
      expect(done).toBe(beacons.length)
      for (const b of beacons) {
        const want = local.estimate(b, next)
        const got = t.estimate(b, next)
        expect(got === undefined).toBe(want === undefined)
        if (want !== undefined && got !== undefined) {
          worst = Math.max(worst, Math.hypot(want.x - got.x, want.y - got.y), Math.abs(want.accuracy - got.accuracy))
          expect(got.room).toBe(want.room)
          compared++
        }
      }
      onSecond?.(++second)
      next += 1000
    }
    t.observe(rows[i])
    local.observe(rows[i])
  }
  return { compared, worst }
}

describe('ThreadedPositioner', () => {
  it('gives the in-thread positioner’s estimates, to the last bit', async () => {
    const t = threaded()
    const { compared, worst } = await replay(t, new Positioner({ site, radioMap: map }))
    expect(compared).toBeGreaterThan(100)
    expect(worst).toBe(0)
    await new Promise((resolve) => setImmediate(resolve))
    expect(t.stats).toMatchObject({ sent: track.length * 3, dropped: 0, invalid: 0, failed: false })
    // The thread's memory: in every answer, and on request.
    expect(t.stats.heapBytes).toBeGreaterThan(0)
    expect(await t.heapBytes()).toBeGreaterThan(0)
  })

  it('has no memory to report before its thread starts', async () => {
    expect(await threaded().heapBytes()).toBeUndefined()
  })

  it('forgets a beacon on the thread too, and a slot used again starts from nothing', async () => {
    const t = threaded()
    const local = new Positioner({ site, radioMap: map })
    // Forget beacon "b" now and then in both; its next reading starts it again in both (in
    // the thread under a slot a forgotten beacon may have held).
    const { compared, worst } = await replay(t, local, (second) => {
      if (second % 7 === 0) {
        t.forget('b')
        local.forget('b')
        t.forget('never-seen')
      }
    })
    expect(compared).toBeGreaterThan(90)
    expect(worst).toBe(0)
  })

  it('answers only for the beacons its budget allowed, in the order asked', async () => {
    const t = threaded()
    for (const r of track) for (let k = 0; k < 300; k++) t.observe({ ...r, beacon: `tag-${k}` })
    const ids = Array.from({ length: 300 }, (_, k) => `tag-${k}`)
    const end = track[track.length - 1].time
    // A zero budget still estimates the first group of beacons (the clock is read every 16).
    const done = await t.prepare(ids, end, 0)
    expect(done).toBeGreaterThanOrEqual(16)
    expect(done).toBeLessThan(ids.length)
    expect(t.estimate(ids[0], end)).toBeDefined()
    expect(t.estimate(ids[ids.length - 1], end)).toBeUndefined()
    expect(await t.prepare(ids, end, 60_000)).toBe(ids.length)
    expect(t.estimate(ids[ids.length - 1], end)).toBeDefined()
  })

  it('drops and counts readings past maxPending instead of queueing without end', async () => {
    const t = threaded({ maxPending: 4096 })
    const r = track[0]
    // All in one turn of the event loop: nothing reaches the thread before the bound.
    for (let i = 0; i < 10_000; i++) t.observe({ ...r, beacon: `tag-${i % 50}`, time: r.time + i })
    expect(t.stats.sent + t.stats.dropped).toBe(10_000)
    expect(t.stats.dropped).toBe(10_000 - 4096)
    await t.prepare(['tag-0'], r.time + 10_000, 1000)
    // Once the thread has taken them in, readings are accepted again.
    t.observe({ ...r, beacon: 'tag-0', time: r.time + 20_000 })
    expect(t.stats.dropped).toBe(10_000 - 4096)
  })

  it('holds at most maxBeacons, letting go of the one heard least recently (as the positioner does)', async () => {
    const t = threaded({ maxBeacons: 3 })
    const r = track[0]
    for (const [i, beacon] of ['a', 'b', 'c', 'a', 'd'].entries()) t.observe({ ...r, beacon, time: r.time + i })
    // "b" was heard least recently when "d" came: let go; "a" was heard again and stays.
    expect(await t.prepare(['a', 'b', 'c', 'd'], r.time + 10, 1000)).toBe(4)
    expect(t.estimate('b', r.time + 10)).toBeUndefined()
    for (const id of ['a', 'c', 'd']) expect(t.estimate(id, r.time + 10)).toBeDefined()
  })

  it('holds at most maxBeacons slots on this side too, however many beacons come and go before the thread answers', async () => {
    const t = threaded({ maxBeacons: 3 })
    const local = new Positioner({ site, radioMap: map, maxBeacons: 3 })
    const r = track[0]
    // All in one turn of the event loop: the thread answers nothing in between.
    for (let i = 0; i < 1000; i++) {
      const o = { ...r, beacon: `tag-${i}`, time: r.time + i }
      t.observe(o)
      local.observe(o)
    }
    expect(t.size).toBe(3)
    expect(t.stats.slots).toBeLessThanOrEqual(3)
    const ids = ['tag-996', 'tag-997', 'tag-998', 'tag-999']
    const end = r.time + 1000
    expect(await t.prepare(ids, end, 1000)).toBe(ids.length)
    // The three heard last are kept, there as here, with the same estimates.
    expect(t.estimate('tag-996', end)).toBeUndefined()
    for (const id of ids.slice(1)) {
      expect(t.estimate(id, end)).toBeDefined()
      expect(t.estimate(id, end)).toEqual(local.estimate(id, end))
    }
    expect(t.size).toBe(3)
    expect(t.stats.slots).toBeLessThanOrEqual(3)
  })

  it('gives the in-thread positioner’s estimates to the last bit while beacons are let go and come back', async () => {
    // Three beacons taking turns for two places: nearly every reading lets one go.
    const t = threaded({ maxBeacons: 2 })
    const { compared, worst } = await replay(t, new Positioner({ site, radioMap: map, maxBeacons: 2 }))
    expect(compared).toBeGreaterThan(10)
    expect(worst).toBe(0)
    expect(t.stats).toMatchObject({ dropped: 0, failed: false })
    expect(t.stats.slots).toBeLessThanOrEqual(2)
  })

  it('a beacon forgotten and a new one heard in the same turn: the thread lets go of that one, not of another', async () => {
    const t = threaded({ maxBeacons: 3 })
    const local = new Positioner({ site, radioMap: map, maxBeacons: 3 })
    const r = track[0]
    const feed = (beacon: string, time: number): void => {
      t.observe({ ...r, beacon, time })
      local.observe({ ...r, beacon, time })
    }
    for (const [i, beacon] of ['a', 'b', 'c'].entries()) feed(beacon, r.time + i)
    t.forget('b')
    local.forget('b')
    feed('d', r.time + 3)
    const end = r.time + 10
    expect(await t.prepare(['a', 'b', 'c', 'd'], end, 1000)).toBe(4)
    expect(local.estimate('a', end)).toBeDefined()
    for (const id of ['a', 'b', 'c', 'd']) expect(t.estimate(id, end)).toEqual(local.estimate(id, end))
  })

  it('ignores readings after close()', async () => {
    const t = threaded({ maxPending: 4096 })
    const r = track[0]
    t.observe(r)
    expect(await t.prepare([r.beacon], r.time, 1000)).toBe(1)
    await t.close()
    const before = t.stats
    for (let i = 0; i < 5000; i++) t.observe({ ...r, beacon: `late-${i}`, time: r.time + i })
    t.observe({ ...r, rssi: 99 })
    expect(t.stats).toEqual(before)
    expect(t.size).toBe(1)
    expect(t.estimate('late-0', r.time + 5000)).toBeUndefined()
  })

  it('counts bad readings without handing them over', () => {
    const t = threaded()
    t.observe({ time: Number.NaN, anchor: track[0].anchor, beacon: 'x', rssi: -70 })
    t.observe({ time: 1, anchor: 'nowhere', beacon: 'x', rssi: -70 })
    t.observe({ time: 1, anchor: track[0].anchor, beacon: 'x', rssi: 99 })
    expect(t.stats).toMatchObject({ sent: 0, invalid: 3 })
  })

  it('a thread that cannot start: one typed error, then positions in this thread', async () => {
    const errors: PositioningThreadError[] = []
    const t = threaded({ script: new URL('file:///nonexistent/positioner-worker.js'), onError: (e) => errors.push(e) })
    for (const r of track.slice(0, 200)) t.observe(r)
    const end = track[199].time
    // The failure shows when the worker reports it; until then a request may be in flight.
    for (let i = 0; i < 100 && !t.stats.failed; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(t.stats.failed).toBe(true)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(PositioningThreadError)
    expect(errors[0].code).toBe('positioning_thread_failed')
    expect(t.prepare([track[0].beacon], end, 100)).toBeUndefined()
    // From scratch in this thread: readings after the failure count.
    for (const r of track.slice(200, 400)) t.observe(r)
    expect(t.estimate(track[0].beacon, track[399].time)).toBeDefined()
  })

  it('refuses a maxPending below one hand-over', () => {
    expect(() => threaded({ maxPending: 10 })).toThrow(/maxPending/)
  })
})
