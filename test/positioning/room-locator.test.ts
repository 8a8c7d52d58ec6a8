// The room method (#39): floor first, then the room among that floor's rooms, with hysteresis;
// a room whose gateways are online and silent never wins; an offline gateway's silence means
// nothing; teaching makes a fingerprint that then counts; offsets are learnt from settled beacons.
import { describe, expect, it } from 'vitest'
import { RoomLocator } from '../../src/positioning/room-locator.js'
import { Fingerprints } from '../../src/positioning/fingerprints.js'
import { Site } from '../../src/positioning/site.js'

const box = (x: number, y: number): number[][] => [[x, y], [x + 5, y], [x + 5, y + 4], [x, y + 4]]
const site = Site.fromJSON({
  floors: [{ id: 'ground', name: 'Ground', z: 0 }, { id: 'first', name: 'First', z: 3 }],
  gateways: {
    kitchen: { x: 2, y: 2, floor: 'ground' },
    living: { x: 8, y: 2, floor: 'ground' },
    bedroom: { x: 2, y: 2, floor: 'first' },
    office: { x: 8, y: 2, floor: 'first' },
  },
  rooms: [
    { name: 'Kitchen', polygon: box(0, 0), floor: 'ground' },
    { name: 'Living', polygon: box(5, 0), floor: 'ground' },
    { name: 'Bedroom', polygon: box(0, 0), floor: 'first' },
    { name: 'Office', polygon: box(5, 0), floor: 'first' },
    // No gateway of its own: found from the plan alone.
    { name: 'Landing', polygon: box(10, 0), floor: 'first' },
  ],
  walls: [{ from: [5, 0], to: [5, 4], attenuationDb: 5, floor: 'ground' }, { from: [5, 0], to: [5, 4], attenuationDb: 5, floor: 'first' },
    { from: [10, 0], to: [10, 4], attenuationDb: 5, floor: 'first' }],
})

/** What the plan expects every gateway to hear at (x, y) on `floor` (the locator's own geometry, noise-free). */
function heardAt(locator: RoomLocator, room: string): { gateway: string; rssi: number }[] {
  const geo = locator.geometry
  const r = geo.rooms[geo.roomIndex(room)]
  const p = Math.floor((r.start + r.end) / 2)
  return geo.gateways.map((g, i) => ({ gateway: g, rssi: geo.expected[p * geo.gateways.length + i] })).filter((x) => x.rssi > -90)
}

