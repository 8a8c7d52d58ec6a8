/**
 * What the page is sent: plain JSON shapes, built from fleet and scanner objects by picking
 * fields one by one. Picking (never spreading) is what keeps anything secret, or anything added
 * to those objects later, out of the page and its stream.
 */
import type { Beacon } from '../reading.js'
import type { FleetBeacon } from '../fleet/fleet-beacon.js'
import type { Site } from '../positioning/site.js'
import { isPlanFileName } from './plan-image.js'

/** A beacon's sensor values and identity, as the details panel shows them. */
export interface ViewDetails {
  serialNumber?: string
  model?: string
  battery?: number
  temperature?: number | null
  light?: number | null
  moving?: boolean
  movingState?: string
  /**
   * A private broadcast that decrypted and checked out here, with this process's own key (a
   * scanner). Never set from what a gateway published: that is in {@link ViewDetails.claims}.
   */
  verified?: boolean
  address?: string
  /**
   * Fleet: the gateway whose published state these values are (its claim, not checked here);
   * when several supplied them, the one that supplied most (see {@link ViewDetails.sources}).
   */
  reportedBy?: string
  /**
   * Fleet, when the values come from more than one gateway's state: which fields each supplied
   * (each field from the freshest state that has it, as the fleet's fused values), most first.
   */
  sources?: { gateway: string; fields: DetailField[] }[]
  /**
   * Fleet: the known gateways that claim the private broadcast verified, or not verified. The
   * fleet sees only their JSON, never the bytes, so this is who says so, not a verification.
   */
  claims?: { verified: string[]; notVerified: string[] }
}

/** A field of {@link ViewDetails} that a gateway's state supplies. */
export type DetailField =
  'serialNumber' | 'model' | 'battery' | 'temperature' | 'light' | 'moving' | 'movingState' | 'address'

/** One beacon on the page. */
export interface ViewBeacon {
  id: string
  /**
   * A person's name for the tag, when the fleet knows one (the site file's `beacons` list): the
   * page labels a beacon by it first, then by serial number, then by a short form of its id.
   */
  name?: string
  /** Smoothed RSSI of the strongest gateway (fleet) or of the scanner. */
  rssi: number
  lastSeen: number
  firstSeen: number
  room?: string
  /** Fleet, on a site with `floors`: its floor's id (the page draws it there, lists it elsewhere). */
  floor?: string
  position?: { x: number; y: number; accuracy: number }
  /** Fleet: the gateways hearing it, strongest first. */
  gateways?: { gateway: string; rssi: number; distance?: number }[]
  /** Scanner: metres from the measured power (−1 when unknown). */
  accuracy?: number
  proximity?: string
  details: ViewDetails
}

/** A gateway marker. */
export interface ViewGateway {
  id: string
  state: 'online' | 'offline' | 'unknown'
  /** One of the site's gateways: with a site, the header counts these and shows the others apart. */
  site?: true
  x?: number
  y?: number
  room?: string
  /** Its floor's id, on a site with `floors`. */
  floor?: string
}

/** A floor of the site, as the page's floor switch shows it. */
export interface ViewFloor {
  id: string
  /** A person's name for it (site file, up to 64 characters): the page shows it as text only. */
  name: string
  /** This floor's plan image (an http(s) URL or `/plans/<file>`), drawn instead of the site's image on this floor. */
  image?: string
}

/** The floor plan: extent, rooms and optional image. */
export interface ViewPlan {
  area?: { minX: number; minY: number; maxX: number; maxY: number }
  rooms: { name: string; polygon?: [number, number][]; floor?: string }[]
  /** The site file's walls, drawn as lines: `[[x1, y1], [x2, y2]]` each; absent when it has none. */
  walls?: [[number, number], [number, number]][]
  /** Per wall (same order as `walls`), its floor's id or null (every floor's); absent on a one-plane site. */
  wallFloors?: (string | null)[]
  /** The site's floors, bottom first; absent on a one-plane site (the page then shows no switch). */
  floors?: ViewFloor[]
  /** Path of the floor-plan image on this server, or an http(s) URL. */
  image?: string
}

/** A line of the event log: a beacon found, gone or changing room, or a gateway going on- or offline. */
export interface ViewLogEntry {
  time: number
  event: 'found' | 'gone' | 'room' | 'online' | 'offline'
  /** The beacon's or the gateway's id. */
  id: string
  /** The beacon's name when the site names it, so the log says what the plan says. */
  name?: string
  /** The room it was found in, or (`room`) the room it entered. */
  room?: string
  /** (`room`) The room it left; absent when it had none before (its first room). */
  from?: string
}

function round(n: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(n * f) / f
}

const text = (v: unknown): v is string => typeof v === 'string' && v.length <= 128
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * The details of a scanner's tracked beacon, or of one a gateway published (then parsed from
 * JSON, so each field is checked for its type: a field of another shape is left out).
 */
export function detailsOf(b: Beacon): ViewDetails {
  const d: ViewDetails = {}
  if (text(b.address)) d.address = b.address
  if (text(b.serialNumber)) d.serialNumber = b.serialNumber
  if (text(b.hardwareModelName)) d.model = b.hardwareModelName
  if (num(b.batteryLevel)) d.battery = b.batteryLevel
  if (num(b.temperature) || b.temperature === null) d.temperature = b.temperature
  if (num(b.light) || b.light === null) d.light = b.light
  if (typeof b.moving === 'boolean') d.moving = b.moving
  if (text(b.movingState)) d.movingState = b.movingState
  const secure: unknown = b.secure
  if (typeof secure === 'object' && secure !== null && typeof (secure as { verified?: unknown }).verified === 'boolean')
    d.verified = (secure as { verified: boolean }).verified
  return d
}

