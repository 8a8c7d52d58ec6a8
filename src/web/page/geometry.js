// Plane geometry of the plan: rooms as polygons, and where labels go so they do not hide each
// other or the gateways.

/** The mean of some points. */
export function centroid(points) {
  const n = points.length
  return [points.reduce((s, p) => s + p[0], 0) / n, points.reduce((s, p) => s + p[1], 0) / n]
}

/** Even-odd ray casting, as the site model does (src/fleet/site.ts). */
export function inside(polygon, x, y) {
  let within = false
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i]
    const [xj, yj] = polygon[j]
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) within = !within
  }
  return within
}

/** The first room whose polygon holds the point, as the site model finds a gateway's room. */
export function roomAt(rooms, x, y) {
  return rooms.find((r) => r.polygon !== undefined && inside(r.polygon, x, y))?.name
}

/** The point, moved towards the polygon's centroid until it lies inside. */
export function keepInside(polygon, x, y) {
  if (inside(polygon, x, y)) return [x, y]
  const [cx, cy] = centroid(polygon)
  for (let t = 0.1; t < 1; t += 0.1) {
    const p = [x + (cx - x) * t, y + (cy - y) * t]
    if (inside(polygon, p[0], p[1])) return p
  }
  return [cx, cy]
}

function overlap(a, b) {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y)
  return w > 0 && h > 0 ? w * h : 0
}

// Right of the dot first (how a reader scans), then left, below, above, then the corners.
// 2: starting at the dot, for a dot near the plan's left edge.
const SIDES = [
  [1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, 1], [1, -1], [-1, -1], [2, 1], [2, -1],
]

/** Boxes bucketed by a grid, so a lookup costs what is near rather than everything placed. */
class Grid {
  constructor(size) {
    this.size = size
    this.cells = new Map()
  }

  *keys(b) {
    const s = this.size
    for (let i = Math.floor(b.x / s); i <= Math.floor((b.x + b.w) / s); i++) for (let j = Math.floor(b.y / s); j <= Math.floor((b.y + b.h) / s); j++) yield `${i},${j}`
  }

  add(b) {
    for (const k of this.keys(b)) (this.cells.get(k) ?? this.cells.set(k, []).get(k)).push(b)
  }

  /** Total area of `b` covered by boxes in the grid (a box spanning cells counts once). */
  cover(b) {
    const seen = new Set()
    let sum = 0
    for (const k of this.keys(b)) {
      for (const o of this.cells.get(k) ?? []) {
        if (seen.has(o)) continue
        seen.add(o)
        sum += overlap(b, o)
      }
    }
    return sum
  }
}

/**
 * Places labels one by one beside their points, each where it overlaps least what is already
 * there (`obstacles`: gateway squares and names, dots, labels placed before). Greedy, so not
 * optimal, but 20 tags on a house plan come out readable. Each label is `{ x, y, w, h }` (the
 * point, the text's width and height); returns boxes `{ x, y, w, h }` of the text, top-left.
 * What would stick out of `bounds` (the plan's extent) counts as overlap.
 */
export function placeLabels(labels, obstacles, gap, bounds) {
  const grid = new Grid(Math.max(gap * 8, ...labels.slice(0, 1).map((l) => l.w)))
  for (const o of obstacles) grid.add(o)
  return labels.map((l) => {
    let best
    let bestCost = Infinity
    for (const [sx, sy] of SIDES) {
      const x = sx === 2 ? l.x - gap : sx > 0 ? l.x + gap : sx < 0 ? l.x - gap - l.w : l.x - l.w / 2
      const y = sy > 0 ? l.y + gap : sy < 0 ? l.y - gap - l.h : l.y - l.h / 2
      const box = { x, y, w: l.w, h: l.h }
      // Cut off by the plan's edge is worse than overlapping: an overlapped label can still be read.
      const cost = grid.cover(box) + 4 * (box.w * box.h - overlap(box, bounds))
      if (cost < bestCost) {
        best = box
        bestCost = cost
      }
      if (cost === 0) break
    }
    grid.add(best)
    return best
  })
}
