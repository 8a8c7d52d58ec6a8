// Floors in the site simulator (#39): a slab of `radio.slabDb` between a beacon and a gateway on
// another floor, each floor's walls apart, floor heights in the 3-D distance, and the ground truth
// naming the floor and the room of the beacon's own floor.
import { describe, expect, it } from 'vitest'
import type { Advertisement } from '../../src/advertisement.js'
import { Site } from '../../src/positioning/site.js'
import { siteBeaconsFromJSON } from '../../src/simulation/site-beacons.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'

const box = (x: number, y: number): number[][] => [[x, y], [x + 5, y], [x + 5, y + 4], [x, y + 4]]
const site = (slabFloors = true) =>
  Site.fromJSON({
    ...(slabFloors ? { floors: [{ id: 'ground', name: 'Ground', z: 0 }, { id: 'first', name: 'First', z: 0 }] } : {}),
    gateways: { down: { x: 1, y: 2, floor: 'ground' }, up: { x: 4, y: 2, floor: 'first' } },
    rooms: [{ name: 'Kitchen', polygon: box(0, 0), floor: 'ground' }, { name: 'Bedroom', polygon: box(0, 0), floor: 'first' }],
    // A wall between the two gateways upstairs only.
    walls: [{ from: [2.5, 0], to: [2.5, 4], attenuationDb: 8, floor: 'first' }],
  })

function hear(sim: SiteSimulator, ms: number): Map<string, number> {
  const heard = new Map<string, number[]>()
  for (const g of sim.gateways) {
    const list: number[] = []
    heard.set(g, list)
    const s = sim.source(g)
    s.on('advertisement', (a: Advertisement) => list.push(a.rssi))
    void s.start()
  }
  sim.advanceTo((sim.clock?.now() ?? 0) + ms)
  return new Map([...heard].map(([g, xs]) => [g, xs.reduce((a, b) => a + b, 0) / xs.length]))
}

describe('SiteSimulator with floors', () => {
  it('a gateway on the other floor hears the slab\'s dB less; walls count on their own floor only', () => {
    // Both gateways 1.5 m from the tag; floor heights equal (z 0 both), so only the slab and walls differ.
    const beacons = siteBeaconsFromJSON([{ serial: '0117C5000001', at: [2.5, 2], floor: 'ground' }])
    const radio = { lossRate: 0, sensitivityDbm: -130, slabDb: 14, shadowingDb: 0, fadingDb: 0 }
    const onGround = hear(new SiteSimulator({ site: site(), beacons, virtual: true, seed: 3, radio }), 20_000)
    // The upstairs wall does not stand between the tag on the ground floor and either gateway.
    expect((onGround.get('down') ?? 0) - (onGround.get('up') ?? 0)).toBeCloseTo(14, 0)
    const upstairs = siteBeaconsFromJSON([{ serial: '0117C5000001', at: [2.4, 2], floor: 'first' }])
    const onFirst = hear(new SiteSimulator({ site: site(), beacons: upstairs, virtual: true, seed: 3, radio }), 20_000)
    // Upstairs: the 'up' gateway is across the 8 dB wall and 1.6 m away; 'down' below the 14 dB slab, 1.4 m away.
    const expected = 14 - 8 - 10 * 2.2 * Math.log10(Math.hypot(1.6, 1) / Math.hypot(1.4, 1))
    expect((onFirst.get('up') ?? 0) - (onFirst.get('down') ?? 0)).toBeCloseTo(expected, 0)
  })

  it('the ground truth names the floor and the room of that floor', () => {
    const beacons = siteBeaconsFromJSON([{ name: 'tag', serial: '0117C5000001', at: [2, 2], floor: 'first' }])
    const sim = new SiteSimulator({ site: site(), beacons, virtual: true, seed: 1 })
    expect(sim.truth('tag', sim.clock?.now() ?? 0)).toMatchObject({ floor: 'first', room: 'Bedroom' })
    const flat = new SiteSimulator({ site: site(false), beacons: siteBeaconsFromJSON([{ name: 'tag', serial: '0117C5000001', at: [2, 2] }]), virtual: true, seed: 1 })
    expect(flat.truth('tag', flat.clock?.now() ?? 0)?.floor).toBeUndefined()
    expect(() => siteBeaconsFromJSON([{ at: [0, 0], floor: 3 }])).toThrow(/floor/)
  })
})