/** A scanner's beacon on the page. */
export function viewOfBeacon(b: Beacon): ViewBeacon {
  const v: ViewBeacon = {
    id: b.id,
    rssi: round(b.smoothedRssi, 1),
    lastSeen: b.lastSeen,
    firstSeen: b.firstSeen,
    details: detailsOf(b),
  }
  if (b.accuracy !== undefined) v.accuracy = round(b.accuracy, 2)
  if (b.proximity !== undefined) v.proximity = b.proximity
  return v
}

/** A fused fleet beacon on the page, with what the gateways last said of its sensors. */
export function viewOfFleetBeacon(b: FleetBeacon, details: ViewDetails | undefined): ViewBeacon {
  const v: ViewBeacon = {
    id: b.id,
    rssi: round(b.gateways[0]?.rssi ?? -127, 1),
    lastSeen: b.lastSeen,
    firstSeen: b.firstSeen,
    gateways: b.gateways.map((g) =>
      g.distance === undefined
        ? { gateway: g.gateway, rssi: round(g.rssi, 1) }
        : { gateway: g.gateway, rssi: round(g.rssi, 1), distance: round(g.distance, 2) },
    ),
    details: details ?? {},
  }
  if (b.name !== undefined) v.name = b.name
  if (b.room !== undefined) v.room = b.room
  if (b.floor !== undefined) v.floor = b.floor
  if (b.position !== undefined)
    v.position = { x: round(b.position.x, 2), y: round(b.position.y, 2), accuracy: round(b.position.accuracy, 2) }
  return v
}

/** Walls sent to the page at most; a plan with more is drawn without the rest. */
const MAX_WALLS = 2000

/**
 * Where the page loads a plan image the site file names: an http(s) URL as it is; a file in the
 * site's folder as `/plans/<name>` when the map serves those (`files`, edit-routes.ts) and the
 * name keeps the plan file rule; otherwise nowhere (undefined).
 */
export function planSource(image: string, files: boolean): string | undefined {
  if (/^https?:\/\//i.test(image)) return image
  return files && isPlanFileName(image) ? `/plans/${image}` : undefined
}

/**
 * The floor plan of a site; rooms without a polygon are listed and drawn around their gateways.
 * @param files whether the map serves the site folder's plan images under `/plans/` (see {@link planSource})
 */
export function planOf(site: Site | undefined, image: string | undefined, files = false): ViewPlan {
  const plan: ViewPlan = {
    rooms: (site?.rooms ?? []).map((r) => {
      const room: ViewPlan['rooms'][number] = { name: r.name }
      if (r.polygon !== undefined) room.polygon = r.polygon.map(([x, y]) => [x, y] as [number, number])
      if (r.floor !== undefined) room.floor = r.floor
      return room
    }),
  }
  // Floors are bounded where the site is read (site-floors.ts); one-plane sites send none, so no switch.
  if (site !== undefined && site.floors.length > 0)
    plan.floors = site.floors.map((f) => {
      const floor: ViewFloor = { id: f.id, name: f.name }
      // A URL loads as is; a file only when the map serves the site's folder (planSource).
      const source = f.image === undefined ? undefined : planSource(f.image, files)
      if (source !== undefined) floor.image = source
      return floor
    })
  if (site?.area !== undefined) plan.area = { ...site.area }
  // Bounded like every list sent to the page: a site file is trusted, but a page should not stall on one.
  if (site !== undefined && site.walls.length > 0)
    plan.walls = site.walls.slice(0, MAX_WALLS).map((w) => [
      [w.from[0], w.from[1]],
      [w.to[0], w.to[1]],
    ])
  if (site !== undefined && plan.walls !== undefined && plan.floors !== undefined)
    plan.wallFloors = site.walls.slice(0, MAX_WALLS).map((w) => w.floor ?? null)
  if (image !== undefined) plan.image = image
  return plan
}

/** The site's gateways as markers, state unknown until a status arrives. */
export function gatewaysOf(site: Site | undefined): ViewGateway[] {
  if (site === undefined || site.kind !== 'receivers') return []
  return site.anchorList().map((a) => {
    const g: ViewGateway = { id: a.id, state: 'unknown', site: true }
    if (a.x !== undefined) g.x = a.x
    if (a.y !== undefined) g.y = a.y
    if (a.room !== undefined) g.room = a.room
    if (a.floor !== undefined) g.floor = a.floor
    return g
  })
}

/**
 * What decides whether a beacon changed enough to send it again: its room, position (10 cm) and
 * gateways with their RSSI rounded to a whole dB, so noise below that does not cost a message.
 */
export function signature(v: ViewBeacon): string {
  const g = v.gateways?.map((x) => `${x.gateway}:${Math.round(x.rssi)}`).join(',') ?? ''
  const p =
    v.position === undefined
      ? ''
      : `${Math.round(v.position.x * 10)},${Math.round(v.position.y * 10)},${Math.round(v.position.accuracy * 10)}`
  return `${v.name ?? ''}|${v.room ?? ''}|${v.floor ?? ''}|${p}|${g}|${Math.round(v.rssi)}|${JSON.stringify(v.details)}`
}
