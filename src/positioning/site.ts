/**
 * A site: where the anchors are (fixed gateways hearing moving beacons, or fixed beacons heard by
 * a moving scanner), the floor's extent and its rooms. Read from the JSON shape of docs/fleet.md
 * (the tetam data set's site.json is one); pure data, no I/O, so the fleet tracker and
 * the positioning engine share it.
 */
import { bad, isRecord, optionalNumber, readPoint, readPolygon } from './site-json.js'
import { readBeaconNames } from './beacon-names.js'
import type { BeaconName } from './beacon-names.js'
import { boundsOf, insidePolygon, withinBounds } from './polygon.js'
import type { Bounds, Polygon } from './polygon.js'
import { readFloorRef, readFloors, type Floor } from './site-floors.js'

/** A fixed receiver or beacon, metres on the site's plan. */
export interface Anchor {
  id: string
  x?: number
  y?: number
  /** Mounting height, metres. */
  z?: number
  /** The room the anchor stands in, given or found from the room polygons. */
  room?: string
  /** The floor it is on (a `floors` id), given or its room's. */
  floor?: string
  /**
   * A foreign node (an ESP32 of OpenMQTTGateway, Theengs or ESPresense fed through the fleet's
   * inputs), not a beaconkit gateway: once a site declares any, its other gateways are native
   * and no foreign node may take their ids (docs/fleet.md "Mixed fleets").
   */
  foreign?: true
}

/** A room: a polygon on the plan, and/or the gateways that stand for it. */
export interface Room {
  name: string
  /** Corners in order, metres; absent in the simple case of gateway → room names. */
  polygon?: readonly (readonly [number, number])[]
  /** The floor it is on (a `floors` id); absent on a one-plane site. */
  floor?: string
}

/** A wall on the plan: a straight segment that weakens every radio path crossing it. */
export interface Wall {
  from: readonly [number, number]
  to: readonly [number, number]
  /** dB lost by a path crossing it; absent: the simulator's default per wall. */
  attenuationDb?: number
  /** The floor it stands on (a `floors` id); absent: every floor's (a one-plane site). */
  floor?: string
}

/** The rectangle the site covers. */
export interface Area {
  minX: number
  minY: number
  maxX: number
  maxY: number
}

/** Which side of the link is fixed. */
export type AnchorKind = 'receivers' | 'beacons'

/** `walls`: `[[x1, y1], [x2, y2]]` segments, or `{ from, to, attenuationDb? }`. */
function readWalls(v: unknown): Wall[] {
  if (!Array.isArray(v))
    throw bad(
      'walls is not a list',
      'list each wall as [[x1, y1], [x2, y2]] or { "from": [x, y], "to": [x, y], "attenuationDb": 6 }',
    )
  return v.map((w, i) => {
    if (Array.isArray(w)) return { from: readPoint(w[0], `walls[${i}][0]`), to: readPoint(w[1], `walls[${i}][1]`) }
    if (!isRecord(w))
      throw bad(
        `walls[${i}] is neither a segment nor an object`,
        'write [[x1, y1], [x2, y2]] or { "from": [x, y], "to": [x, y] }',
      )
    const wall: Wall = { from: readPoint(w.from, `walls[${i}].from`), to: readPoint(w.to, `walls[${i}].to`) }
    const db = optionalNumber(w.attenuationDb, `walls[${i}].attenuationDb`)
    if (db !== undefined) {
      if (db < 0) throw bad(`walls[${i}].attenuationDb is negative`, 'give the dB a wall takes away, 0 or more')
      wall.attenuationDb = db
    }
    const floor = readFloorRef(w.floor, `walls[${i}]`)
    if (floor !== undefined) wall.floor = floor
    return wall
  })
}

/**
 * Anchors, area and rooms of one site.
 *
 * ```ts
 * const site = Site.fromJSON(JSON.parse(await readFile('site.json', 'utf8')))
 * site.anchor('hall-north')?.room   // 'hall'
 * ```
 */
export class Site {
  /** Whether the anchors are receivers (gateways) or fixed beacons. */
  readonly kind: AnchorKind
  readonly area?: Area
  readonly rooms: readonly Room[]
  /** The building's floors, bottom first as the file lists them; empty on a one-plane site. */
  readonly floors: readonly Floor[]
  /** Walls, for the site simulator's radio model and the map; empty when the file has none. */
  readonly walls: readonly Wall[]
  /** The file's `beacons` that have a name (beacon-names.ts); empty when it names none. */
  readonly beaconNames: readonly BeaconName[]
  private readonly anchors: ReadonlyMap<string, Anchor>
  /**
   * Each room's bounds (rooms' order; undefined without a polygon): `roomAt` tests a polygon only
   * when the point is within its bounds. A site of 200 rooms of 50 corners and 500 gateways took
   * half a second to read without them (bench/site-edit.bench.mjs), and beacons are placed with it.
   */
  private readonly bounds: readonly (Bounds | undefined)[]

