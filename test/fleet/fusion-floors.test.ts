// The fused state with the room method and the away rule (#39): floor and room in the state, a
// floor event, a room of the other floor never chosen without the floor changing, a 1 Hz tag away
// in seconds, and a gateway going offline never making a beacon away by itself.
import { describe, expect, it } from 'vitest'
import { FleetState } from '../../src/fleet/fleet-state.js'
import { AwayTimer } from '../../src/fleet/away-timer.js'
import type { RoomChange } from '../../src/fleet/room-choice.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { RoomLocator } from '../../src/positioning/room-locator.js'
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
  ],
})

const batch = (gateway: string, time: number, readings: [string, number][]): RssiBatch => ({
  gateway, time, readings: readings.map(([id, rssi]) => ({ id, rssi, lastSeen: time, count: 1 })),
})

function harness() {
  const rooms = new RoomLocator(site)
  const events: string[] = []
  const log = (what: string) => (b: { id: string }, c: RoomChange) => events.push(`${what} ${b.id} ${c.from ?? '-'}>${c.to}`)
  const state = new FleetState({ site, rooms, away: new AwayTimer({ fallbackMs: 30_000 }) }, {
    found: (b) => events.push(`found ${b.id}`),
    gone: (b) => events.push(`gone ${b.id} ${b.time}`),
    moved: () => undefined,
    room: log('room'),
    floor: log('floor'),
  })
  /** What the plan expects every gateway to hear in the middle of `room`. */
  const heard = (room: string): [string, number][] => {
    const geo = rooms.geometry
    const r = geo.rooms[geo.roomIndex(room)]
    const p = Math.floor((r.start + r.end) / 2)
    return geo.gateways.map((g, i): [string, number] => [g, geo.expected[p * geo.gateways.length + i]]).filter(([, v]) => v > -92)
  }
  const hear = (t: number, id: string, room: string, except: string[] = []) => {
    for (const [g, rssi] of heard(room)) if (!except.includes(g)) state.ingest(batch(g, t, [[id, rssi]]), t)
  }
  return { state, events, hear }
}

describe('fused state with the room method (#39)', () => {
  it('carries the floor beside the room, and changes floor before it changes to a room of that floor', () => {
    const { state, events, hear } = harness()
    for (let t = 0; t <= 10_000; t += 1000) {
      hear(t, 'tag', 'Office')
      state.tick(t)
    }
    expect(state.get('tag', 10_000)).toMatchObject({ floor: 'first', room: 'Office' })
    for (let t = 11_000; t <= 30_000; t += 1000) {
      hear(t, 'tag', 'Kitchen')
      state.tick(t)
    }
    expect(state.get('tag', 30_000)).toMatchObject({ floor: 'ground', room: 'Kitchen' })
    const floorAt = events.indexOf('floor tag first>ground')
    expect(floorAt).toBeGreaterThan(0)
    const kitchenAt = events.findIndex((e) => e.startsWith('room tag') && e.endsWith('>Kitchen'))
    expect(kitchenAt).toBeGreaterThan(floorAt)
    // No room of the ground floor was ever chosen while the floor was still the first.
    expect(events.slice(0, floorAt).filter((e) => /room tag .*>(Kitchen|Living)/.test(e))).toEqual([])
  })

  it('a 1 Hz tag is away within 5 s of its last packet; an offline gateway\'s beacons are not', () => {
    const { state, events, hear } = harness()
    for (let t = 0; t <= 20_000; t += 1000) {
      hear(t, 'leaves', 'Kitchen')
      hear(t, 'stays', 'Bedroom')
      state.tick(t)
    }
    // 'stays' is heard only by the bedroom's gateway from now on, and that gateway goes offline.
    state.gatewayStatus('bedroom', 'online', 20_500)
    for (let t = 21_000; t <= 30_000; t += 1000) {
      hear(t, 'stays', 'Bedroom', ['kitchen', 'living', 'office'])
      state.tick(t)
    }
    state.gatewayStatus('bedroom', 'offline', 30_500)
    for (let t = 31_000; t <= 45_000; t += 1000) state.tick(t)
    const gone = events.filter((e) => e.startsWith('gone'))
    expect(gone).toHaveLength(1)
    const [, , at] = gone[0].split(' ')
    expect(gone[0]).toMatch(/^gone leaves /)
    expect(Number(at) - 20_000).toBeLessThanOrEqual(5000)
    expect(state.get('stays', 45_000)).toBeDefined()
  })
})

describe('a slow tag with the away rule (#39)', () => {
  it('a 10 s tag keeps its gateways between packets (hearing lasts 2.5 intervals), and goes ~31 s after its last', () => {
    const { state, events, hear } = harness()
    for (let t = 0; t <= 120_000; t += 1000) {
      if (t % 10_000 === 0) hear(t, 'slow', 'Kitchen')
      state.tick(t)
      if (t >= 60_000 && t <= 120_000) expect(state.get('slow', t)?.gateways.length).toBeGreaterThan(1)
    }
    for (let t = 121_000; t <= 170_000; t += 1000) state.tick(t)
    expect(events.filter((e) => e.startsWith('gone'))).toEqual(['gone slow 151000'])
  })
})
