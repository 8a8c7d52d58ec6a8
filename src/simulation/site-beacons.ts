/**
 * The beacons of a simulated site: what each sends (a simulated device, as for the single-gateway
 * simulator) and where it is at any moment (standing at a point, or walking waypoints at a
 * speed). Positions are pure functions of time, so the ground truth needs no recording.
 */
import { InvalidOptionError } from '../errors.js'
import { E781_MODE } from '../frames/e781.js'
import type { SimulatedDevice } from '../sources/simulated-device.js'

/** A walk along waypoints at a constant speed. */
export interface SitePath {
  /**
   * Corners of the walk, metres on the site's plan; at least two. A third number is a pause
   * there, ms (someone who stops in a room), instead of `pauseMs`.
   */
  waypoints: readonly (readonly [number, number] | readonly [number, number, number])[]
  /** Metres per second (a person walks about 1.2). */
  speed: number
  /** ms after the start when the walk begins; the beacon waits at the first waypoint until then. Default 0. */
  startMs?: number
  /** ms to stand still at each waypoint (without a pause of its own) before walking on. Default 0. */
  pauseMs?: number
  /** Walk the waypoints again and again (back to the first from the last). Default false: stay at the last. */
  loop?: boolean
}

/** A beacon of the simulated site: a simulated device placed on the plan. */
export interface SiteBeacon extends Omit<SimulatedDevice, 'distance'> {
  /** Its name in the ground truth; default its serial number, else its address. */
  name?: string
  /** Where it stands (when it does not walk). */
  at?: readonly [number, number]
  /** Where it walks. */
  path?: SitePath
  /** Height above the floor, m; default the radio model's `beaconHeight`. */
  z?: number
  /** The floor it is on (a site `floors` id; default the first floor). It stays on it. */
  floor?: string
}

/** Where a beacon is at one moment. */
export interface SitePoint {
  x: number
  y: number
  moving: boolean
  /** Metres walked since the start: the accelerometer's steps come from it. */
  walked: number
}

function bad(where: string, what: string, fix: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', `site: ${where} ${what}; ${fix}`, { option: 'beacons' })
}

/** The legs of a path and the time each takes, computed once per beacon. */
export class Trajectory {
  /** Each leg: from, to, metres, ms walking, ms standing at its end. */
  private readonly legs: {
    from: readonly [number, number]
    to: readonly [number, number]
    length: number
    ms: number
    pause: number
  }[] = []
  /** ms standing at the first waypoint before walking (its own pause), at the start of each lap. */
  private readonly lead: number
  private readonly cycleMs: number
  private readonly startMs: number

  constructor(private readonly beacon: Pick<SiteBeacon, 'at' | 'path'>) {
    const path = beacon.path
    this.startMs = path?.startMs ?? 0
    const first = path?.waypoints[0]
    this.lead = (first !== undefined && first.length > 2 ? first[2] : undefined) ?? 0
    if (path !== undefined) {
      const points = path.loop === true ? [...path.waypoints, path.waypoints[0]] : path.waypoints
      for (let i = 1; i < points.length; i++) {
        const from = points[i - 1]
        const to = points[i]
        const length = Math.hypot(to[0] - from[0], to[1] - from[1])
        const own = to.length > 2 ? to[2] : undefined
        // Back at the first waypoint of a loop: its own pause is the next lap's lead, not counted twice.
        const pause = i === points.length - 1 && path.loop === true && this.lead > 0 ? 0 : (own ?? path.pauseMs ?? 0)
        this.legs.push({
          from: [from[0], from[1]],
          to: [to[0], to[1]],
          length,
          ms: (length / path.speed) * 1000,
          pause,
        })
      }
    }
    this.cycleMs = this.lead + this.legs.reduce((sum, l) => sum + l.ms + l.pause, 0)
  }