  constructor(init: {
    kind?: AnchorKind
    anchors: Iterable<Anchor>
    area?: Area
    rooms?: readonly Room[]
    walls?: readonly Wall[]
    beaconNames?: readonly BeaconName[]
    floors?: readonly Floor[]
  }) {
    this.kind = init.kind ?? 'receivers'
    this.rooms = init.rooms ?? []
    this.floors = init.floors ?? []
    this.walls = init.walls ?? []
    this.beaconNames = init.beaconNames ?? []
    if (init.area !== undefined) this.area = init.area
    this.bounds = this.rooms.map((r) => (r.polygon === undefined ? undefined : boundsOf(r.polygon)))
    const anchors = new Map<string, Anchor>()
    for (const a of init.anchors) {
      const room = a.room ?? (a.x !== undefined && a.y !== undefined ? this.roomAt(a.x, a.y, a.floor) : undefined)
      const floor = a.floor ?? this.rooms.find((r) => r.name === room)?.floor
      const anchor: Anchor = room === undefined ? { ...a } : { ...a, room }
      if (floor !== undefined) anchor.floor = floor
      anchors.set(a.id, anchor)
    }
    this.anchors = anchors
  }

  /**
   * Reads the JSON shape of a site file: anchors keyed by id under `receivers` or `gateways`
   * (fixed receivers) or under `anchorBeacons` (fixed beacons), each `{ x?, y?, z?, room? }`;
   * `area` `{ minX, minY, maxX, maxY }`; `rooms` as a list of `{ name, polygon?, gateways? }` or
   * as an object of room name → gateway ids; `walls` as a list of `[[x1, y1], [x2, y2]]` segments
   * or `{ from, to, attenuationDb?, floor? }`; `beacons` as a list of `{ id?, serialNumber?, name }`
   * naming beacons (readBeaconNames); `floors` as a list of `{ id, name, z?, image? }`, with a
   * `floor` on rooms (list form) and gateways (site-floors.ts). Other keys are ignored. Throws
   * `InvalidOptionError` naming the first thing that is wrong.
   */
  static fromJSON(json: unknown): Site {
    if (!isRecord(json)) throw bad('the file is not a JSON object', 'see docs/fleet.md for the shape')
    const fixedBeacons = isRecord(json.anchorBeacons)
    const group = fixedBeacons ? json.anchorBeacons : (json.receivers ?? json.gateways)
    if (!isRecord(group))
      throw bad(
        'no anchors',
        'list the gateways under "gateways" (or "receivers"), or fixed beacons under "anchorBeacons"',
      )
    const roomOfGateway = new Map<string, string>()
    const rooms: Room[] = []
    if (Array.isArray(json.rooms)) {
      json.rooms.forEach((r, i) => {
        if (!isRecord(r) || typeof r.name !== 'string' || r.name === '')
          throw bad(`rooms[${i}] has no name`, 'give each room a "name"')
        const room: Room = { name: r.name }
        if (r.polygon !== undefined) room.polygon = readPolygon(r.polygon, `rooms[${i}]`)
        const floor = readFloorRef(r.floor, `rooms[${i}]`)
        if (floor !== undefined) room.floor = floor
        rooms.push(room)
        if (Array.isArray(r.gateways))
          for (const g of r.gateways) if (typeof g === 'string') roomOfGateway.set(g, r.name)
      })
    } else if (isRecord(json.rooms)) {
      for (const [name, ids] of Object.entries(json.rooms)) {
        if (!Array.isArray(ids))
          throw bad(`rooms.${name} is not a list of gateway ids`, 'map each room name to the gateways in it')
        rooms.push({ name })
        for (const g of ids) if (typeof g === 'string') roomOfGateway.set(g, name)
      }
    }
    const anchors: Anchor[] = []
    for (const [id, v] of Object.entries(group)) {
      const a: Anchor = { id }
      if (isRecord(v)) {
        const x = optionalNumber(v.x, `${id}.x`)
        const y = optionalNumber(v.y, `${id}.y`)
        const z = optionalNumber(v.z, `${id}.z`)
        if (x !== undefined) a.x = x
        if (y !== undefined) a.y = y
        if (z !== undefined) a.z = z
        if (typeof v.room === 'string') a.room = v.room
        const floor = readFloorRef(v.floor, id)
        if (floor !== undefined) a.floor = floor
        if (v.foreign === true) a.foreign = true
      }
      const named = roomOfGateway.get(id)
      if (named !== undefined && a.room === undefined) a.room = named
      if (a.room !== undefined && !rooms.some((r) => r.name === a.room)) rooms.push({ name: a.room })
      anchors.push(a)
    }
    // A room of the object form (or one that names no floor) is on its gateways' floor when they agree.
    for (const r of rooms) {
      if (r.floor !== undefined) continue
      const floors = new Set(anchors.filter((a) => a.room === r.name && a.floor !== undefined).map((a) => a.floor))
      if (floors.size === 1) r.floor = [...floors][0]
    }
    let area: Area | undefined
    if (isRecord(json.area)) {
      const [minX, minY, maxX, maxY] = (['minX', 'minY', 'maxX', 'maxY'] as const).map((k) =>
        optionalNumber((json.area as Record<string, unknown>)[k], `area.${k}`),
      )
      if (minX === undefined || minY === undefined || maxX === undefined || maxY === undefined)
        throw bad('area lacks one of minX, minY, maxX, maxY', 'give all four, in metres')
      area = { minX, minY, maxX, maxY }
    }
    const walls = json.walls === undefined ? [] : readWalls(json.walls)
    const beaconNames = readBeaconNames(json.beacons)
    return new Site({
      kind: fixedBeacons ? 'beacons' : 'receivers',
      anchors,
      rooms,
      walls,
      beaconNames,
      floors: readFloors(json.floors),
      ...(area === undefined ? {} : { area }),
    })
  }

