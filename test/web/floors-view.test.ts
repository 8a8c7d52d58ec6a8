// The map's view of floors (#39): a site with `floors` sends them (id, name, an image URL only),
// each room's, wall's and gateway's floor; a one-plane site sends exactly what it did before.
import { describe, expect, it } from 'vitest'
import { Site } from '../../src/positioning/site.js'
import { gatewaysOf, planOf, signature } from '../../src/web/view.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { ViewBeacon } from '../../src/web/view.js'

const box = (x: number): [number, number][] => [[x, 0], [x + 5, 0], [x + 5, 4], [x, 4]]

describe('the map view of floors', () => {
  it('carries the floors, and each room, wall and gateway its floor', () => {
    const site = Site.fromJSON({
      floors: [
        { id: 'ground', name: 'Ground floor', image: 'plans/ground.png' },
        { id: 'first', name: 'First floor', image: 'https://plans.example/first.svg' },
      ],
      gateways: { 'gw-a': { x: 2, y: 2, floor: 'ground' }, 'gw-b': { x: 2, y: 2, floor: 'first' } },
      rooms: [
        { name: 'Kitchen', floor: 'ground', polygon: box(0) },
        { name: 'Bedroom', floor: 'first', polygon: box(0) },
      ],
      walls: [{ from: [5, 0], to: [5, 4], floor: 'first' }, { from: [0, 4], to: [5, 4] }],
    })
    const plan = planOf(site, undefined)
    // A floor's image file is not served by the map server: only a URL goes to the page.
    expect(plan.floors).toEqual([
      { id: 'ground', name: 'Ground floor' },
      { id: 'first', name: 'First floor', image: 'https://plans.example/first.svg' },
    ])
    expect(plan.rooms.map((r) => [r.name, r.floor])).toEqual([['Kitchen', 'ground'], ['Bedroom', 'first']])
    expect(plan.wallFloors).toEqual(['first', null])
    expect(gatewaysOf(site).map((g) => [g.id, g.floor])).toEqual([['gw-a', 'ground'], ['gw-b', 'first']])
  })

  it('leaves a one-plane site as it was: no floors, no floor on anything', () => {
    const site = Site.fromJSON({
      gateways: { 'gw-a': { x: 2, y: 2 } },
      rooms: [{ name: 'Kitchen', polygon: box(0) }],
      walls: [{ from: [5, 0], to: [5, 4] }],
    })
    const plan = planOf(site, undefined)
    expect(Object.keys(plan).sort()).toEqual(['rooms', 'walls'])
    expect(plan.rooms).toEqual([{ name: 'Kitchen', polygon: box(0) }])
    expect(gatewaysOf(site)[0]).not.toHaveProperty('floor')
  })

  it('sends a beacon again when only its floor changed', () => {
    const b: ViewBeacon = { id: 'T', rssi: -60, lastSeen: 1, firstSeen: 0, room: 'Hall', details: {} }
    expect(signature({ ...b, floor: 'first' })).not.toBe(signature({ ...b, floor: 'ground' }))
  })

  it("allows a floor image URL's origin in the page's img-src, and nothing else", async () => {
    const site = Site.fromJSON({
      floors: [
        { id: 'ground', name: 'Ground floor', image: 'https://plans.example/ground.png' },
        { id: 'first', name: 'First floor', image: 'first.png' },
      ],
      gateways: { 'gw-a': { x: 2, y: 2, floor: 'ground' } },
    })
    // Never started: the server only needs it as its source.
    const fleet = new FleetTracker({ url: 'mqtt://127.0.0.1:1', site })
    const map = await startMapServer({ fleet, site, port: 0 })
    try {
      const res = await fetch(map.url)
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("img-src 'self' https://plans.example;")
    } finally {
      await map.close()
    }
  })
})
