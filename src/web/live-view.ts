/**
 * The page's model on the server: what a fleet tracker or a scanner reports, turned into view
 * shapes (view.ts), kept as a snapshot for a page that connects, and sent on as coalesced
 * updates: a beacon that changed goes out at most once per flush interval (1 s), however many
 * batches or packets moved it, so a busy site costs the browser one message per second.
 */
import { EventEmitter } from 'eventemitter3'
import type { BeaconScanner } from '../scanner/scanner.js'
import type { Beacon } from '../reading.js'
import type { FleetTracker } from '../fleet/tracker.js'
import type { FleetGatewayEvent } from '../fleet/tracker-types.js'
import type { FleetBeacon } from '../fleet/fleet-beacon.js'
import type { RoomChange } from '../fleet/room-choice.js'
import type { Site } from '../positioning/site.js'
import { gatewaysOf, planOf, signature, viewOfBeacon, viewOfFleetBeacon } from './view.js'
import { subscribe } from '../util/subscribe.js'
import type { ViewBeacon, ViewDetails, ViewGateway, ViewLogEntry, ViewPlan } from './view.js'

/** Sensor values of fleet beacons, as the gateways last published them (see beacon-details.ts). */
export interface DetailsSource {
  details(id: string): ViewDetails | undefined
}

/** What a page gets first. */
export interface LiveSnapshot {
  mode: 'fleet' | 'scanner'
  /** ms on the tracker's or scanner's clock. */
  time: number
  plan?: ViewPlan
  gateways: ViewGateway[]
  beacons: ViewBeacon[]
  /** Recent RSSI per beacon, oldest first, one value per update sent. */
  history: Record<string, number[]>
  /** Recent positions per beacon, oldest first. */
  trails: Record<string, [number, number][]>
  log: ViewLogEntry[]
  /**
   * The server was started with edit mode (`--edit`): the page offers its editor and only then
   * asks `GET /api/site` (a map without it then logs no 404 in the browser).
   */
  editable?: true
}

/** What changed since the last update. */
export interface LiveUpdate {
  time: number
  beacons: ViewBeacon[]
  gone: string[]
  gateways: ViewGateway[]
  /** Gateways the tracker forgot (not the site's, which stay on the plan as `unknown`). */
  gatewaysGone: string[]
  log: ViewLogEntry[]
}

/** Options of {@link LiveView}. */
export interface LiveViewOptions {
  fleet?: FleetTracker
  scanner?: BeaconScanner
  site?: Site
  /** Path or URL of the floor-plan image, as the page should load it. */
  image?: string
  /** The map serves the site folder's plan images under `/plans/` (floor images that are files show). */
  planFiles?: boolean
  details?: DetailsSource
  /** Default 1000 ms. */
  flushIntervalMs?: number
}

const HISTORY = 60
const TRAIL = 12
const LOG = 200
const MAX_BEACONS = 20_000

type Unsubscribe = () => void

/** A log entry's `name`, when the fleet names the beacon. */
const named = (b: { name?: string }): { name?: string } => (b.name === undefined ? {} : { name: b.name })

