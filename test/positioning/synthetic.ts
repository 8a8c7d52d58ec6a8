// A synthetic site with known physics: four receivers in a 10 m × 8 m room, RSSI exactly
// p0 − 10·n·log10(d), so every method's answer can be checked against geometry.
import { Site } from '../../src/positioning/site.js'
import type { SurveySample } from '../../src/positioning/types.js'

export const P0 = -60
export const N = 2.5
export const TAG = 1

export const site = Site.fromJSON({
  area: { minX: 0, minY: 0, maxX: 10, maxY: 8 },
  receivers: { sw: { x: 0, y: 0, z: TAG }, se: { x: 10, y: 0, z: TAG }, nw: { x: 0, y: 8, z: TAG }, ne: { x: 10, y: 8, z: TAG } },
  rooms: [
    { name: 'west', polygon: [[0, 0], [5, 0], [5, 8], [0, 8]] },
    { name: 'east', polygon: [[5, 0], [10, 0], [10, 8], [5, 8]] },
  ],
})

export function rssi(anchor: string, x: number, y: number): number {
  const a = site.anchor(anchor)
  const d = Math.max(0.5, Math.hypot((a?.x ?? 0) - x, (a?.y ?? 0) - y))
  return P0 - 10 * N * Math.log10(d)
}

/** A seeded normal generator, so the tests see the same noise every run. */
export function gaussian(seed: number): () => number {
  let s = seed >>> 0
  const uniform = (): number => {
    s = (s * 1664525 + 1013904223) >>> 0
    return (s + 0.5) / 2 ** 32
  }
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform())
}

/** A survey on a 1 m lattice, `perPoint` packets per anchor with `noise` dB of spread. */
export function survey(perPoint: number, noise: number, seed = 1): SurveySample[] {
  const g = gaussian(seed)
  const out: SurveySample[] = []
  for (let x = 0.5; x < 10; x += 1) {
    for (let y = 0.5; y < 8; y += 1) {
      for (const a of ['sw', 'se', 'nw', 'ne']) for (let i = 0; i < perPoint; i++) out.push({ x, y, anchor: a, rssi: rssi(a, x, y) + noise * g() })
    }
  }
  return out
}
