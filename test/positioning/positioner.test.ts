// The positioner's contract: causal (later packets never change an earlier estimate), bounded
// (memory per beacon and number of beacons), skips bad input with a count, and every baseline
// answers sensibly on noiseless synthetic physics.
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { RadioMap } from '../../src/positioning/radio-map.js'
import { Positioner } from '../../src/positioning/positioner.js'
import { POSITIONING_METHODS, type Observation } from '../../src/positioning/types.js'
import { gaussian, rssi, site, survey, TAG } from './synthetic.js'

const map = RadioMap.fromSurvey(site, survey(5, 2), { tagHeight: TAG })
const ANCHORS = ['sw', 'se', 'nw', 'ne']

/** A walk from (1, 1) to (9, 7) at ~1 m/s, every anchor heard twice a second with noise. */
function walk(beacon = 'tag', noise = 3, seconds = 20, seed = 7): Observation[] {
  const g = gaussian(seed)
  const out: Observation[] = []
  for (let t = 0; t < seconds * 1000; t += 125) {
    const f = t / (seconds * 1000)
    const anchor = ANCHORS[(t / 125) % 4]
    out.push({ time: t, anchor, beacon, rssi: rssi(anchor, 1 + 8 * f, 1 + 6 * f) + noise * g() })
  }
  return out
}

