// The benchmark house of #39: two floors of four rooms each, 6–8 gateways (not every room has
// one), interior walls of 3–6 dB with doors, a 12–18 dB slab, log-distance path loss (the site
// simulator's own meanRssi / wallLoss / lossProbability), shadowing fixed per link (a field per
// gateway over each floor, σ 3–4 dB, so a tag standing still keeps its value and a spot 2 m away
// has another), fading per packet (σ 3–5 dB), 10 % packet loss, and every gateway's gain off by an
// unknown ±6 dB. Seeded: one seed, one house.
import { lossProbability, meanRssi, wallLoss } from '../dist/index.js'

/** mulberry32: small, seedable, good enough for a simulation. */
export function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const uniform = (lo, hi) => lo + (hi - lo) * next()
  const gauss = () => {
    const u = Math.max(1e-12, next())
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
  }
  const int = (lo, hi) => Math.floor(uniform(lo, hi + 1))
  const pick = (xs) => xs[Math.floor(next() * xs.length)]
  return { next, uniform, gauss, int, pick }
}

const W = 10
const H = 8
const NAMES = [['Kitchen', 'Living', 'Hall', 'Study'], ['Bedroom', 'Kids', 'Office', 'Bath']]
/** Where the stairs are, on both floors: in each floor's top-left room whatever its split. */
export const STAIRS = [1, 7]