  /** Where the beacon is at `t` ms after the start. */
  at(t: number): SitePoint {
    const path = this.beacon.path
    if (path === undefined || this.legs.length === 0) {
      const [x, y] = this.beacon.at ?? path?.waypoints[0] ?? [0, 0]
      return { x, y, moving: false, walked: 0 }
    }
    let rel = t - this.startMs
    const start = { x: path.waypoints[0][0], y: path.waypoints[0][1], moving: false }
    if (rel <= 0) return { ...start, walked: 0 }
    let walked = 0
    if (path.loop === true && this.cycleMs > 0) {
      const laps = Math.floor(rel / this.cycleMs)
      walked = laps * this.legs.reduce((sum, l) => sum + l.length, 0)
      rel -= laps * this.cycleMs
    }
    if (rel < this.lead) return { ...start, walked }
    rel -= this.lead
    for (const leg of this.legs) {
      if (rel < leg.ms) {
        const f = rel / leg.ms
        return {
          x: leg.from[0] + (leg.to[0] - leg.from[0]) * f,
          y: leg.from[1] + (leg.to[1] - leg.from[1]) * f,
          moving: true,
          walked: walked + leg.length * f,
        }
      }
      rel -= leg.ms
      walked += leg.length
      if (rel < leg.pause) return { x: leg.to[0], y: leg.to[1], moving: false, walked }
      rel -= leg.pause
    }
    const last = this.legs[this.legs.length - 1].to
    return { x: last[0], y: last[1], moving: false, walked }
  }
}

