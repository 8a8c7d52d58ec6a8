// The site simulator without a broker: the radio model's parts, walls in the site file, beacon
// paths, ground truth, determinism, and each gateway's stream through a real BeaconScanner.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { Site } from '../../src/positioning/site.js'
import { siteBeaconsFromJSON, Trajectory } from '../../src/simulation/site-beacons.js'
import type { SiteBeacon } from '../../src/simulation/site-beacons.js'
import { lossProbability, meanRssi, radioFromJSON, radioModel, shadowingStep, wallLoss } from '../../src/simulation/site-radio.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'
import type { Advertisement } from '../../src/advertisement.js'
import { advertisementSourceContract } from '../sources/source-contract.js'

const DEMO = JSON.parse(readFileSync(new URL('../../fixtures/site-demo.json', import.meta.url), 'utf8')) as Record<string, unknown>

/** Two gateways 10 m apart, a wall between them at x = 5 (unless `walls` is empty). */
function twoRooms(walls: unknown[] = [[[5, -10], [5, 10]]]): Site {
  return Site.fromJSON({
    gateways: { west: { x: 0, y: 0 }, east: { x: 10, y: 0 } },
    rooms: [
      { name: 'West', polygon: [[-5, -5], [5, -5], [5, 5], [-5, 5]] },
      { name: 'East', polygon: [[5, -5], [15, -5], [15, 5], [5, 5]] },
    ],
    walls,
  })
}

function beacon(i: number, rest: Partial<SiteBeacon>): SiteBeacon {
  return siteBeaconsFromJSON([{ at: [0, 0] }]).map((b) => ({ ...b, address: `c0:de:00:00:00:0${i}`, serialNumber: `0117C500000${i}`, ...rest }))[0]
}

