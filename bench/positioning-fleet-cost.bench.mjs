// What the filter costs on the fleet bench's site (bench/fleet.bench.mjs): 100 gateways on a
// 5 m grid (45 m × 45 m, default physics, no survey: 47 × 47 cells of 1 m), 12,500 tags, each
// heard by the 4 gateways around it once a second (a fleet sees one smoothed reading per
// gateway and beacon per batch), every tag estimated every second as the fleet's tick does.
// The readings are drawn from the default path loss with 6 dB of noise around a tag that walks
// at 1 m/s; the point is the cost, not the accuracy (reported only as a sanity check).
//   npm run bench:positioning-fleet-cost [-- tags seconds [--arbitrary]]
import { Positioner, Site } from '../dist/index.js'
import { cpuSeconds } from './positioning-data.mjs'

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const TAGS = Number(args[0] ?? 12_500)
const SECONDS = Number(args[1] ?? 20)
// --arbitrary: the RSSI of bench/fleet.bench.mjs instead (a fixed value per beacon and gateway,
// −55 to −84 dBm, unrelated to where anything is): what inconsistent readings cost.
const ARBITRARY = process.argv.includes('--arbitrary')
const GRID = 10
const SPACING = 5

const gateways = {}
for (let g = 0; g < GRID * GRID; g++) gateways[`gw${g}`] = { x: (g % GRID) * SPACING, y: Math.floor(g / GRID) * SPACING }
const site = Site.fromJSON({ gateways })

// A small deterministic generator (mulberry32) and a normal draw from it.
let seed = 7
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const normal = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand())

// Tag k lives in grid cell k % 81 (between 4 gateways) and walks a circle of 1.5 m radius in it.
const tags = Array.from({ length: TAGS }, (_, k) => {
  const cell = k % ((GRID - 1) * (GRID - 1))
  const cx = (cell % (GRID - 1)) * SPACING + SPACING / 2
  const cy = Math.floor(cell / (GRID - 1)) * SPACING + SPACING / 2
  const gx = cell % (GRID - 1)
  const gy = Math.floor(cell / (GRID - 1))
  const heardBy = [gx + gy * GRID, gx + 1 + gy * GRID, gx + (gy + 1) * GRID, gx + 1 + (gy + 1) * GRID]
  return { id: `tag-${k}`, k, cx, cy, phase: rand() * 2 * Math.PI, heardBy }
})
const at = (t, s) => ({ x: t.cx + 1.5 * Math.cos(t.phase + s / 1.5), y: t.cy + 1.5 * Math.sin(t.phase + s / 1.5) })

const p = new Positioner({ site, maxBeacons: TAGS })
const errors = []
let estimates = 0
const c0 = process.cpuUsage()
for (let s = 1; s <= SECONDS; s++) {
  for (const t of tags) {
    const pos = at(t, s - 0.5)
    for (const g of t.heardBy) {
      const gw = gateways[`gw${g}`]
      const d = Math.max(0.5, Math.hypot(gw.x - pos.x, gw.y - pos.y, 1.2))
      const rssi = ARBITRARY ? -55 - ((t.k * 7 + g * 13) % 30) : -59 - 22 * Math.log10(d) + 6 * normal()
      p.observe({ time: (s - 1) * 1000 + 100 + (g % 800), anchor: `gw${g}`, beacon: t.id, rssi })
    }
  }
  for (const t of tags) {
    const e = p.estimate(t.id, s * 1000)
    if (e === undefined) continue
    estimates++
    if (s > 5) {
      const pos = at(t, s)
      errors.push(Math.hypot(e.x - pos.x, e.y - pos.y))
    }
  }
}
const cpu = cpuSeconds(process.cpuUsage(c0))
errors.sort((a, b) => a - b)
const mem = process.memoryUsage()
console.log(`| tags | anchors | cells | estimates | CPU s | estimates / CPU s | CPU share of real time | median error m | heap + buffers MB |`)
console.log('|---|---|---|---|---|---|---|---|---|')
console.log(`| ${TAGS} | ${GRID * GRID} | ${p.radioMap.grid.size} | ${estimates} | ${cpu.toFixed(1)} | ${Math.round(estimates / cpu)} | ${Math.round((100 * cpu) / SECONDS)} % | ${errors[Math.floor(errors.length / 2)]?.toFixed(2)} | ${((mem.heapUsed + mem.arrayBuffers) / 1e6).toFixed(0)} |`)