/** A house for `seed`: the site file (what a user would write) and the hidden truths of its radio. */
export function makeHouse(seed) {
  const r = rng(seed * 7919 + 13)
  const floors = [{ id: 'ground', name: 'Ground floor', z: 0 }, { id: 'first', name: 'First floor', z: 3 }]
  const rooms = []
  const walls = []
  const doors = [] // { floor, a, b, at: [x, y] }
  floors.forEach((f, fi) => {
    const xs = r.uniform(4.5, 5.5)
    const ys = r.uniform(3.5, 4.5)
    const boxes = [[0, 0, xs, ys], [xs, 0, W, ys], [0, ys, xs, H], [xs, ys, W, H]]
    boxes.forEach(([x0, y0, x1, y1], i) =>
      rooms.push({ name: NAMES[fi][i], floor: f.id, polygon: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]] }),
    )
    // Four wall segments, each with a 1 m door somewhere along it.
    const segs = [
      [[xs, 0], [xs, ys], 0, 1],
      [[xs, ys], [xs, H], 2, 3],
      [[0, ys], [xs, ys], 0, 2],
      [[xs, ys], [W, ys], 1, 3],
    ]
    for (const [p, q, a, b] of segs) {
      const len = Math.hypot(q[0] - p[0], q[1] - p[1])
      const d0 = r.uniform(0.5, len - 1.5)
      const at = (t) => [p[0] + ((q[0] - p[0]) * t) / len, p[1] + ((q[1] - p[1]) * t) / len]
      const db = r.uniform(3, 6)
      walls.push({ from: p, to: at(d0), attenuationDb: db, floor: f.id })
      walls.push({ from: at(d0 + 1), to: q, attenuationDb: db, floor: f.id })
      doors.push({ floor: fi, a: fi * 4 + a, b: fi * 4 + b, at: at(d0 + 0.5) })
    }
  })
  // Gateways: 6–8, at least two per floor, at least one room without one.
  const count = r.int(6, 8)
  const order = [...rooms.keys()].sort(() => r.next() - 0.5)
  let withGw = order.slice(0, Math.min(count, 7))
  const perFloor = (list) => [0, 1].map((fi) => list.filter((i) => rooms[i].floor === floors[fi].id).length)
  while (perFloor(withGw).some((n) => n < 2)) withGw = [...rooms.keys()].sort(() => r.next() - 0.5).slice(0, Math.min(count, 7))
  const hosts = count === 8 ? [...withGw, r.pick(withGw)] : withGw
  const gateways = {}
  const hidden = { gains: {}, fields: {} }
  hosts.forEach((ri, k) => {
    const [[x0, y0], , [x1, y1]] = rooms[ri].polygon
    const id = `gw-${k + 1}`
    gateways[id] = { x: r.uniform(x0 + 0.3, x1 - 0.3), y: r.uniform(y0 + 0.3, y1 - 0.3), z: 2.0, floor: rooms[ri].floor, room: rooms[ri].name }
    hidden.gains[id] = r.uniform(-6, 6)
  })
  const radio = {
    exponent: r.uniform(2.0, 2.5),
    slabDb: r.uniform(12, 18),
    shadowSigma: r.uniform(3, 4),
    fadingSigma: r.uniform(3, 5),
    lossRate: 0.1,
    sensitivityDbm: -95,
    fadeMarginDb: 10,
  }
  // Shadowing: per gateway and floor, a field on a 2 m lattice, interpolated (fixed per link).
  const CELL = 2
  for (const id of Object.keys(gateways))
    hidden.fields[id] = [0, 1].map(() =>
      Array.from({ length: W / CELL + 2 }, () => Array.from({ length: H / CELL + 2 }, () => r.gauss() * radio.shadowSigma)),
    )
  const shadow = (id, fi, x, y) => {
    const f = hidden.fields[id][fi]
    const gx = Math.max(0, Math.min(W, x)) / CELL
    const gy = Math.max(0, Math.min(H, y)) / CELL
    const i = Math.floor(gx)
    const j = Math.floor(gy)
    const u = gx - i
    const v = gy - j
    return (1 - u) * (1 - v) * f[i][j] + u * (1 - v) * f[i + 1][j] + (1 - u) * v * f[i][j + 1] + u * v * f[i + 1][j + 1]
  }
  const site = { floors, gateways, rooms, walls }
  const floorIndex = (id) => floors.findIndex((f) => f.id === id)
  /** Mean dBm gateway `id` hears from a tag of level `p0` at (x, y) on floor `fi`, before fading. */
  const mean = (id, fi, x, y, p0) => {
    const g = gateways[id]
    const gf = floorIndex(g.floor)
    const d = Math.hypot(g.x - x, g.y - y, floors[gf].z + g.z - (floors[fi].z + 1.2))
    const ws = walls.filter((w) => w.floor === floors[fi].id)
    return (
      meanRssi(p0, d, radio.exponent) -
      wallLoss(ws, [x, y], [g.x, g.y], 4) -
      radio.slabDb * Math.abs(gf - fi) +
      shadow(id, fi, x, y) +
      hidden.gains[id]
    )
  }
  /** One packet: what gateway `id` hears (dBm) or undefined when lost. */
  const packet = (id, fi, x, y, p0) => {
    const rssi = mean(id, fi, x, y, p0) + r.gauss() * radio.fadingSigma
    return r.next() < lossProbability(rssi, radio) ? undefined : Math.max(-127, Math.min(0, Math.round(rssi)))
  }
  const roomAt = (fi, x, y) =>
    rooms.findIndex((room) => {
      if (room.floor !== floors[fi].id) return false
      const [[x0, y0], , [x1, y1]] = room.polygon
      return x >= x0 && x < x1 && y >= y0 && y < y1
    })
  return { site, rooms, doors, radio, hidden, packet, roomAt, rng: r }
}

/** A spot inside room `ri` at least `margin` m from its walls (and `awayFrom` points by `minD`). */
export function spotIn(house, ri, margin = 0.5, awayFrom = [], minD = 0) {
  const [[x0, y0], , [x1, y1]] = house.rooms[ri].polygon
  for (let k = 0; k < 200; k++) {
    const p = [house.rng.uniform(x0 + margin, x1 - margin), house.rng.uniform(y0 + margin, y1 - margin)]
    if (awayFrom.every((q) => Math.hypot(p[0] - q[0], p[1] - q[1]) >= minD)) return p
  }
  return [(x0 + x1) / 2, (y0 + y1) / 2]
}
