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
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
  [1, 1],
  [-1, 1],
  [1, -1],
  [-1, -1],
  [2, 1],
  [2, -1],
]
// Beyond the sides: rings further out, each tried in this many directions, a label's height apart.
const RINGS = 10
const DIRECTIONS = 16

/** Boxes bucketed by a grid, so a lookup costs what is near rather than everything placed. */
class Grid {
  constructor(size) {
    this.size = size
    this.cells = new Map()
  }

  *keys(b) {
    const s = this.size
    for (let i = Math.floor(b.x / s); i <= Math.floor((b.x + b.w) / s); i++)
      for (let j = Math.floor(b.y / s); j <= Math.floor((b.y + b.h) / s); j++) yield `${i},${j}`
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

function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(v, hi))
}

/** Whether `b` lies wholly inside `bounds`. */
export function within(b, bounds) {
  return b.x >= bounds.x && b.y >= bounds.y && b.x + b.w <= bounds.x + bounds.w && b.y + b.h <= bounds.y + bounds.h
}

/**
 * Candidate boxes for a label, nearest first: the sides of its point, then rings further out,
 * slid inside `bounds` (so a dot in a corner still has places on its rings).
 */
function* candidates(l, gap, bounds) {
  for (const [sx, sy] of SIDES) {
    const x = sx === 2 ? l.x - gap : sx > 0 ? l.x + gap : sx < 0 ? l.x - gap - l.w : l.x - l.w / 2
    const y = sy > 0 ? l.y + gap : sy < 0 ? l.y - gap - l.h : l.y - l.h / 2
    yield { x, y, w: l.w, h: l.h, ring: 0 }
  }
  for (let ring = 1; ring <= RINGS; ring++) {
    const d = gap + ring * l.h
    for (let k = 0; k < DIRECTIONS; k++) {
      const a = (2 * Math.PI * k) / DIRECTIONS
      // Centred on an ellipse around the point, so the box's near edge is about `d` from it.
      const x = l.x + Math.cos(a) * (l.w / 2 + d) - l.w / 2
      const y = l.y + Math.sin(a) * (l.h / 2 + d) - l.h / 2
      const cx = clamp(x, bounds.x, bounds.x + bounds.w - l.w)
      const cy = clamp(y, bounds.y, bounds.y + bounds.h - l.h)
      yield { x: cx, y: cy, w: l.w, h: l.h, ring }
    }
  }
}

/**
 * Places labels one by one beside their points. A label never overlaps a label placed before it
 * or a `hard` obstacle (gateway squares and names) and never leaves `bounds` (the plan's
 * extent). It keeps clear of the `soft` ones too (dots, room names) where it can: the nearest
 * place clear of everything wins, else the nearest that covers least of them. Nearest first:
 * the sides of the dot in reading order, then rings a label's height further out (the caller
 * draws a leader line to those). A label with no place within the rings is left out
 * (undefined): its dot keeps its tooltip. Greedy, so not optimal. Each label is `{ x, y, w, h }`
 * (the point, the text's size); returns boxes `{ x, y, w, h, ring }` of the text, top-left.
 */
export function placeLabels(labels, obstacles, gap, bounds) {
  const size = Math.max(gap * 8, ...labels.slice(0, 1).map((l) => l.w))
  const hard = new Grid(size)
  const soft = new Grid(size)
  for (const o of obstacles.hard) hard.add(o)
  for (const o of obstacles.soft) soft.add(o)
  return labels.map((l) => {
    const best = nearest(l, gap, bounds, hard, soft, true) ?? nearest(l, gap, bounds, hard, soft, false)
    if (best !== undefined) hard.add(best)
    return best
  })
}

/** The nearest allowed place: clear of `soft` too when `strict`, else covering least of it. */
function nearest(l, gap, bounds, hard, soft, strict) {
  let best
  let bestCost = Infinity
  for (const box of candidates(l, gap, bounds)) {
    // The first ring with any allowed place decides: nearer beats less covered.
    if (best !== undefined && box.ring > best.ring && box.ring > 0) break
    if (!within(box, bounds) || hard.cover(box) > 0) continue
    const cost = soft.cover(box)
    if (strict && cost > 0) continue
    if (cost < bestCost) {
      best = box
      bestCost = cost
    }
    if (cost === 0) break
  }
  return best
}