/** Listens to one tracker or scanner and emits `update` at most once per flush interval. */
export class LiveView extends EventEmitter<{ update: [LiveUpdate] }> {
  readonly mode: 'fleet' | 'scanner'
  private readonly beacons = new Map<string, ViewBeacon>()
  private readonly sent = new Map<string, string>()
  private readonly history = new Map<string, number[]>()
  private readonly trails = new Map<string, [number, number][]>()
  private readonly gateways = new Map<string, ViewGateway>()
  private readonly log: ViewLogEntry[] = []
  private dirty = new Set<string>()
  private gone = new Set<string>()
  private dirtyGateways = new Set<string>()
  private goneGateways = new Set<string>()
  /** The site's gateways: kept on the plan when the tracker forgets them. */
  private siteGateways: ReadonlyMap<string, ViewGateway>
  private newLog: ViewLogEntry[] = []
  private plan: ViewPlan | undefined
  private readonly unsubscribe: Unsubscribe[] = []
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly options: LiveViewOptions) {
    super()
    this.mode = options.fleet !== undefined ? 'fleet' : 'scanner'
    const site = options.site
    this.plan =
      this.mode === 'fleet' || site !== undefined ? planOf(site, options.image, options.planFiles === true) : undefined
    this.siteGateways = new Map(gatewaysOf(site).map((g) => [g.id, g]))
    for (const g of this.siteGateways.values()) this.gateways.set(g.id, g)
  }

  /**
   * A new site (an edited site file): the plan becomes its plan (returned, for the pages), and its
   * gateways' places go out in the next update with the state already known. A gateway the site
   * dropped stays as any gateway the tracker knows, or goes if the tracker never heard it.
   */
  setSite(site: Site, image: string | undefined): ViewPlan {
    const plan = planOf(site, image, this.options.planFiles === true)
    this.plan = plan
    const next = new Map(gatewaysOf(site).map((g) => [g.id, g]))
    for (const id of this.siteGateways.keys()) {
      const g = this.gateways.get(id)
      if (next.has(id) || g === undefined) continue
      if (g.state === 'unknown') {
        this.gateways.delete(id)
        this.dirtyGateways.delete(id)
        this.goneGateways.add(id)
      } else {
        this.gateways.set(id, { id, state: g.state })
        this.dirtyGateways.add(id)
      }
    }
    for (const g of next.values()) {
      this.gateways.set(g.id, { ...g, state: this.gateways.get(g.id)?.state ?? 'unknown' })
      this.goneGateways.delete(g.id)
      this.dirtyGateways.add(g.id)
    }
    this.siteGateways = next
    return plan
  }

  private now(): number {
    return (this.options.fleet?.clock ?? this.options.scanner?.clock)?.now() ?? Date.now()
  }

  /** Starts listening and flushing; what is present now is taken as the first state. */
  start(): void {
    const { fleet, scanner } = this.options
    if (fleet !== undefined) {
      for (const b of fleet.beacons()) this.fleetBeacon(b)
      const onUpdated = (list: FleetBeacon[]): void => list.forEach((b) => this.fleetBeacon(b))
      const onFound = (b: FleetBeacon): void => {
        this.fleetBeacon(b)
        const room = b.room === undefined ? {} : { room: b.room }
        this.note({ time: b.time, event: 'found', id: b.id, ...named(b), ...room })
      }
      const onGone = (b: FleetBeacon): void => this.remove(b.id, b.time)
      const onRoom = (b: FleetBeacon, change: RoomChange): void => {
        this.fleetBeacon(b)
        // A first room (no `from`) usually comes a batch after `found`: it is news too ("entered").
        const from = change.from === undefined ? {} : { from: change.from }
        this.note({ time: b.time, event: 'room', id: b.id, ...named(b), ...from, room: change.to })
      }
      const onGateway = (e: FleetGatewayEvent): void => this.gatewayState(e.gateway, e.state, e.time)
      this.unsubscribe.push(
        subscribe(fleet, { updated: onUpdated, found: onFound, gone: onGone, room: onRoom, gateway: onGateway }),
      )
    } else if (scanner !== undefined) {
      for (const b of scanner.beacons()) this.scannerBeacon(b)
      const onUpdated = (list: Beacon[]): void => list.forEach((b) => this.scannerBeacon(b))
      const onFound = (b: Beacon): void => {
        this.scannerBeacon(b)
        this.note({ time: scanner.clock.now(), event: 'found', id: b.id })
      }
      const onGone = (b: Beacon): void => this.remove(b.id, scanner.clock.now())
      this.unsubscribe.push(subscribe(scanner, { updated: onUpdated, found: onFound, gone: onGone }))
    }
    const every = this.options.flushIntervalMs ?? 1000
    this.timer = setInterval(() => this.flush(), every)
    this.timer.unref()
  }

  /** Stops listening. */
  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u()
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }

  /** The whole state, for a page that connects now. */
  snapshot(): LiveSnapshot {
    const s: LiveSnapshot = {
      mode: this.mode,
      time: this.now(),
      gateways: [...this.gateways.values()],
      beacons: [...this.beacons.values()],
      history: Object.fromEntries(this.history),
      trails: Object.fromEntries(this.trails),
      // Entries not flushed yet come in the next update: not twice.
      log: this.log.filter((e) => !this.newLog.includes(e)),
    }
    if (this.plan !== undefined) s.plan = this.plan
    return s
  }

  private fleetBeacon(b: FleetBeacon): void {
    // A gateway that sends readings is up, even if its retained status came before we listened.
    for (const g of b.gateways)
      if ((this.gateways.get(g.gateway)?.state ?? 'unknown') === 'unknown')
        this.gatewayState(g.gateway, 'online', b.time)
    this.put(viewOfFleetBeacon(b, this.options.details?.details(b.id)))
  }

  private scannerBeacon(b: Beacon): void {
    if (b.inRange) this.put(viewOfBeacon(b))
  }

  private put(v: ViewBeacon): void {
    if (!this.beacons.has(v.id) && this.beacons.size >= MAX_BEACONS) return
    this.beacons.set(v.id, v)
    this.gone.delete(v.id)
    if (this.sent.get(v.id) !== signature(v)) this.dirty.add(v.id)
  }

  private remove(id: string, time: number): void {
    const name = this.beacons.get(id)?.name
    if (!this.beacons.delete(id)) return
    this.sent.delete(id)
    this.history.delete(id)
    this.trails.delete(id)
    this.dirty.delete(id)
    this.gone.add(id)
    this.note({ time, event: 'gone', id, ...(name === undefined ? {} : { name }) })
  }

  private gatewayState(id: string, state: 'online' | 'offline' | 'forgotten', time: number): void {
    if (state === 'forgotten') {
      this.forgetGateway(id)
      return
    }
    const g = this.gateways.get(id) ?? { id, state: 'unknown' }
    if (g.state === state) return
    const first = g.state === 'unknown' && state === 'online'
    this.gateways.set(id, { ...g, state })
    this.dirtyGateways.add(id)
    // A gateway's first "online" is the normal start, not news for the log.
    if (!first) this.note({ time, event: state, id })
  }

  /**
   * The tracker forgot a gateway: the map's list follows the tracker's (bounded by its
   * registry). A site gateway stays on the plan, its state unknown again.
   */
  private forgetGateway(id: string): void {
    const site = this.siteGateways.get(id)
    if (site !== undefined) {
      if (this.gateways.get(id)?.state === 'unknown') return
      this.gateways.set(id, site)
      this.dirtyGateways.add(id)
      return
    }
    if (!this.gateways.delete(id)) return
    this.dirtyGateways.delete(id)
    this.goneGateways.add(id)
  }

  private note(entry: ViewLogEntry): void {
    this.log.push(entry)
    if (this.log.length > LOG) this.log.shift()
    this.newLog.push(entry)
  }

  /** Sends what changed since the last flush, if anything. */
  flush(): void {
    if (
      this.dirty.size === 0 &&
      this.gone.size === 0 &&
      this.dirtyGateways.size === 0 &&
      this.goneGateways.size === 0 &&
      this.newLog.length === 0
    )
      return
    const beacons: ViewBeacon[] = []
    for (const id of this.dirty) {
      const v = this.beacons.get(id)
      if (v === undefined) continue
      beacons.push(v)
      this.sent.set(id, signature(v))
      const h = this.history.get(id) ?? []
      h.push(v.rssi)
      if (h.length > HISTORY) h.shift()
      this.history.set(id, h)
      if (v.position !== undefined) {
        const t = this.trails.get(id) ?? []
        t.push([v.position.x, v.position.y])
        if (t.length > TRAIL) t.shift()
        this.trails.set(id, t)
      }
    }
    const update: LiveUpdate = {
      time: this.now(),
      beacons,
      gone: [...this.gone],
      gateways: [...this.dirtyGateways]
        .map((id) => this.gateways.get(id))
        .filter((g): g is ViewGateway => g !== undefined),
      gatewaysGone: [...this.goneGateways],
      log: this.newLog,
    }
    this.dirty = new Set()
    this.gone = new Set()
    this.dirtyGateways = new Set()
    this.goneGateways = new Set()
    this.newLog = []
    this.emit('update', update)
  }
}
