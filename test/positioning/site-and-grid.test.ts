// Building the plan: the occupancy grid format, a site of fixed beacons from a deployment map
// (the mobile case), and the positioner plugged into the fleet's fused state.
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { FleetState } from '../../src/fleet/fleet-state.js'
import { Site } from '../../src/positioning/site.js'
import { WalkableGrid } from '../../src/positioning/grid.js'
import { Positioner } from '../../src/positioning/positioner.js'
import { RadioMap } from '../../src/positioning/radio-map.js'
import { loadFixture } from './fixture.js'

describe('WalkableGrid.parseOccupancy', () => {
  it('reads the header and the cells, 0 free and 1 occupied', () => {
    const { grid, skipped } = WalkableGrid.parseOccupancy('[[0.0, 0.0], [2.0, 1.0]]::0.5\n[0.0, 0.0]::1\n[0.5, 0.0]::0\n[1.5, 0.5]::1\nnonsense\n')
    expect([grid.nx, grid.ny, grid.cell]).toEqual([4, 2, 0.5])
    expect(skipped).toBe(1)
    expect(grid.walkable[grid.cellAt(0.2, 0.2)]).toBe(0)
    expect(grid.walkable[grid.cellAt(0.7, 0.2)]).toBe(1)
    expect(grid.walkable[grid.cellAt(1.7, 0.7)]).toBe(0)
    // Not listed: free.
    expect(grid.walkable[grid.cellAt(1.2, 0.7)]).toBe(1)
    expect(WalkableGrid.parseOccupancy('[[0, 0], [1, 1]]::0.5\n[0, 0]::1', { walkableValue: '1' }).grid.walkable[0]).toBe(1)
  })

  it('a cell line gives the cell centre, not its corner', () => {
    const { grid } = WalkableGrid.parseOccupancy('[[0.0, 0.0], [2.0, 1.0]]::0.5\n[0.0, 0.0]::1\n[0.5, 0.0]::0\n')
    expect([grid.x(1), grid.y(0)]).toEqual([0.5, 0])
    // 0.3 m is past the half cell around 0.0: in the free cell centred at 0.5.
    expect(grid.walkable[grid.cellAt(0.3, 0.1)]).toBe(1)
    expect(grid.walkable[grid.cellAt(0.2, 0.1)]).toBe(0)
  })

  it('the tetam grid: the recorded walk stays on free cells', () => {
    const { grid, track } = loadFixture()
    const free = track.filter((r) => grid.walkable[grid.cellAt(r.x, r.y)] === 1).length
    expect(free / track.length).toBeGreaterThan(0.7)
  })

  it('refuses a file without the header, saying what it expects', () => {
    expect(() => WalkableGrid.parseOccupancy('[0.0, 0.0]::1')).toThrow(InvalidOptionError)
    expect(() => WalkableGrid.parseOccupancy('')).toThrow(/\[\[minX, minY\], \[maxX, maxY\]\]::cell/)
  })
})

describe('Site.fromDeploymentMap', () => {
  const deployment = {
    id: 'm1',
    key: 'warehouse',
    name: 'Warehouse',
    xScale: 40,
    yScale: 20,
    beacons: [
      { mac: 'AA:BB:CC:00:00:01', PosX: 0, PosY: 0 },
      { mac: 'AA:BB:CC:00:00:02', PosX: 1, PosY: 0 },
      { mac: 'AA:BB:CC:00:00:03', PosX: 0.5, PosY: 1 },
      { mac: 'AA:BB:CC:00:00:04', PosX: Number.NaN, PosY: 1 },
    ],
  }

  it('places each beacon at its relative position times the scale, ids as scanners report MACs', () => {
    const site = Site.fromDeploymentMap(deployment, { z: 2.5 })
    expect(site.kind).toBe('beacons')
    expect(site.area).toEqual({ minX: 0, minY: 0, maxX: 40, maxY: 20 })
    expect(site.anchor('aabbcc000003')).toMatchObject({ x: 20, y: 20, z: 2.5 })
    expect(site.anchorList()).toHaveLength(3)
  })

  it('a moving scanner locates itself from the fixed beacons', () => {
    const site = Site.fromDeploymentMap(deployment)
    const p = new Positioner({ site, radioMap: RadioMap.defaultPhysics(site, { tagHeight: 0 }) })
    const at = { x: 10, y: 5 }
    for (let t = 0; t < 30_000; t += 100) {
      for (const a of site.anchorList()) {
        const d = Math.hypot((a.x ?? 0) - at.x, (a.y ?? 0) - at.y)
        p.observe({ time: t, anchor: a.id, beacon: 'forklift', rssi: -59 - 22 * Math.log10(d) })
      }
    }
    const e = p.estimate('forklift', 30_000)
    // Default physics trusts no reading to better than ~7 dB, so three beacons 11–30 m away
    // pin the scanner to metres (2.1 m here, asked only at the end), and the accuracy radius
    // says so. (Below 2 m before #28 only because a full ring folded each packet as an update
    // of its own, counting the same evidence many times over.)
    const err = Math.hypot((e?.x ?? 99) - at.x, (e?.y ?? 99) - at.y)
    expect(err).toBeLessThan(3)
    expect(err).toBeLessThan(e?.accuracy ?? 0)
  })

  it('without a scale, says to pass one', () => {
    const { xScale: _x, ...unscaled } = deployment
    expect(() => Site.fromDeploymentMap(unscaled)).toThrow(/options.xScale/)
    expect(Site.fromDeploymentMap(unscaled, { xScale: 10 }).anchor('aabbcc000002')?.x).toBe(10)
  })
})

describe('the positioner in the fleet state', () => {
  it('FleetState publishes its positions', () => {
    const { site, map, track } = loadFixture()
    const positioner = new Positioner({ site, radioMap: map })
    const state = new FleetState({ site, positioner }, { found() {}, gone() {}, room() {}, moved() {} })
    const t0 = track[0].time
    for (const r of track.slice(0, 200)) {
      state.ingest({ gateway: r.anchor, time: r.time - t0, readings: [{ id: r.beacon, rssi: r.rssi, lastSeen: r.time - t0, count: 1 }] }, r.time - t0)
    }
    const last = track[199]
    state.tick(last.time - t0)
    const pos = state.get(last.beacon, last.time - t0)?.position
    expect(pos).toBeDefined()
    expect(Math.hypot((pos?.x ?? 99) - last.x, (pos?.y ?? 99) - last.y)).toBeLessThan(2.5)
  })
})