/** Every packet each gateway hears in `ms` of virtual time. */
function hear(sim: SiteSimulator, ms: number): Map<string, Advertisement[]> {
  const heard = new Map<string, Advertisement[]>()
  for (const g of sim.gateways) {
    const list: Advertisement[] = []
    heard.set(g, list)
    const s = sim.source(g)
    s.on('advertisement', (a) => list.push(a))
    void s.start()
  }
  sim.advanceTo((sim.clock?.now() ?? 0) + ms)
  return heard
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

describe('the radio model', () => {
  it('loses dB with distance by the exponent, per wall crossed, and more packets near the sensitivity', () => {
    expect(meanRssi(-59, 1, 2)).toBe(-59)
    expect(meanRssi(-59, 10, 2)).toBeCloseTo(-79, 6)
    expect(meanRssi(-59, 10, 3)).toBeCloseTo(-89, 6)
    const walls = [{ from: [5, -1], to: [5, 1] }, { from: [7, -1], to: [7, 1], attenuationDb: 10 }] as const
    expect(wallLoss(walls, [0, 0], [10, 0], 6)).toBe(16)
    expect(wallLoss(walls, [0, 0], [6, 0], 6)).toBe(6)
    expect(wallLoss(walls, [0, 5], [10, 5], 6)).toBe(0)
    const m = { lossRate: 0.05, sensitivityDbm: -95, fadeMarginDb: 10 }
    expect(lossProbability(-60, m)).toBe(0.05)
    expect(lossProbability(-90, m)).toBeGreaterThan(0.5)
    expect(lossProbability(-95, m)).toBe(1)
    expect(lossProbability(-100, m)).toBe(1)
    // Shadowing drifts: close in time, nearly the same; long after, forgotten.
    expect(shadowingStep(5, 10, 4, 5000, 0)).toBeCloseTo(5, 1)
    expect(Math.abs(shadowingStep(5, 100_000, 4, 5000, 0))).toBeLessThan(1e-6)
  })

  it('checks its values and reads the radio object of a site file', () => {
    expect(() => radioModel({ lossRate: 1 })).toThrow(/radio.lossRate must be in \[0, 1\)/)
    expect(() => radioModel({ pathLossExponent: 0 })).toThrow(InvalidOptionError)
    expect(radioFromJSON({ wallDb: 9, comment: 'ignored' })).toEqual({ wallDb: 9 })
    expect(() => radioFromJSON({ wallDb: '9' })).toThrow(/radio.wallDb is not a number/)
    expect(() => radioFromJSON([1])).toThrow(/radio is not an object/)
  })
})

describe('walls and beacons in the site file', () => {
  it('reads walls as segments or objects, and refuses what is wrong', () => {
    const site = Site.fromJSON(DEMO)
    expect(site.walls.length).toBe(10)
    expect(site.walls[0]).toEqual({ from: [8, 0], to: [8, 2] })
    expect(site.walls[6]).toEqual({ from: [0, 0], to: [16, 0], attenuationDb: 12 })
    expect(Site.fromJSON({ gateways: { a: {} } }).walls).toEqual([])
    expect(() => Site.fromJSON({ gateways: { a: {} }, walls: {} })).toThrow(/walls is not a list/)
    expect(() => Site.fromJSON({ gateways: { a: {} }, walls: [[[0, 0]]] })).toThrow(/walls\[0\]\[1\] is not an \[x, y\] pair/)
    expect(() => Site.fromJSON({ gateways: { a: {} }, walls: [{ from: [0, 0], to: [1, 'x'] }] })).toThrow(/walls\[0\]\.to\[1\]/)
    expect(() => Site.fromJSON({ gateways: { a: {} }, walls: [{ from: [0, 0], to: [1, 1], attenuationDb: -3 }] })).toThrow(/negative/)
  })

  it('reads beacons: serials, paths with pauses, and refuses what is wrong', () => {
    const beacons = siteBeaconsFromJSON(DEMO.beacons)
    expect(beacons).toHaveLength(6)
    expect(beacons[0]).toMatchObject({ name: 'walker', serialNumber: '0117C5D00001', path: { speed: 1, loop: true } })
    expect(beacons[5].appearAtMs).toBe(30_000)
    // Without serial or address each gets its own.
    const plain = siteBeaconsFromJSON([{ at: [0, 0] }, { at: [1, 1] }])
    expect(new Set(plain.map((b) => b.serialNumber)).size).toBe(2)
    expect(new Set(plain.map((b) => b.address)).size).toBe(2)
    expect(() => siteBeaconsFromJSON({})).toThrow(/beacons is not a list/)
    expect(() => siteBeaconsFromJSON([{}])).toThrow(/beacons\[0\] has neither "at" nor "path"/)
    expect(() => siteBeaconsFromJSON([{ path: { waypoints: [[0, 0]], speed: 1 } }])).toThrow(/fewer than two waypoints/)
    expect(() => siteBeaconsFromJSON([{ path: { waypoints: [[0, 0], [1, 1]], speed: 0 } }])).toThrow(/speed/)
    expect(() => siteBeaconsFromJSON([{ at: [0, 0], serial: 'abc' }])).toThrow(/12 upper-case hex/)
    expect(() => siteBeaconsFromJSON([{ at: [0, 0], intervalMs: 5 }])).toThrow(/below 20 ms/)
    expect(() => siteBeaconsFromJSON([{ at: [0, 0], address: 'AA:BB' }])).toThrow(/address/)
  })

  it('walks a path at its speed, pausing where told, in loops', () => {
    const t = new Trajectory({ path: { waypoints: [[0, 0], [10, 0, 5000], [10, 10]], speed: 2, startMs: 1000, loop: true } })
    expect(t.at(0)).toMatchObject({ x: 0, y: 0, moving: false })
    expect(t.at(3500)).toMatchObject({ x: 5, y: 0, moving: true })
    expect(t.at(6000 + 2500)).toMatchObject({ x: 10, y: 0, moving: false })
    expect(t.at(11000 + 2500)).toMatchObject({ x: 10, y: 5, moving: true })
    // Back to the start along the diagonal (14.14 m, 7.07 s), then the second lap.
    const lap = 5000 + 5000 + 5000 + (Math.hypot(10, 10) / 2) * 1000
    expect(t.at(1000 + lap + 2500).x).toBeCloseTo(5, 6)
    expect(t.at(1000 + lap + 2500).walked).toBeCloseTo(20 + Math.hypot(10, 10) + 5, 6)
    expect(new Trajectory({ at: [3, 4] }).at(99_999)).toEqual({ x: 3, y: 4, moving: false, walked: 0 })
    const once = new Trajectory({ path: { waypoints: [[0, 0], [1, 0]], speed: 1 } })
    expect(once.at(60_000)).toMatchObject({ x: 1, y: 0, moving: false })
  })
})

describe('SiteSimulator', () => {
  it('is deterministic for a seed, and another seed differs', () => {
    const run = (seed: number): string => {
      const sim = SiteSimulator.fromJSON(DEMO, { virtual: true, seed })
      return JSON.stringify([...hear(sim, 20_000)].map(([g, list]) => [g, list.map((a) => [a.timestamp, a.rssi])]))
    }
    expect(run(3)).toBe(run(3))
    expect(run(3)).not.toBe(run(4))
  })

  it('hears a near beacon louder than a far one, and a wall takes its dB away', () => {
    const open = new SiteSimulator({ site: twoRooms([]), beacons: [beacon(1, { at: [2, 0] })], virtual: true, seed: 5, radio: { lossRate: 0, sensitivityDbm: -130 } })
    const walled = new SiteSimulator({ site: twoRooms(), beacons: [beacon(1, { at: [2, 0] })], virtual: true, seed: 5, radio: { lossRate: 0, wallDb: 10, sensitivityDbm: -130 } })
    const a = hear(open, 60_000)
    const b = hear(walled, 60_000)
    const rssi = (m: Map<string, Advertisement[]>, g: string): number => mean((m.get(g) ?? []).map((x) => x.rssi))
    expect(rssi(a, 'west')).toBeGreaterThan(rssi(a, 'east') + 10)
    // Same seed and draws: the east gateway, behind the wall, hears 10 dB less; the west one the same.
    expect(rssi(a, 'east') - rssi(b, 'east')).toBeCloseTo(10, 0)
    expect(rssi(b, 'west')).toBeCloseTo(rssi(a, 'west'), 6)
  })

  it('does not hear below the sensitivity, and loses more packets of a weak beacon', () => {
    const site = twoRooms([])
    const sim = new SiteSimulator({ site, beacons: [beacon(1, { at: [0.5, 0] }), beacon(2, { at: [9, 0], measuredPower: -85 })], virtual: true, seed: 9, radio: { shadowingDb: 0, fadingDb: 1 } })
    const heard = hear(sim, 120_000)
    const west = heard.get('west') ?? []
    const count = (addr: string): number => west.filter((x) => x.address === addr).length
    // Beacon 2 is ~9 m away at -85 dBm at 1 m: about -106 dBm at the west gateway, never heard.
    expect(count('c0:de:00:00:00:02')).toBe(0)
    expect(west.every((x) => x.rssi > -95)).toBe(true)
    // At the east gateway (1 m) beacon 2 is at about -85 to -88: near the sensitivity, many lost.
    const east = heard.get('east') ?? []
    const weak = east.filter((x) => x.address === 'c0:de:00:00:00:02').length
    expect(count('c0:de:00:00:00:01')).toBeGreaterThan(weak * 1.5)
    expect(sim.stats.lost).toBeGreaterThan(0)
    expect(sim.stats.unheard).toBeGreaterThan(0)
  })

  it('keeps the ground truth: position, room, presence, and who heard it last', () => {
    const sim = SiteSimulator.fromJSON(DEMO, { virtual: true, seed: 1 })
    const t0 = sim.clock?.now() ?? 0
    expect(sim.beaconNames()).toEqual(['walker', 'kettle', 'laptop', 'cat', 'visitor', 'late-guest'])
    expect(sim.truth('walker', t0)).toMatchObject({ x: 4, y: 2.5, room: 'Kitchen', present: true, moving: false })
    // It stands 20 s in the kitchen, then walks 1 m/s through the door at x = 8.
    expect(sim.truth('walker', t0 + 19_000)).toMatchObject({ x: 4, moving: false })
    expect(sim.truth('walker', t0 + 22_000)).toMatchObject({ x: 6, room: 'Kitchen', moving: true })
    expect(sim.truth('walker', t0 + 30_000)).toMatchObject({ x: 12, room: 'Living room', moving: false })
    expect(sim.truth('late-guest', t0)?.present).toBe(false)
    expect(sim.truth('late-guest', t0 + 30_000)?.present).toBe(true)
    // The visitor walks off the plan (no room) and leaves with the tag at 70 s.
    expect(sim.truth('visitor', t0 + 65_000)).toMatchObject({ present: true })
    expect(sim.truth('visitor', t0 + 65_000)?.room).toBeUndefined()
    expect(sim.truth('visitor', t0 + 70_000)?.present).toBe(false)
    expect(sim.truth('nobody', t0)).toBeUndefined()
    // Only started gateways hear: nothing was heard before any source started.
    sim.advanceTo(t0 + 5000)
    expect(sim.lastHeard('kettle')).toBeUndefined()
    const kitchen = sim.source('kitchen-pi')
    void kitchen.start()
    sim.advanceTo(t0 + 10_000)
    expect(sim.lastHeard('kettle')).toMatchObject({ gateway: 'kitchen-pi' })
    expect(sim.lastHeard('kettle')?.time).toBeGreaterThan(t0 + 5000)
    void kitchen.stop()
    const before = sim.lastHeard('kettle')
    sim.advanceTo(t0 + 20_000)
    expect(sim.lastHeard('kettle')).toEqual(before)
    expect(sim.clock?.now()).toBe(t0 + 20_000)
    // The visitor left: nobody hears it any more.
    const all = hear(sim, 100_000)
    const late = [...all.values()].flat().filter((a) => a.address === siteBeaconsFromJSON(DEMO.beacons)[4].address && a.timestamp > t0 + 70_000)
    expect(late).toEqual([])
  })

  it('feeds a real BeaconScanner per gateway, which knows each beacon by its serial', async () => {
    const sim = SiteSimulator.fromJSON(DEMO, { virtual: true, seed: 2 })
    const scanner = new BeaconScanner({ source: sim.source('office-pi') })
    await scanner.start()
    sim.advanceTo((sim.clock?.now() ?? 0) + 10_000)
    const ids = scanner.beacons().map((b) => b.id)
    expect(ids).toContain('0117C5D00003')
    const laptop = scanner.beacons().find((b) => b.id === '0117C5D00003')
    expect(laptop).toMatchObject({ serialNumber: '0117C5D00003', frames: ['e781'] })
    expect(laptop?.measuredPower).toBe(-59)
    await scanner.stop()
  })

  it('refuses what it cannot simulate', () => {
    const site = twoRooms()
    expect(() => new SiteSimulator({ site: Site.fromJSON({ gateways: { a: {} } }), beacons: [beacon(1, {})] })).toThrow(/gateway a has no position/)
    expect(() => new SiteSimulator({ site: Site.fromJSON({ anchorBeacons: { a: { x: 0, y: 0 } } }), beacons: [] })).toThrow(/not of fixed beacons/)
    expect(() => new SiteSimulator({ site, beacons: [beacon(1, {}), beacon(1, {})] })).toThrow(/name 0117C5000001 is taken/)
    expect(() => new SiteSimulator({ site, beacons: [beacon(1, { address: 'x' })] })).toThrow(/address/)
    expect(() => new SiteSimulator({ site, beacons: [], durationMs: -1 })).toThrow(/durationMs/)
    const sim = new SiteSimulator({ site, beacons: [beacon(1, {})] })
    expect(() => sim.source('north')).toThrow(/no gateway north; it has west, east/)
    expect(() => sim.advanceTo(1)).toThrow(/virtual-time/)
    expect(() => SiteSimulator.fromJSON({ gateways: { a: { x: 0, y: 0 } } })).toThrow(/no "beacons"/)
  })
})

advertisementSourceContract('SiteGatewaySource (virtual, with an end)', () => ({
  source: SiteSimulator.fromJSON(DEMO, { virtual: true, seed: 1, durationMs: 30_000 }).source('kitchen-pi'),
}))
advertisementSourceContract('SiteGatewaySource (real time)', () => {
  const sim = SiteSimulator.fromJSON({ ...DEMO, beacons: [{ at: [2, 1.5], intervalMs: 20 }] }, { seed: 1 })
  return { source: sim.source('kitchen-pi'), cleanup: () => sim.stop() }
})
