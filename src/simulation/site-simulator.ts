/**
 * SiteSimulator: many gateways on a floor plan hearing beacons that stand or walk, through a
 * radio model with path loss, shadowing, walls and packet loss (site-radio.ts). Each gateway gets
 * its own advertisement stream ({@link SiteSimulator.source}), so each can feed a real scanner and
 * publisher; the ground truth (where each beacon is, which room, when a gateway last heard it) is
 * kept beside it so the fleet's answers can be checked. Deterministic for a seed.
 */
import { EventEmitter } from 'eventemitter3'
import { RealClock, VirtualClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import { gaussianFrom, seededRandom } from '../util/random.js'
import { siteBeaconsFromJSON } from './site-beacons.js'
import { SiteGatewaySource } from './site-gateway-source.js'
import type { GatewayFeedHost } from './site-gateway-source.js'
import { radioFromJSON, radioModel } from './site-radio.js'
import type { RadioModel } from './site-radio.js'
import type {
  SiteHeard,
  SiteSimulatorEvents,
  SiteSimulatorOptions,
  SiteSimulatorStats,
  SiteTruth,
} from './site-simulator-types.js'
import { SiteAir } from './site-air.js'
import { beaconStates, floorOf, gatewayPlaces } from './site-simulator-setup.js'
import type { BeaconState, GatewayPlace } from './site-simulator-setup.js'
import { Site } from '../positioning/site.js'

/** Chunk of packets between two turns of the event loop when running as fast as possible. */
const CHUNK = 2000
/** Real time: how often the pacing timer delivers what is due. */
const REAL_TICK_MS = 20

/**
 * A simulated site.
 *
 * ```ts
 * const sim = new SiteSimulator({ site, beacons: siteBeaconsFromJSON(json.beacons), virtual: true, seed: 7 })
 * const scanner = new BeaconScanner({ source: sim.source('hall-pi') })
 * await scanner.start()
 * sim.advanceTo(sim.clock!.now() + 10_000) // ten seconds of packets, in time order
 * sim.truth('0117C5200000', sim.clock!.now()) // { x, y, room, present, … }
 * ```
 */
export class SiteSimulator extends EventEmitter<SiteSimulatorEvents> implements GatewayFeedHost {
  /** Present in virtual time. */
  readonly clock?: VirtualClock
  readonly site: Site
  /** The gateway ids, in the site's order. */
  readonly gateways: readonly string[]
  private readonly radio: RadioModel
  private readonly places: GatewayPlace[]
  private readonly beacons: BeaconState[]
  private readonly byName = new Map<string, BeaconState>()
  private readonly random: () => number
  private readonly gaussian: () => number
  private readonly air: SiteAir
  private readonly pace: Clock
  /** Clock time of the simulation's start (real time: set when it starts). */
  private origin: number
  private readonly durationMs: number
  /** Simulation time (ms after the start) delivered up to. */
  private reached = 0
  private running = false
  private finished = false
  private cancel: CancelTimer | undefined

  constructor(options: SiteSimulatorOptions) {
    super()
    if (
      typeof options !== 'object' ||
      options === null ||
      typeof options.site?.anchorList !== 'function' ||
      !Array.isArray(options.beacons)
    ) {
      throw new InvalidOptionError(
        'invalid_option',
        'SiteSimulator needs { site: Site, beacons: [...] } ' +
          '(Site.fromJSON and siteBeaconsFromJSON read them from a site file)',
        { option: 'site' },
      )
    }
    if (options.durationMs !== undefined && !(options.durationMs > 0))
      throw new InvalidOptionError(
        'invalid_option',
        `durationMs must be a positive number of ms, not ${String(options.durationMs)}`,
        { option: 'durationMs' },
      )
    const site = options.site
    this.site = site
    this.radio = radioModel(options.radio)
    this.places = gatewayPlaces(site, this.radio)
    this.gateways = this.places.map((p) => p.id)
    this.random = seededRandom(options.seed ?? 1)
    this.gaussian = gaussianFrom(this.random)
    this.beacons = beaconStates(options.beacons, this.random, this.byName)
    this.pace = options.clock ?? new RealClock()
    this.durationMs = options.durationMs ?? Infinity
    if (options.virtual === true) {
      this.clock = new VirtualClock(options.startTime ?? Date.UTC(2026, 0, 1))
      this.origin = this.clock.now()
    } else {
      this.origin = this.pace.now()
    }
    // After the beacons: the links' first shadowing follows their start phases in the seeded sequence.
    // Floors: each beacon on its own, each floor's walls apart (a wall naming no floor stands on all).
    for (const b of this.beacons) {
      const f = floorOf(site, this.radio, b.spec.floor)
      b.floor = f.index
      b.floorZ = f.z
    }
    const wallsByFloor = Array.from({ length: Math.max(1, site.floors.length) }, (_, i) =>
      site.walls.filter((w) => w.floor === undefined || floorOf(site, this.radio, w.floor).index === i),
    )
    this.air = new SiteAir(
      this.radio,
      this.places,
      wallsByFloor,
      this.beacons.length,
      this.random,
      this.gaussian,
      this.clock,
    )
  }

  /**
   * A simulator of a site file (docs/fleet.md): its gateways, rooms and walls, its `beacons`, and
   * its `radio` under `options.radio`. Throws InvalidOptionError naming the first thing wrong.
   *
   * ```ts
   * const sim = SiteSimulator.fromJSON(JSON.parse(await readFile('fixtures/site-demo.json', 'utf8')), { seed: 7 })
   * ```
   */
  static fromJSON(json: unknown, options: Omit<SiteSimulatorOptions, 'site' | 'beacons'> = {}): SiteSimulator {
    const site = Site.fromJSON(json)
    const file = json as { beacons?: unknown; radio?: unknown }
    const beacons = siteBeaconsFromJSON(file.beacons)
    if (beacons.length === 0)
      throw new InvalidOptionError(
        'invalid_option',
        'site: the file has no "beacons" to simulate; add e.g. "beacons": [{ "at": [2, 3] }] (docs/fleet.md)',
        { option: 'beacons' },
      )
    return new SiteSimulator({ ...options, site, beacons, radio: { ...radioFromJSON(file.radio), ...options.radio } })
  }

  /** Counters of packets sent, heard and lost. */
  get stats(): SiteSimulatorStats {
    return { ...this.air.counters }
  }

  /** The beacons' names in the ground truth (serial numbers unless named otherwise). */
  beaconNames(): string[] {
    return this.beacons.map((b) => b.name)
  }

  /** The serial number of a beacon (by name, serial or address): its id in the scanner and the fleet. */
  idOf(name: string): string | undefined {
    const spec = this.byName.get(name)?.spec
    return spec === undefined ? undefined : (spec.serialNumber ?? spec.address)
  }

  /**
   * A new advertisement stream of gateway `id`: what that gateway hears from the moment it is
   * started until it is stopped. Several may be open for one gateway (a restarted gateway).
   * Throws InvalidOptionError for a gateway the site does not have.
   */
  source(id: string): SiteGatewaySource {
    if (!this.gateways.includes(id))
      throw new InvalidOptionError(
        'invalid_option',
        `the site has no gateway ${id}; it has ${this.gateways.join(', ')}`,
        { option: 'gateway' },
      )
    return new SiteGatewaySource(this, id)
  }

  /** Called by a gateway source on start(): it hears from now on. Not for users; start the source instead. */
  attachSource(source: SiteGatewaySource): void {
    this.air.live[this.gateways.indexOf(source.gateway)].add(source)
    // A source started on its own (not by advanceTo) runs the simulation in real time, or in virtual
    // time when it has an end.
    if (this.clock === undefined || this.durationMs !== Infinity) void this.start()
  }

  /** Called by a gateway source on stop(). Not for users; stop the source instead. */
  detachSource(source: SiteGatewaySource): void {
    this.air.live[this.gateways.indexOf(source.gateway)].delete(source)
  }

  /**
   * Where a beacon (by name, serial number or address) is at `time` (ms on the simulator's
   * clock), its room and whether it is on site. Undefined for a beacon the site does not have.
   */
  truth(name: string, time: number): SiteTruth | undefined {
    const b = this.byName.get(name)
    if (b === undefined) return undefined
    const t = time - this.origin
    const p = b.trajectory.at(t)
    const present = t >= (b.spec.appearAtMs ?? 0) && (b.spec.leaveAtMs === undefined || t < b.spec.leaveAtMs)
    const floor = this.site.floors[b.floor]?.id
    const room = this.site.roomAt(p.x, p.y, floor)
    return {
      name,
      time,
      x: p.x,
      y: p.y,
      ...(room === undefined ? {} : { room }),
      ...(floor === undefined ? {} : { floor }),
      present,
      moving: p.moving,
    }
  }

  /** The latest packet of the beacon (by name, serial number or address) that a started gateway heard, so far. */
  lastHeard(name: string): SiteHeard | undefined {
    const h = this.byName.get(name)?.lastHeard
    return h === undefined ? undefined : { ...h }
  }

  /**
   * Starts the simulation on its own: paced in real time, or (virtual, with `durationMs`) as fast
   * as possible. A virtual simulation without an end moves only through `advanceTo`.
   */
  async start(): Promise<void> {
    if (this.running || this.finished) return
    this.running = true
    const clock = this.clock
    if (clock === undefined) {
      // Real time starts now: a simulator made a while before its gateways were ready must not
      // dump the packets of that while at once.
      if (this.reached === 0) this.origin = this.pace.now()
      this.cancel = this.pace.setInterval(() => {
        const until = Math.min(this.durationMs, this.pace.now() - this.origin)
        if (this.safely(() => this.deliverUntil(until)) && until >= this.durationMs) this.finish()
      }, REAL_TICK_MS)
    } else if (this.durationMs !== Infinity) {
      setImmediate(() => void this.pump(clock))
    }
  }

  /** Stops delivering; safe to call twice. */
  async stop(): Promise<void> {
    this.running = false
    this.cancel?.()
    this.cancel = undefined
  }

  /**
   * Virtual time: delivers every packet up to `time` (ms on the clock) to the started gateway
   * sources, moving the clock with them (so the scanners' timers fire in between, in order), and
   * leaves the clock at `time`. Synchronous; a test or `runSite` awaits its broker in between.
   */
  advanceTo(time: number): void {
    const clock = this.clock
    if (clock === undefined)
      throw new InvalidOptionError(
        'invalid_option',
        'advanceTo() is for a virtual-time SiteSimulator ({ virtual: true })',
        { option: 'virtual' },
      )
    if (this.finished) return
    this.deliverUntil(Math.min(time - this.origin, this.durationMs))
    clock.advanceTo(Math.min(time, this.origin + this.durationMs))
    if (this.reached >= this.durationMs) this.finish()
  }

  private async pump(clock: VirtualClock): Promise<void> {
    while (this.running && !this.finished) {
      const before = this.air.counters.transmitted
      // Deliver in slices, giving the event loop (and a broker) a turn after each chunk.
      let until = this.reached
      while (this.air.counters.transmitted - before < CHUNK && until < this.durationMs) {
        until = Math.min(this.durationMs, until + 100)
        if (!this.safely(() => this.deliverUntil(until))) return
        clock.advanceTo(this.origin + until)
      }
      if (until >= this.durationMs) this.finish()
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  private finish(): void {
    if (this.finished) return
    this.finished = true
    void this.stop()
    this.emit('end')
    for (const set of this.air.live) for (const s of set) s.emit('end')
  }

  /** Runs `fn`; a device the encoders refuse stops the simulation with `error`. */
  private safely(fn: () => void): boolean {
    try {
      fn()
      return true
    } catch (err) {
      void this.stop()
      this.finished = true
      this.emit('error', err instanceof Error ? err : new Error(String(err)))
      return false
    }
  }

  /** Sends every transmission due before `until` (ms after the start), in time order. */
  private deliverUntil(until: number): void {
    if (until <= this.reached) return
    for (;;) {
      let best: BeaconState | undefined
      // Linear scan: a site has tens of beacons; the single-gateway simulator's heap is for ten thousand.
      for (const b of this.beacons) if (b.next < until && (best === undefined || b.next < best.next)) best = b
      if (best === undefined) break
      this.air.transmit(best, best.next, this.origin)
      best.next += (best.spec.intervalMs ?? 500) + this.random() * 10
      if (best.spec.leaveAtMs !== undefined && best.next >= best.spec.leaveAtMs) best.next = Infinity
    }
    this.reached = until
  }
}
