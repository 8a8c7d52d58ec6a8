// The grid filter's arithmetic shortcuts against the plain formula: the posterior held on a
// window (cells far below the peak let go), the likelihood as one logarithm (or a square root)
// of a product per cell, and the positioner reusing its look-ahead instead of folding the same
// packets twice. Each must give what the textbook filter gives, to well under a centimetre.
import { describe, expect, it } from 'vitest'
import { GridFilter } from '../../src/positioning/grid-filter.js'
import { FilterScratch } from '../../src/positioning/filter-scratch.js'
import { DEFAULT_GRID_FILTER, type GridFilterParams } from '../../src/positioning/grid-filter-params.js'
import { WalkableGrid } from '../../src/positioning/grid.js'
import { Positioner } from '../../src/positioning/positioner.js'
import { RadioMap } from '../../src/positioning/radio-map.js'
import { Site } from '../../src/positioning/site.js'
import { gaussian } from './synthetic.js'

/** A 30 m × 20 m hall with `n` receivers round its edge, default physics, 0.5 m cells. */
function hall(n: number): { site: Site; map: RadioMap } {
  const gateways: Record<string, { x: number; y: number }> = {}
  for (let i = 0; i < n; i++) {
    const t = (i / n) * 100
    const [x, y] = t < 30 ? [t, 0] : t < 50 ? [30, t - 30] : t < 80 ? [80 - t, 20] : [0, 100 - t]
    gateways[`g${i}`] = { x, y }
  }
  const site = Site.fromJSON({ gateways, area: { minX: 0, minY: 0, maxX: 30, maxY: 20 } })
  return { site, map: RadioMap.defaultPhysics(site, { grid: WalkableGrid.fromArea({ minX: 0, minY: 0, maxX: 30, maxY: 20 }, 0.5) }) }
}

/** The textbook filter on the whole grid: Gaussian walk, Σ log1p Student-t terms, exp. */
function reference(map: RadioMap, params: GridFilterParams, steps: { mean: Float64Array; count: Uint16Array; dt: number }[]): { x: number; y: number } {
  const g = map.grid
  const prior = Float64Array.from(g.walkable, (w) => (w === 1 ? 1 : params.blockedWeight))
  let p = Float64Array.from(prior)
  const norm = (a: Float64Array): void => {
    const s = a.reduce((x, y) => x + y, 0)
    for (let i = 0; i < a.length; i++) a[i] /= s
  }
  norm(p)
  for (const step of steps) {
    if (step.dt > 0) {
      const sigma = (params.speed * step.dt) / g.cell
      const r = Math.ceil(3 * sigma)
      const next = new Float64Array(g.size)
      for (let iy = 0; iy < g.ny; iy++) {
        for (let ix = 0; ix < g.nx; ix++) {
          let s = 0
          for (let jy = Math.max(0, iy - r); jy <= Math.min(g.ny - 1, iy + r); jy++) {
            for (let jx = Math.max(0, ix - r); jx <= Math.min(g.nx - 1, ix + r); jx++) {
              s += p[jx + jy * g.nx] * Math.exp(-((jx - ix) ** 2 + (jy - iy) ** 2) / (2 * sigma * sigma))
            }
          }
          next[ix + iy * g.nx] = s * prior[ix + iy * g.nx]
        }
      }
      p = next
      norm(p)
    }
    const log = new Float64Array(g.size)
    for (let a = 0; a < map.anchors.length; a++) {
      if (step.count[a] === 0) continue
      const m = map.anchors[a]
      const s2 = m.modelSd ** 2 + params.dynamicSd ** 2 + m.packetSd ** 2 / step.count[a]
      for (let c = 0; c < g.size; c++) {
        const e = step.mean[a] - map.mean[a * g.size + c]
        const k = 1 / (params.nu * s2) / (e < 0 ? map.skew ** 2 : 1)
        log[c] -= ((params.nu + 1) / 2) * Math.log1p(e * e * k)
      }
    }
    const max = log.reduce((x, y) => Math.max(x, y), -Infinity)
    for (let c = 0; c < g.size; c++) p[c] *= Math.exp(log[c] - max)
    norm(p)
  }
  let x = 0
  let y = 0
  for (let iy = 0; iy < g.ny; iy++) for (let ix = 0; ix < g.nx; ix++) {
    x += p[ix + iy * g.nx] * g.x(ix)
    y += p[ix + iy * g.nx] * g.y(iy)
  }
  return { x, y }
}

/** Readings of a tag walking across the hall, `heard` receivers a second, with 4 dB of noise. */
function steps(map: RadioMap, heard: number, seconds: number): { mean: Float64Array; count: Uint16Array; dt: number }[] {
  const noise = gaussian(11)
  const out = []
  for (let s = 0; s < seconds; s++) {
    const x = 5 + s
    const y = 6 + 0.5 * s
    const mean = new Float64Array(map.anchors.length).fill(Number.NaN)
    const count = new Uint16Array(map.anchors.length)
    for (let i = 0; i < heard; i++) {
      const a = (s * 3 + i) % map.anchors.length
      mean[a] = map.pathLossAt(a, x, y) + 4 * noise()
      count[a] = 2
    }
    out.push({ mean, count, dt: s === 0 ? 0 : 1 })
  }
  return out
}

function run(map: RadioMap, params: GridFilterParams, input: ReturnType<typeof steps>): GridFilter {
  const f = new GridFilter(new FilterScratch(map, params), params)
  let time = 1000
  for (const step of input) {
    time += step.dt * 1000
    f.update(step, time)
  }
  return f
}