/** The name a beacon has in the ground truth. */
export function beaconName(b: Pick<SiteBeacon, 'name' | 'serialNumber' | 'address'>): string {
  return b.name ?? b.serialNumber ?? b.address
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function point(v: unknown, where: string): [number, number] {
  if (
    !Array.isArray(v) ||
    v.length < 2 ||
    typeof v[0] !== 'number' ||
    typeof v[1] !== 'number' ||
    !Number.isFinite(v[0]) ||
    !Number.isFinite(v[1])
  ) {
    throw bad(where, `is ${JSON.stringify(v)?.slice(0, 40)}`, 'give a point as [x, y] in metres')
  }
  return [v[0], v[1]]
}

/** A waypoint: `[x, y]`, or `[x, y, pauseMs]`. */
function waypoint(v: unknown, where: string): [number, number] | [number, number, number] {
  const [x, y] = point(v, where)
  const pause = (v as unknown[])[2]
  if (pause === undefined) return [x, y]
  return [x, y, optionalMs(pause, `${where}[2] (the pause, ms)`) ?? 0]
}

function optionalMs(v: unknown, where: string): number | undefined {
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw bad(where, `is ${JSON.stringify(v)?.slice(0, 40)}`, 'give a number of ms, 0 or more')
  return v
}

/** The address and serial number of the `i`-th beacon of a site file that gives none. */
function defaultIdentity(i: number): { address: string; serialNumber: string } {
  const n = 0x200000 + i
  const bytes = [0xc0, 0xde, 0x5e, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]
  return {
    address: bytes.map((b) => b.toString(16).padStart(2, '0')).join(':'),
    serialNumber: `0117C5${n.toString(16).toUpperCase().padStart(6, '0')}`,
  }
}

/**
 * The `beacons` of a site file (docs/fleet.md): each `{ "serial"?, "address"?, "name"?, "at"?: [x, y],
 * "path"?: { "waypoints": [[x, y] or [x, y, pauseMs], …], "speed", "startMs"?, "pauseMs"?, "loop"? }, "z"?,
 * "appearAtMs"?, "leaveAtMs"?, "intervalMs"?, "measuredPower"? }`. Each sends the vendor's full 0x81E7
 * frame (serial number, sensors, measured power), so every gateway knows it by its serial number
 * from the first packet. Throws
 * InvalidOptionError naming the first thing that is wrong.
 */
export function siteBeaconsFromJSON(json: unknown): SiteBeacon[] {
  if (json === undefined) return []
  if (!Array.isArray(json))
    throw bad('beacons', 'is not a list', 'list the simulated beacons as [{ "at": [x, y] }, { "path": { … } }]')
  return json.map((v, i) => {
    const where = `beacons[${i}]`
    if (!isRecord(v))
      throw bad(
        where,
        'is not an object',
        'give each beacon as { "at": [x, y] } or { "path": { "waypoints": [...], "speed": 1.2 } }',
      )
    const id = defaultIdentity(i)
    if (v.address !== undefined && (typeof v.address !== 'string' || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(v.address)))
      throw bad(
        `${where}.address`,
        'is not lower-case aa:bb:cc:dd:ee:ff',
        'write it like c0:de:00:00:00:01, or leave it out',
      )
    if (v.serial !== undefined && (typeof v.serial !== 'string' || !/^[0-9A-F]{12}$/.test(v.serial)))
      throw bad(`${where}.serial`, 'is not 12 upper-case hex digits', 'write it like 0117C5000001, or leave it out')
    const minor = (i % 0xffff) + 1
    const beacon: SiteBeacon = {
      address: (v.address as string | undefined) ?? id.address,
      serialNumber: (v.serial as string | undefined) ?? id.serialNumber,
      vendor: [{ frame: 'e781', mode: E781_MODE.full }],
      hardwareModelName: 'C0',
      firmwareVersion: '4.1',
      major: 1,
      minor,
    }
    if (typeof v.name === 'string' && v.name !== '') beacon.name = v.name
    if (v.at !== undefined) beacon.at = point(v.at, `${where}.at`)
    if (v.path !== undefined) {
      const p = v.path
      if (!isRecord(p) || !Array.isArray(p.waypoints) || p.waypoints.length < 2)
        throw bad(
          `${where}.path`,
          'has fewer than two waypoints',
          'give { "waypoints": [[x, y], [x, y], …], "speed": 1.2 }',
        )
      if (typeof p.speed !== 'number' || !(p.speed > 0) || !Number.isFinite(p.speed))
        throw bad(`${where}.path.speed`, `is ${JSON.stringify(p.speed)}`, 'give metres per second, e.g. 1.2')
      const path: SitePath = {
        waypoints: p.waypoints.map((w, j) => waypoint(w, `${where}.path.waypoints[${j}]`)),
        speed: p.speed,
      }
      const startMs = optionalMs(p.startMs, `${where}.path.startMs`)
      const pauseMs = optionalMs(p.pauseMs, `${where}.path.pauseMs`)
      if (startMs !== undefined) path.startMs = startMs
      if (pauseMs !== undefined) path.pauseMs = pauseMs
      if (p.loop === true) path.loop = true
      beacon.path = path
    }
    if (beacon.at === undefined && beacon.path === undefined)
      throw bad(where, 'has neither "at" nor "path"', 'say where it stands ("at": [x, y]) or walks ("path")')
    for (const key of ['appearAtMs', 'leaveAtMs'] as const) {
      const ms = optionalMs(v[key], `${where}.${key}`)
      if (ms !== undefined) beacon[key] = ms
    }
    const interval = optionalMs(v.intervalMs, `${where}.intervalMs`)
    if (interval !== undefined) {
      if (interval < 20) throw bad(`${where}.intervalMs`, 'is below 20 ms', 'BLE advertises at most every 20 ms')
      beacon.intervalMs = interval
    }
    if (v.measuredPower !== undefined) {
      if (typeof v.measuredPower !== 'number' || !(v.measuredPower < 0 && v.measuredPower > -127))
        throw bad(`${where}.measuredPower`, 'is not a dBm value', 'give the RSSI at 1 m, e.g. -59')
      beacon.measuredPower = v.measuredPower
    }
    if (v.z !== undefined) {
      if (typeof v.z !== 'number' || !Number.isFinite(v.z))
        throw bad(`${where}.z`, 'is not a number', 'give the height in metres')
      beacon.z = v.z
    }
    if (v.floor !== undefined) {
      if (typeof v.floor !== 'string' || v.floor === '')
        throw bad(`${where}.floor`, 'is not a floor id', 'give the id of one of the site\'s "floors"')
      beacon.floor = v.floor
    }
    return beacon
  })
}
