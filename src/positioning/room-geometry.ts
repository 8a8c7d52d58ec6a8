/**
 * What each gateway should hear from each room, from the plan alone: points on a grid inside every
 * room's polygon, and per point and gateway the mean RSSI of log-distance path loss, minus the
 * walls the straight line crosses on the point's floor and a slab per floor between them. The room
 * method (room-scores.ts) compares what the gateways hear with these; computed once per site, as
 * the plan does not change while a fleet runs. Pure: no I/O, no clock.
 */
import { InvalidOptionError } from '../errors.js'
import type { Site } from './site.js'
import { wallLoss } from './walls.js'
import { insidePolygon } from './polygon.js'
import type { Polygon } from './polygon.js'

/** How the plan is turned into expected RSSI. */
export interface GeometryOptions {
  /** Grid spacing inside rooms, metres (default 1). */
  spacingM?: number
  /** dBm at 1 m of a typical tag (default −59); a tag's own level is fitted per beacon. */
  p0?: number
  /** Path-loss exponent (default 2.2). */
  exponent?: number
  /** dB of a wall without its own `attenuationDb` (default 4). */
  wallDb?: number
  /** dB per floor between a point and a gateway (default 15: a concrete slab costs 10–20 dB). */
  slabDb?: number
  /** Storey height for floors without `z`, metres (default 3). */
  storeyM?: number
  /** Height of a gateway above its floor when the site gives none, metres (default 2.2). */
  gatewayHeightM?: number
  /** Height of a tag above its floor, metres (default 1.2). */
  tagHeightM?: number
  /** Points at most, all rooms together (default 20000): a huge plan is sampled coarser. */
  maxPoints?: number
}

/** One room as the geometry holds it: its points are `start` to `end` (exclusive). */
export interface GeometryRoom {
  name: string
  /** Index into {@link RoomGeometry.floors}. */
  floor: number
  start: number
  end: number
  /** Indexes (into `gateways`) of the gateways standing in this room. */
  own: number[]
}

function gridIn(polygon: Polygon, spacing: number): [number, number][] {
  const xs = polygon.map((p) => p[0])
  const ys = polygon.map((p) => p[1])
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)]
  const out: [number, number][] = []
  for (let x = x0 + spacing / 2; x < x1; x += spacing)
    for (let y = y0 + spacing / 2; y < y1; y += spacing) if (insidePolygon(polygon, x, y)) out.push([x, y])
  // A room narrower than the spacing still gets a point: its polygon's mean corner.
  if (out.length === 0) out.push([xs.reduce((a, b) => a + b) / xs.length, ys.reduce((a, b) => a + b) / ys.length])
  return out
}

/** Expected RSSI per room point and gateway (see the file comment). */
export class RoomGeometry {
  /** Floor ids, the site's order; `['']` on a one-plane site. */
  readonly floors: readonly string[]
  /** Placed gateways (with x and y), by index. */
  readonly gateways: readonly string[]
  /** Floor index of each gateway. */
  readonly gatewayFloor: Int32Array
  readonly rooms: readonly GeometryRoom[]
  /** Point coordinates, x then y. */
  readonly points: Float64Array
  /** Expected dBm, point-major: `expected[p * gateways.length + g]`. */
  readonly expected: Float32Array
  private readonly gatewayIndex: ReadonlyMap<string, number>

  constructor(site: Site, options: GeometryOptions = {}) {
    const spacing0 = options.spacingM ?? 1
    const p0 = options.p0 ?? -59
    const n = options.exponent ?? 2.2
    const wallDb = options.wallDb ?? 4
    const slabDb = options.slabDb ?? 15
    const storey = options.storeyM ?? 3
    const maxPoints = options.maxPoints ?? 20_000
    if (!(spacing0 > 0) || !(maxPoints >= 1))
      throw new InvalidOptionError('invalid_option', 'rooms: spacingM and maxPoints must be positive', {
        option: 'spacingM',
      })
    this.floors = site.floors.length === 0 ? [''] : site.floors.map((f) => f.id)
    const floorOf = (id: string | undefined): number => Math.max(0, id === undefined ? 0 : this.floors.indexOf(id))
    const floorZ = (i: number): number => site.floors[i]?.z ?? i * storey
    const placed = site.anchorList().filter((a) => a.x !== undefined && a.y !== undefined)
    this.gateways = placed.map((a) => a.id)
    this.gatewayIndex = new Map(this.gateways.map((id, i) => [id, i]))
    this.gatewayFloor = Int32Array.from(placed, (a) => floorOf(a.floor))
    // A plan too large for the bound is sampled coarser, not cut off.
    let spacing = spacing0
    const grids = (): [number, number][][] =>
      site.rooms.map((r) => {
        if (r.polygon !== undefined) return gridIn(r.polygon, spacing)
        // A room known only by its gateways: their places stand for it.
        return placed.filter((a) => a.room === r.name).map((a): [number, number] => [a.x as number, a.y as number])
      })
    let cells = grids()
    while (cells.reduce((s, c) => s + c.length, 0) > maxPoints) {
      spacing *= 1.5
      cells = grids()
    }
    const rooms: GeometryRoom[] = []
    const coords: number[] = []
    site.rooms.forEach((r, i) => {
      const start = coords.length / 2
      for (const [x, y] of cells[i]) coords.push(x, y)
      const own = placed.flatMap((a, g) => (a.room === r.name ? [g] : []))
      rooms.push({ name: r.name, floor: floorOf(r.floor), start, end: coords.length / 2, own })
    })
    this.rooms = rooms
    this.points = Float64Array.from(coords)
    const G = placed.length
    this.expected = new Float32Array((coords.length / 2) * G)
    const tagH = options.tagHeightM ?? 1.2
    const gwH = options.gatewayHeightM ?? 2.2
    // Points × gateways values (up to 20,000 × hundreds): per room, what depends on the gateway alone
    // is worked out once, and the loop below does arithmetic only (Math.hypot and a closure per value
    // made a 500-gateway site take over a second to read; bench/site-edit.bench.mjs).
    const gx = Float64Array.from(placed, (a) => a.x as number)
    const gy = Float64Array.from(placed, (a) => a.y as number)
    const dz = new Float64Array(G)
    const fixed = new Float64Array(G)
    const expected = this.expected
    const points = this.points
    for (const room of rooms) {
      const walls = site.walls.filter((w) => w.floor === undefined || floorOf(w.floor) === room.floor)
      for (let g = 0; g < G; g++) {
        const gf = this.gatewayFloor[g]
        dz[g] = floorZ(gf) + (placed[g].z ?? gwH) - (floorZ(room.floor) + tagH)
        fixed[g] = p0 - slabDb * Math.abs(gf - room.floor)
      }
      for (let p = room.start; p < room.end; p++) {
        const x = points[2 * p]
        const y = points[2 * p + 1]
        for (let g = 0; g < G; g++) {
          const dx = gx[g] - x
          const dy = gy[g] - y
          const d = Math.max(0.5, Math.sqrt(dx * dx + dy * dy + dz[g] * dz[g]))
          const loss = walls.length === 0 ? 0 : wallLoss(walls, [x, y], [gx[g], gy[g]], wallDb)
          expected[p * G + g] = fixed[g] - 10 * n * Math.log10(d) - loss
        }
      }
    }
  }

  /** The index of a placed gateway, or undefined. */
  indexOf(gateway: string): number | undefined {
    return this.gatewayIndex.get(gateway)
  }

  /** Index of a room by name, or −1. */
  roomIndex(name: string): number {
    return this.rooms.findIndex((r) => r.name === name)
  }
}