describe('Positioner', () => {
  for (const method of POSITIONING_METHODS) {
    it(`${method}: an estimate never changes when later packets arrive, and equals one made without them`, () => {
      const packets = walk()
      const cut = 9_000
      const a = new Positioner({ site, radioMap: map, method })
      const b = new Positioner({ site, radioMap: map, method })
      for (const o of packets) if (o.time <= cut) a.observe(o)
      const before = a.estimate('tag', cut)
      for (const o of packets) if (o.time > cut) a.observe(o)
      expect(a.estimate('tag', cut)).toEqual(before)
      for (const o of packets) if (o.time <= cut) b.observe(o)
      expect(b.estimate('tag', cut)).toEqual(before)
      expect(before).toBeDefined()
    })
  }

  it('filter: asked about an earlier time than it has reached, answers from then, not from later packets', () => {
    const p = new Positioner({ site, radioMap: map })
    const packets = walk()
    for (const o of packets) if (o.time <= 5000) p.observe(o)
    const at5 = p.estimate('tag', 5000)
    for (const o of packets) if (o.time > 5000) p.observe(o)
    p.estimate('tag', 15_000)
    expect(p.estimate('tag', 5000)).toEqual(at5)
    expect(p.estimate('tag', 4000)).toBeUndefined()
  })

  it('follows a noisy walk to within a metre and a half, in the right room', () => {
    const p = new Positioner({ site, radioMap: map })
    let worst = 0
    for (const o of walk()) {
      p.observe(o)
      if (o.time % 1000 === 875 && o.time > 3000) {
        const e = p.estimate('tag', o.time)
        const f = o.time / 20_000
        worst = Math.max(worst, Math.hypot((e?.x ?? 99) - (1 + 8 * f), (e?.y ?? 99) - (1 + 6 * f)))
      }
    }
    expect(worst).toBeLessThan(1.5)
    expect(p.estimate('tag', 19_875)?.room).toBe('east')
  })

  it('baselines on noiseless physics: nearest picks the closest anchor, the others land near the truth', () => {
    const at = { x: 2, y: 3 }
    const packets = ANCHORS.map((anchor, i) => ({ time: i, anchor, beacon: 'b', rssi: rssi(anchor, at.x, at.y) }))
    const answer = (method: (typeof POSITIONING_METHODS)[number]) => {
      const p = new Positioner({ site, radioMap: map, method })
      for (const o of packets) p.observe(o)
      return p.estimate('b', 10)
    }
    expect(answer('nearest')).toMatchObject({ x: 0, y: 0 })
    const c = answer('centroid')
    expect(c?.x).toBeLessThan(5)
    expect(c?.y).toBeLessThan(4)
    const m = answer('multilateration')
    expect(Math.hypot((m?.x ?? 99) - at.x, (m?.y ?? 99) - at.y)).toBeLessThan(0.3)
    const k = answer('knn')
    expect(Math.hypot((k?.x ?? 99) - at.x, (k?.y ?? 99) - at.y)).toBeLessThan(1)
  })

  it('without a survey, default physics still positions (coarsely)', () => {
    const p = new Positioner({ site })
    for (const o of walk('tag', 0, 4)) p.observe(o)
    const e = p.estimate('tag', 4000)
    expect(e).toBeDefined()
    expect(e?.x).toBeGreaterThanOrEqual(0)
    expect(e?.x).toBeLessThanOrEqual(10)
    expect(e?.accuracy).toBeGreaterThan(0)
  })

  it('holds at most maxBeacons, letting go of the one heard least recently, and forgets on request', () => {
    const p = new Positioner({ site, radioMap: map, maxBeacons: 50 })
    for (let i = 0; i < 1000; i++) p.observe({ time: i, anchor: 'sw', beacon: `b${i}`, rssi: -70 })
    expect(p.size).toBe(50)
    expect(p.stats.evicted).toBe(950)
    expect(p.estimate('b999', 1000)).toBeDefined()
    expect(p.estimate('b0', 1000)).toBeUndefined()
    p.forget('b999')
    expect(p.size).toBe(49)
    expect(p.estimate('b999', 1000)).toBeUndefined()
  })

  it('keeps a fixed number of packets per beacon however many arrive, and never loses one unfolded', () => {
    const p = new Positioner({ site, radioMap: map, bufferSize: 16 })
    const packets = walk('tag', 1, 60)
    for (const o of packets) p.observe(o)
    expect(p.stats.observations).toBe(packets.length)
    const e = p.estimate('tag', 60_000)
    expect(Math.hypot((e?.x ?? 99) - 9, (e?.y ?? 99) - 7)).toBeLessThan(1.5)
  })

  it('skips bad packets and counts them, never throws', () => {
    const p = new Positioner({ site, radioMap: map, lagMs: 0 })
    p.observe({ time: Number.NaN, anchor: 'sw', beacon: 'b', rssi: -60 })
    p.observe({ time: 1, anchor: 'sw', beacon: 'b', rssi: 200 })
    p.observe({ time: 1, anchor: 'nowhere', beacon: 'b', rssi: -60 })
    p.observe({ time: 5, anchor: 'sw', beacon: 'b', rssi: -60 })
    p.estimate('b', 10)
    p.observe({ time: 8, anchor: 'se', beacon: 'b', rssi: -60 })
    expect(p.stats).toMatchObject({ invalid: 2, unknownAnchor: 1, late: 1, observations: 1 })
  })

  it('a packet that arrives after an estimate for a later time still counts, within the lag', () => {
    // Gateways report in batches: the fleet tracker estimates at `now`, then a batch arrives
    // with readings from before `now`.
    const packets = walk('tag', 2, 10)
    const early = packets.filter((o) => o.anchor !== 'ne' || o.time <= 8000 || o.time > 9000)
    const lateOnes = packets.filter((o) => o.anchor === 'ne' && o.time > 8000 && o.time <= 9000)
    const p = new Positioner({ site, radioMap: map })
    const dropped = new Positioner({ site, radioMap: map })
    for (const o of early) {
      if (o.time > 9000) continue
      p.observe(o)
      dropped.observe(o)
    }
    p.estimate('tag', 9000)
    dropped.estimate('tag', 9000)
    for (const o of lateOnes) p.observe(o)
    expect(p.stats.late).toBe(0)
    const all = new Positioner({ site, radioMap: map })
    for (const o of packets) if (o.time <= 9000) all.observe(o)
    const after = p.estimate('tag', 9500)
    const reference = all.estimate('tag', 9500)
    // The late packets made a difference, and the answer is (up to where steps begin) the one
    // given had they come in time.
    expect(after).not.toEqual(dropped.estimate('tag', 9500))
    expect(Math.hypot((after?.x ?? 99) - (reference?.x ?? 0), (after?.y ?? 99) - (reference?.y ?? 0))).toBeLessThan(0.2)
    // Beyond the lag, a packet is late: skipped and counted.
    p.estimate('tag', 20_000)
    p.observe({ time: 9000, anchor: 'sw', beacon: 'tag', rssi: -70 })
    expect(p.stats.late).toBe(1)
  })

  it('refuses an unknown method with the list of known ones', () => {
    expect(() => new Positioner({ site, method: 'magic' as never })).toThrow(InvalidOptionError)
    expect(() => new Positioner({ site, method: 'magic' as never })).toThrow(/filter, nearest/)
  })

  it('refuses a filter setting that is NaN, infinite or negative, naming it', () => {
    for (const filter of [{ biasMax: Number.NaN }, { speed: -1 }, { biasTau: Number.POSITIVE_INFINITY }]) {
      const name = Object.keys(filter)[0]
      expect(() => new Positioner({ site, filter })).toThrow(InvalidOptionError)
      expect(() => new Positioner({ site, filter })).toThrow(new RegExp(`filter\\.${name}`))
    }
    expect(() => new Positioner({ site, filter: { biasTau: 0 } })).not.toThrow()
  })
})