describe('RoomLocator', () => {
  it('decides the floor first, then the room of that floor; a room without a gateway is found from the plan', () => {
    const loc = new RoomLocator(site)
    let d = loc.locate('tag', heardAt(loc, 'Office'), 0)
    expect(d).toMatchObject({ floor: 'first', room: 'Office', floorChange: { to: 'first' }, roomChange: { to: 'Office' } })
    // Heard by the office gateway alone, through the wall, at the level the Landing's middle gives.
    expect(loc.locate('other', heardAt(loc, 'Landing'), 0)).toMatchObject({ floor: 'first', room: 'Landing' })
    // Downstairs: the floor changes (after its dwell), and the room with it.
    const changes: unknown[] = []
    for (let t = 21_000; t <= 40_000; t += 1000) {
      d = loc.locate('tag', heardAt(loc, 'Kitchen'), t)
      if (d.floorChange !== undefined || d.roomChange !== undefined) changes.push({ floor: d.floorChange, room: d.roomChange })
    }
    expect(d).toMatchObject({ floor: 'ground', room: 'Kitchen' })
    // One floor change, and the room changes with it (never to a ground-floor room before it).
    const floors = changes.filter((c) => (c as { floor?: unknown }).floor !== undefined)
    expect(floors).toEqual([{ floor: { from: 'first', to: 'ground' }, room: { from: expect.any(String), to: 'Kitchen' } }])
  })

  it('holds the room through a close call: one reading for the neighbour is not a move', () => {
    const loc = new RoomLocator(site)
    for (let t = 0; t <= 10_000; t += 1000) loc.locate('tag', heardAt(loc, 'Kitchen'), t)
    const d = loc.locate('tag', heardAt(loc, 'Living'), 11_000)
    expect(d.room).toBe('Kitchen')
    expect(d.roomChange).toBeUndefined()
  })

  it('a room whose online gateways are all silent is out; an offline gateway\'s silence is not evidence', () => {
    const loc = new RoomLocator(site)
    // Heard loud by the living room's gateway only, as if right under it, but the kitchen gateway is silent.
    const reading = [{ gateway: 'living', rssi: -70 }]
    let d = loc.locate('a', reading, 0)
    expect(d.room).toBe('Living')
    // The same with the living room's gateway offline: the reading cannot come from it... so use the kitchen's.
    d = loc.locate('b', [{ gateway: 'kitchen', rssi: -62 }], 0, (g) => g !== 'living')
    expect(d.room).toBe('Kitchen')
    // Heard only by the kitchen gateway at −80, the living room's gateway offline: Living is not out.
    const loud = [{ gateway: 'kitchen', rssi: -82 }]
    const online = (g: string): boolean => g !== 'living'
    for (let t = 0; t <= 10_000; t += 1000) d = loc.locate('c', loud, t, online)
    expect(['Kitchen', 'Living']).toContain(d.room)
    for (let t = 0; t <= 10_000; t += 1000) d = loc.locate('e', loud, t)
    expect(d.room).toBe('Kitchen')
  })

  it('teaching records a fingerprint over the given seconds, which then counts for that room', () => {
    const fingerprints = new Fingerprints()
    // A light plan weight, so that one fingerprint can outweigh a plan that says otherwise.
    const loc = new RoomLocator(site, { fingerprints, learnOffsets: false, geometryWeight: 0.5 })
    // Taught in the Landing from readings the plan would put in the Office: the fingerprint wins.
    const odd = heardAt(loc, 'Office').map((r) => ({ ...r, rssi: r.rssi - 2 }))
    expect(loc.teach('teacher', 'Landing', 0, 10)).toBe(true)
    expect(loc.teach('teacher', 'Attic', 0, 10)).toBe(false)
    for (let t = 0; t <= 11_000; t += 1000) loc.locate('teacher', odd, t)
    const taught = loc.takeTaught()
    expect(taught).toHaveLength(1)
    expect(taught[0]).toMatchObject({ room: 'Landing', floor: 'first', readings: 10 })
    expect(Object.keys(taught[0].gateways).sort()).toEqual(odd.map((r) => r.gateway).sort())
    expect(loc.takeTaught()).toEqual([])
    expect(fingerprints.taught('Landing')).toBe(true)
    let d = loc.locate('tag', odd, 20_000)
    for (let t = 21_000; t <= 30_000; t += 1000) d = loc.locate('tag', odd, t)
    expect(d.room).toBe('Landing')
  })

  it('learns a loud gateway\'s offset from settled beacons heard by three or more gateways', () => {
    const loc = new RoomLocator(site)
    const loud = (rs: { gateway: string; rssi: number }[]) => rs.map((r) => (r.gateway === 'office' ? { ...r, rssi: r.rssi + 6 } : r))
    for (let t = 0; t <= 600_000; t += 1000) {
      loc.locate('x', loud(heardAt(loc, 'Bedroom')), t)
      loc.locate('y', loud(heardAt(loc, 'Office')), t)
    }
    // Where the place is the method's own guess, the plan's point soaks up part of the gain: it learns the direction.
    const offsets = Object.fromEntries(loc.offsets.list().map((o) => [o.gateway, o.offsetDb]))
    expect(offsets.office - offsets.bedroom).toBeGreaterThan(1.5)
    expect(offsets.office - offsets.bedroom).toBeLessThan(7)
  })

  it('learns a loud gateway\'s offset to within a dB from fixed beacons at known places', () => {
    const loc = new RoomLocator(site)
    const geo = loc.geometry
    const at = (x: number, y: number, floor: string) => {
      const f = geo.floors.indexOf(floor)
      let best = 0
      for (let p = 0, d = Infinity; p < geo.points.length / 2; p++) {
        const room = geo.rooms.find((r) => p >= r.start && p < r.end)
        const dd = Math.hypot(geo.points[2 * p] - x, geo.points[2 * p + 1] - y)
        if (room?.floor === f && dd < d) [best, d] = [p, dd]
      }
      return geo.gateways.map((g, i) => ({ gateway: g, rssi: geo.expected[best * geo.gateways.length + i] + (g === 'office' ? 6 : 0) }))
    }
    for (let i = 0; i < 400; i++) {
      expect(loc.observeFixed(at(3, 3, 'first'), 3, 3, 'first')).toBe(true)
      loc.observeFixed(at(7, 1, 'ground'), 7, 1, 'ground')
    }
    const offsets = Object.fromEntries(loc.offsets.list().map((o) => [o.gateway, o.offsetDb]))
    expect(offsets.office - offsets.bedroom).toBeCloseTo(6, 0)
    expect(Math.abs(offsets.kitchen - offsets.living)).toBeLessThan(0.5)
  })

  it('holds at most maxBeacons, forgetting the least recently located', () => {
    const loc = new RoomLocator(site, { maxBeacons: 2 })
    loc.locate('a', heardAt(loc, 'Office'), 0)
    loc.locate('b', heardAt(loc, 'Office'), 0)
    loc.locate('c', heardAt(loc, 'Office'), 0)
    // 'a' was let go: its next reading is a first decision again.
    expect(loc.locate('a', heardAt(loc, 'Office'), 1000).roomChange).toEqual({ to: 'Office' })
    expect(loc.locate('c', heardAt(loc, 'Office'), 1000).roomChange).toBeUndefined()
  })

  it('on a new site keeps the fingerprints of remaining rooms, the offsets of remaining gateways and their teachings', () => {
    const fingerprints = new Fingerprints()
    const loc = new RoomLocator(site, { fingerprints, learnOffsets: false })
    for (const room of ['Landing', 'Bedroom']) {
      loc.teach(`teacher-${room}`, room, 0, 2)
      for (let t = 0; t <= 3000; t += 1000) loc.locate(`teacher-${room}`, heardAt(loc, room), t)
    }
    expect(fingerprints.taught('Landing') && fingerprints.taught('Bedroom')).toBe(true)
    expect(loc.takeTaught()).toHaveLength(2)
    loc.offsets.restore([{ gateway: 'office', offsetDb: 4 }, { gateway: 'bedroom', offsetDb: -2 }])
    // A teaching under way of a room that stays, and of one that goes.
    expect(loc.teach('late', 'Office', 3000, 5)).toBe(true)
    expect(loc.teach('doomed', 'Bedroom', 3000, 5)).toBe(true)
    // The edit: the Bedroom and its gateway are gone, the office gateway moved, a Study drawn.
    const edited = Site.fromJSON({
      floors: [{ id: 'ground', name: 'Ground', z: 0 }, { id: 'first', name: 'First', z: 3 }],
      gateways: { kitchen: { x: 2, y: 2, floor: 'ground' }, living: { x: 8, y: 2, floor: 'ground' }, office: { x: 7, y: 3, floor: 'first' } },
      rooms: [
        { name: 'Kitchen', polygon: box(0, 0), floor: 'ground' },
        { name: 'Living', polygon: box(5, 0), floor: 'ground' },
        { name: 'Study', polygon: box(0, 0), floor: 'first' },
        { name: 'Office', polygon: box(5, 0), floor: 'first' },
        { name: 'Landing', polygon: box(10, 0), floor: 'first' },
      ],
    })
    const next = loc.forSite(edited)
    expect(next.site).toBe(edited)
    expect(next.geometry.rooms.map((r) => r.name)).toContain('Study')
    expect(next.fingerprints).toBe(fingerprints)
    expect(fingerprints.taught('Landing')).toBe(true)
    expect(fingerprints.taught('Bedroom')).toBe(false)
    expect(next.offsets.list().map((o) => [o.gateway, o.offsetDb])).toEqual([['office', 4]])
    expect(next.teachings).toBe(1)
    // The teaching goes on in the new locator and ends there as a fingerprint of the Office.
    for (let t = 4000; t <= 9000; t += 1000) next.locate('late', heardAt(next, 'Office'), t)
    expect(next.takeTaught().map((s) => s.room)).toEqual(['Office'])
    expect(fingerprints.taught('Office')).toBe(true)
  })
})
