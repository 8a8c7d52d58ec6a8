/**
 * The classic single-shot methods, kept as options and as the yardstick for the filter: each
 * turns one window of per-anchor mean RSSI into a position with no memory of earlier windows.
 * Their `accuracy` is a rough geometric guess; the benchmark reports how honest it is.
 */
import { distanceFor } from './path-loss.js'
import type { RadioMap } from './radio-map.js'

/** Per-anchor mean RSSI over a window (NaN: not heard) and packet counts, indexed like `map.anchors`. */
export interface WindowMeans {
  mean: Float64Array
  count: Uint16Array
}

/** A position with its 1-sigma-like radius. */
export interface Fix {
  x: number
  y: number
  accuracy: number
}

function spacing(map: RadioMap): number {
  // RMS distance to the centre of a disc the size of one anchor's share of the floor.
  const g = map.grid
  return Math.sqrt((g.nx * g.ny * g.cell * g.cell) / (2 * Math.PI * Math.max(1, map.anchors.length)))
}

/** The strongest anchor's position. */
export function nearestAnchor(map: RadioMap, w: WindowMeans): Fix | undefined {
  let best = -1
  for (let a = 0; a < w.mean.length; a++)
    if (!Number.isNaN(w.mean[a]) && (best < 0 || w.mean[a] > w.mean[best])) best = a
  if (best < 0) return undefined
  return { x: map.anchors[best].x, y: map.anchors[best].y, accuracy: 1.5 * spacing(map) }
}

/** Anchors' positions weighted by 1/d², d from each anchor's path loss. */
export function weightedCentroid(map: RadioMap, w: WindowMeans): Fix | undefined {
  let sw = 0
  let sx = 0
  let sy = 0
  for (let a = 0; a < w.mean.length; a++) {
    if (Number.isNaN(w.mean[a])) continue
    const d = distanceFor(map.anchors[a].pathLoss, w.mean[a])
    const wt = 1 / (d * d)
    sw += wt
    sx += wt * map.anchors[a].x
    sy += wt * map.anchors[a].y
  }
  if (sw === 0) return undefined
  const x = sx / sw
  const y = sy / sw
  let v = 0
  for (let a = 0; a < w.mean.length; a++) {
    if (Number.isNaN(w.mean[a])) continue
    const d = distanceFor(map.anchors[a].pathLoss, w.mean[a])
    v += ((map.anchors[a].x - x) ** 2 + (map.anchors[a].y - y) ** 2) / (d * d)
  }
  return { x, y, accuracy: Math.max(0.5, 0.5 * Math.sqrt(v / sw)) }
}

/**
 * Weighted least squares on ranges from the fitted path loss (Gauss-Newton from the centroid).
 * A range's error grows with the range (RSSI error is multiplicative in distance), so each is
 * weighted by 1/σ_d², σ_d = d · ln10 · σ / (10 n).
 */
export function multilaterate(map: RadioMap, w: WindowMeans): Fix | undefined {
  const start = weightedCentroid(map, w)
  if (start === undefined) return undefined
  const used: { x: number; y: number; d: number; wt: number }[] = []
  for (let a = 0; a < w.mean.length; a++) {
    if (Number.isNaN(w.mean[a])) continue
    const m = map.anchors[a]
    const horizontal = Math.sqrt(Math.max(0.01, distanceFor(m.pathLoss, w.mean[a]) ** 2 - (m.z - map.tagHeight) ** 2))
    const sd = (horizontal * Math.LN10 * Math.max(1, m.pathLoss.sigma)) / (10 * m.pathLoss.n) + 0.3
    used.push({ x: m.x, y: m.y, d: horizontal, wt: 1 / (sd * sd) })
  }
  if (used.length < 3) return start
  let { x, y } = start
  let cxx = 0
  let cyy = 0
  const g = map.grid
  const [minX, maxX, minY, maxY] = [g.x(0), g.x(g.nx - 1), g.y(0), g.y(g.ny - 1)]
  for (let it = 0; it < 20; it++) {
    let hxx = 0
    let hyy = 0
    let hxy = 0
    let bx = 0
    let by = 0
    for (const u of used) {
      const r = Math.max(1e-3, Math.hypot(x - u.x, y - u.y))
      const jx = (x - u.x) / r
      const jy = (y - u.y) / r
      const e = r - u.d
      hxx += u.wt * jx * jx
      hyy += u.wt * jy * jy
      hxy += u.wt * jx * jy
      bx += u.wt * jx * e
      by += u.wt * jy * e
    }
    const det = hxx * hyy - hxy * hxy
    if (!(Math.abs(det) > 1e-12)) break
    cxx = hyy / det
    cyy = hxx / det
    const cxy = -hxy / det
    const dx = cxx * bx + cxy * by
    const dy = cxy * bx + cyy * by
    x = Math.min(maxX, Math.max(minX, x - dx))
    y = Math.min(maxY, Math.max(minY, y - dy))
    if (Math.hypot(dx, dy) < 1e-3) break
  }
  return { x, y, accuracy: Math.max(0.5, Math.sqrt(Math.max(0, cxx + cyy))) }
}

/**
 * k-nearest-neighbour fingerprinting: the k reference points whose mean RSSI vectors lie
 * closest (RMS dB over the anchors both heard), averaged with weights 1/distance. Without a
 * survey, the grid cells of the radio map stand in for reference points.
 */
export function nearestFingerprints(map: RadioMap, w: WindowMeans, k = 3): Fix | undefined {
  const refs = map.references
  const size = map.grid.size
  const candidates = refs.length > 0 ? refs.length : size
  const best: { i: number; d: number }[] = []
  for (let i = 0; i < candidates; i++) {
    if (refs.length === 0 && map.grid.walkable[i] === 0) continue
    let s = 0
    let n = 0
    for (let a = 0; a < w.mean.length; a++) {
      if (Number.isNaN(w.mean[a])) continue
      const ref = refs.length > 0 ? refs[i].mean[a] : map.mean[a * size + i]
      if (Number.isNaN(ref)) continue
      s += (w.mean[a] - ref) ** 2
      n++
    }
    if (n === 0) continue
    const d = Math.sqrt(s / n)
    if (best.length < k || d < best[best.length - 1].d) {
      best.push({ i, d })
      best.sort((p, q) => p.d - q.d)
      if (best.length > k) best.pop()
    }
  }
  if (best.length === 0) return undefined
  const at = (i: number): [number, number] =>
    refs.length > 0 ? [refs[i].x, refs[i].y] : [map.grid.x(i % map.grid.nx), map.grid.y(Math.floor(i / map.grid.nx))]
  let sw = 0
  let sx = 0
  let sy = 0
  for (const b of best) {
    const wt = 1 / (b.d + 0.1)
    const [px, py] = at(b.i)
    sw += wt
    sx += wt * px
    sy += wt * py
  }
  const x = sx / sw
  const y = sy / sw
  let v = 0
  for (const b of best) {
    const [px, py] = at(b.i)
    v += ((px - x) ** 2 + (py - y) ** 2) / (b.d + 0.1)
  }
  return { x, y, accuracy: Math.max(0.5, Math.sqrt(v / sw + 1)) }
}