  /**
   * A site of fixed beacons from a deployment map (what `AccountClient.getMap()` returns): the
   * mobile case, where a moving scanner locates itself from the beacons placed on the map.
   * `PosX`/`PosY` are read as fractions (0…1) of the map's width and height, and `xScale`/`yScale`
   * as that width and height in metres, so a beacon stands at (PosX · xScale, PosY · yScale) with y
   * running the way the map image's rows do. `options` override the scales (for a map that has
   * none) and give the beacons' mounting height. Anchor ids are the MACs, lower case without
   * separators, as the scanner reports them. Throws `InvalidOptionError` without a usable scale.
   */
  static fromDeploymentMap(
    map: {
      xScale?: number
      yScale?: number
      beacons: readonly { mac: string; PosX: number; PosY: number; title?: string }[]
    },
    options: { xScale?: number; yScale?: number; z?: number } = {},
  ): Site {
    const xScale = options.xScale ?? map.xScale
    const yScale = options.yScale ?? map.yScale
    for (const [name, v] of [
      ['xScale', xScale],
      ['yScale', yScale],
    ] as const) {
      if (v === undefined || !(v > 0) || !Number.isFinite(v))
        throw bad(
          `the deployment map's ${name} is ${JSON.stringify(v)}`,
          `pass the map's ${name === 'xScale' ? 'width' : 'height'} in metres as options.${name}`,
        )
    }
    const anchors: Anchor[] = []
    for (const b of map.beacons) {
      if (!Number.isFinite(b.PosX) || !Number.isFinite(b.PosY) || typeof b.mac !== 'string') continue
      const a: Anchor = {
        id: b.mac.toLowerCase().replace(/[^0-9a-z]/g, ''),
        x: b.PosX * (xScale as number),
        y: b.PosY * (yScale as number),
      }
      if (options.z !== undefined) a.z = options.z
      anchors.push(a)
    }
    return new Site({
      kind: 'beacons',
      anchors,
      area: { minX: 0, minY: 0, maxX: xScale as number, maxY: yScale as number },
    })
  }

  /** An anchor by id. */
  anchor(id: string): Anchor | undefined {
    return this.anchors.get(id)
  }

  /** Every anchor. */
  anchorList(): Anchor[] {
    return [...this.anchors.values()]
  }

  /**
   * The room whose polygon holds (x, y), if any; with `floor`, only a room on that floor (or one
   * that names no floor): rooms of different floors overlap on the plan.
   */
  roomAt(x: number, y: number, floor?: string): string | undefined {
    const rooms = this.rooms
    for (let i = 0; i < rooms.length; i++) {
      const r = rooms[i]
      if (floor !== undefined && r.floor !== undefined && r.floor !== floor) continue
      const b = this.bounds[i]
      if (b !== undefined && withinBounds(b, x, y) && insidePolygon(r.polygon as Polygon, x, y)) return r.name
    }
    return undefined
  }

  /** The floor a room is on, if the site says. */
  floorOf(room: string): string | undefined {
    return this.rooms.find((r) => r.name === room)?.floor
  }
}