describe('GridFilter against the textbook filter', () => {
  // No learned offsets: the reference has none.
  const params = { ...DEFAULT_GRID_FILTER, biasTau: 0 }
  const cases: [string, number, Partial<GridFilterParams>][] = [
    ['4 receivers heard, ν = 4 (the square-root path)', 4, {}],
    ['20 receivers heard (two groups of logarithms)', 20, {}],
    ['6 receivers heard, ν = 3.3 (the logarithm path)', 6, { nu: 3.3 }],
  ]
  for (const [name, heard, extra] of cases) {
    it(name, () => {
      const { map } = hall(24)
      const p = { ...params, ...extra }
      const input = steps(map, heard, 8)
      const f = run(map, p, input)
      const want = reference(map, p, input)
      const got = f.estimate(f.time)
      expect(Math.hypot(got.x - want.x, got.y - want.y)).toBeLessThan(0.005)
    })
  }

  it('keeps a local window on a large site, and storage to match', () => {
    // 100 gateways 5 m apart (a 45 m × 45 m floor, 0.5 m cells): the tag is heard by the four around it.
    const gateways: Record<string, { x: number; y: number }> = {}
    for (let g = 0; g < 100; g++) gateways[`g${g}`] = { x: (g % 10) * 5, y: Math.floor(g / 10) * 5 }
    const site = Site.fromJSON({ gateways })
    const map = RadioMap.defaultPhysics(site, { grid: WalkableGrid.fromArea({ minX: -1, minY: -1, maxX: 46, maxY: 46 }, 0.5) })
    const noise = gaussian(3)
    const input = []
    for (let s = 0; s < 12; s++) {
      const mean = new Float64Array(100).fill(Number.NaN)
      const count = new Uint16Array(100)
      for (const g of [33, 34, 43, 44]) {
        mean[g] = map.pathLossAt(g, 17 + 0.2 * s, 17.5) + 4 * noise()
        count[g] = 1
      }
      input.push({ mean, count, dt: s === 0 ? 0 : 1 })
    }
    const f = run(map, params, input)
    expect(map.grid.size).toBe(94 * 94)
    expect(f.cells).toBeLessThan(map.grid.size / 4)
    // The posterior's own storage follows its window (4 bytes a cell, at most twice over), not the grid.
    expect(f.bytes).toBeLessThanOrEqual(4 * (2 * f.cells + 64) + 4 * 100)
    const e = f.estimate(f.time)
    expect(Math.hypot(e.x - 19.2, e.y - 17.5)).toBeLessThan(4)
  })
})

/**
 * A tag walking `where(t)` in an 8-receiver hall (default physics), one receiver every 250 ms
 * in turn with 3 dB of noise, 7 ms past the quarter seconds (never on a step's edge).
 */
function walker(ms: number, seed: number, where: (t: number) => [number, number]) {
  const { site } = hall(8)
  const map = RadioMap.defaultPhysics(site)
  const noise = gaussian(seed)
  const packets = []
  for (let t = 0; t < ms; t += 250) {
    const anchor = `g${(t / 250) % 8}`
    const [x, y] = where(t)
    packets.push({ time: t + 7, anchor, beacon: 'tag', rssi: map.pathLossAt(map.index(anchor), x, y) + 3 * noise() })
  }
  return { site, map, packets }
}

describe('Positioner look-ahead reuse', () => {
  it('asking every second (reusing each look-ahead) or once at the end gives the same estimate', () => {
    const { site, map, packets } = walker(30_000, 5, (t) => [4 + t / 2000, 5 + t / 4000])
    const often = new Positioner({ site, radioMap: map })
    const once = new Positioner({ site, radioMap: map })
    let i = 0
    // A live tracker's ticks: a second apart give or take a few ms of jitter.
    for (let s = 1; s <= 29; s++) {
      const at = s * 1000 + ((s * 7) % 5)
      for (; i < packets.length && packets[i].time <= at; i++) often.observe(packets[i])
      often.estimate('tag', at)
    }
    for (const p of packets) if (p.time <= 29_000 + ((29 * 7) % 5)) once.observe(p)
    const end = 29_000 + ((29 * 7) % 5)
    const a = often.estimate('tag', end)
    const b = once.estimate('tag', end)
    expect(a).toBeDefined()
    expect(b).toBeDefined()
    expect(Math.hypot((a?.x ?? 0) - (b?.x ?? 0), (a?.y ?? 0) - (b?.y ?? 0))).toBeLessThan(1e-6)
  })
})

describe('Positioner with a full ring', () => {
  it('a beacon not asked about folds its old packets a step at a time, and then answers as one asked every second', () => {
    const { site, map, packets } = walker(40_000, 9, (t) => [6 + t / 4000, 5])
    // A 16-packet ring holds 4 s: the silent positioner must fold as the ring fills.
    const silent = new Positioner({ site, radioMap: map, bufferSize: 16 })
    const asked = new Positioner({ site, radioMap: map })
    let i = 0
    for (let s = 1; s <= 39; s++) {
      for (; i < packets.length && packets[i].time <= s * 1000; i++) {
        silent.observe(packets[i])
        asked.observe(packets[i])
      }
      asked.estimate('tag', s * 1000)
    }
    const a = silent.estimate('tag', 39_000)
    const b = asked.estimate('tag', 39_000)
    expect(a).toBeDefined()
    expect(Math.hypot((a?.x ?? 0) - (b?.x ?? 0), (a?.y ?? 0) - (b?.y ?? 0))).toBeLessThan(1e-6)
    expect(silent.stats.late).toBe(0)
  })
})
