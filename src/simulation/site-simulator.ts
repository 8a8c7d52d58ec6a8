/**
 * SiteSimulator: many gateways on a floor plan hearing beacons that stand or walk, through a
 * radio model with path loss, shadowing, walls and packet loss (site-radio.ts). Each gateway gets
 * its own advertisement stream ({@link SiteSimulator.source}), so each can feed a real scanner and
 * publisher; the ground truth (where each beacon is, which room, when a gateway last heard it) is
 * kept beside it so the fleet's answers can be checked. Deterministic for a seed.
 */
import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../advertisement.js'
import { RealClock, VirtualClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import { gaussianFrom, seededRandom } from '../util/random.js'
import { iBeaconData, vendorServiceData } from '../sources/device-frames.js'
import { beaconName, siteBeaconsFromJSON, Trajectory } from './site-beacons.js'
import type { SiteBeacon } from './site-beacons.js'
import { SiteGatewaySource } from './site-gateway-source.js'
import type { GatewayFeedHost } from './site-gateway-source.js'
import { lossProbability, meanRssi, radioFromJSON, radioModel, shadowingStep, wallLoss } from './site-radio.js'
import type { RadioModel } from './site-radio.js'
import type {
  SiteHeard,
  SiteSimulatorEvents,
  SiteSimulatorOptions,
  SiteSimulatorStats,
  SiteTruth,
} from './site-simulator-types.js'
import { Site } from '../positioning/site.js'

export { SiteGatewaySource } from './site-gateway-source.js'
export type { SiteBeacon, SitePath, SitePoint } from './site-beacons.js'
export type { RadioModel } from './site-radio.js'

export type {
  SiteHeard,
  SiteSimulatorEvents,
  SiteSimulatorOptions,
  SiteSimulatorStats,
  SiteTruth,
} from './site-simulator-types.js'

interface BeaconState {
  spec: SiteBeacon
  index: number
  name: string
  trajectory: Trajectory
  next: number
  frame: number
  lastHeard?: SiteHeard
}

interface GatewayPlace {
  id: string
  x: number
  y: number
  z: number
}

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
  /** Shadowing per link, beacon-major: [value dB, time ms]. */
  private readonly shadow: Float64Array
  private readonly shadowAt: Float64Array
  /** Started sources per gateway index. */
  private readonly live: Set<SiteGatewaySource>[]
  private readonly pace: Clock
  /** Clock time of the simulation's start (real time: set when it starts). */
  private origin: number
  private readonly durationMs: number
  /** Simulation time (ms after the start) delivered up to. */
  private reached = 0
  private lastStamp = -Infinity
  private running = false
  private finished = false
  private cancel: CancelTimer | undefined
  private readonly counters: SiteSimulatorStats = { transmitted: 0, heard: 0, lost: 0, unheard: 0 }

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
        'SiteSimulator needs { site: Site, beacons: [...] } (Site.fromJSON and siteBeaconsFromJSON read them from a site file)',
        { option: 'site' },
      )
    }
    if (options.durationMs !== undefined && !(options.durationMs > 0))
      throw new InvalidOptionError(
        'invalid_option',
        `durationMs must be a positive number of ms, not ${String(options.durationMs)}`,
        { option: 'durationMs' },
      )
    this.site = options.site
    this.radio = radioModel(options.radio)
    if (options.site.kind !== 'receivers')
      throw new InvalidOptionError(
        'invalid_option',
        'SiteSimulator needs a site of gateways ("gateways" in the file), not of fixed beacons',
        { option: 'site' },
      )
    this.places = options.site.anchorList().map((a) => {
      if (a.x === undefined || a.y === undefined)
        throw new InvalidOptionError(
          'invalid_option',
          `site: gateway ${a.id} has no position; give it "x" and "y" in metres to simulate it`,
          { option: 'site' },
        )
      return { id: a.id, x: a.x, y: a.y, z: a.z ?? this.radio.gatewayHeight }
    })
    if (this.places.length === 0)
      throw new InvalidOptionError('invalid_option', 'site: no gateways to simulate', { option: 'site' })
    this.gateways = this.places.map((p) => p.id)
    this.random = seededRandom(options.seed ?? 1)
    this.gaussian = gaussianFrom(this.random)
    this.beacons = options.beacons.map((spec, index) => {
      if (typeof spec.address !== 'string' || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(spec.address)) {
        throw new InvalidOptionError(
          'invalid_option',
          `beacons[${index}].address must be lower-case aa:bb:cc:dd:ee:ff`,
          { option: 'beacons' },
        )
      }
      if (spec.intervalMs !== undefined && !(spec.intervalMs >= 20))
        throw new InvalidOptionError('invalid_option', `beacons[${index}].intervalMs must be >= 20 ms (BLE minimum)`, {
          option: 'beacons',
        })
      if (spec.at === undefined && spec.path === undefined)
        throw new InvalidOptionError('invalid_option', `beacons[${index}] needs "at" or "path"`, { option: 'beacons' })
      if (spec.path !== undefined && (spec.path.waypoints.length < 2 || !(spec.path.speed > 0))) {
        throw new InvalidOptionError(
          'invalid_option',
          `beacons[${index}].path needs two or more waypoints and a speed > 0 m/s`,
          { option: 'beacons' },
        )
      }
      const name = beaconName(spec)
      const state: BeaconState = {
        spec,
        index,
        name,
        trajectory: new Trajectory(spec),
        next: (spec.appearAtMs ?? 0) + this.random() * (spec.intervalMs ?? 500),
        frame: 0,
      }
      if (this.byName.has(name))
        throw new InvalidOptionError(
          'invalid_option',
          `beacons[${index}]: the name ${name} is taken by another beacon; give each a name, serial or address of its own`,
          { option: 'beacons' },
        )
      this.byName.set(name, state)
      return state
    })
    // The fleet knows a beacon by its serial number: the ground truth answers to that too, and to the address.
    for (const b of this.beacons)
      for (const alias of [b.spec.serialNumber, b.spec.address])
        if (alias !== undefined && !this.byName.has(alias)) this.byName.set(alias, b)
    const links = this.beacons.length * this.places.length
    this.shadow = new Float64Array(links)
    this.shadowAt = new Float64Array(links)
    for (let i = 0; i < links; i++) this.shadow[i] = this.gaussian() * this.radio.shadowingDb
    this.live = this.places.map(() => new Set())
    this.pace = options.clock ?? new RealClock()
    this.durationMs = options.durationMs ?? Infinity
    if (options.virtual === true) {
      this.clock = new VirtualClock(options.startTime ?? Date.UTC(2026, 0, 1))
      this.origin = this.clock.now()
    } else {
      this.origin = this.pace.now()
    }
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
    return { ...this.counters }
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
    this.live[this.gateways.indexOf(source.gateway)].add(source)
    // A source started on its own (not by advanceTo) runs the simulation in real time, or in virtual
    // time when it has an end.
    if (this.clock === undefined || this.durationMs !== Infinity) void this.start()
  }

  /** Called by a gateway source on stop(). Not for users; stop the source instead. */
  detachSource(source: SiteGatewaySource): void {
    this.live[this.gateways.indexOf(source.gateway)].delete(source)
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
    const room = this.site.roomAt(p.x, p.y)
    return { name, time, x: p.x, y: p.y, ...(room === undefined ? {} : { room }), present, moving: p.moving }
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
      const before = this.counters.transmitted
      // Deliver in slices, giving the event loop (and a broker) a turn after each chunk.
      let until = this.reached
      while (this.counters.transmitted - before < CHUNK && until < this.durationMs) {
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
    for (const set of this.live) for (const s of set) s.emit('end')
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
      this.transmit(best, best.next)
      best.next += (best.spec.intervalMs ?? 500) + this.random() * 10
      if (best.spec.leaveAtMs !== undefined && best.next >= best.spec.leaveAtMs) best.next = Infinity
    }
    this.reached = until
  }

  private transmit(b: BeaconState, at: number): void {
    const spec = b.spec
    const t = Math.round(at)
    const p = b.trajectory.at(t)
    // Timestamps never run backwards within a gateway's stream, even when two beacons round to one ms.
    const stamp = (ms: number): number => {
      this.lastStamp = Math.max(this.lastStamp, this.origin + ms)
      return this.lastStamp
    }
    if (spec.ibeacon !== undefined) {
      const data = iBeaconData({ ...spec, ibeacon: spec.ibeacon }, t)
      this.broadcast(
        b,
        p,
        t,
        (rssi, timestamp) => ({
          address: spec.address,
          addressType: 'public',
          rssi,
          timestamp,
          connectable: false,
          manufacturerData: data,
        }),
        stamp,
      )
    }
    const vendor = spec.vendor
    if (vendor !== undefined && vendor.length > 0) {
      const frame = vendor[b.frame++ % vendor.length]
      // Two steps per metre walked, as a pedometer counts.
      const serviceData = vendorServiceData(
        spec,
        frame,
        { moving: p.moving, steps: Math.floor(p.walked * 1.4) },
        this.random,
      )
      this.broadcast(
        b,
        p,
        t + 1,
        (rssi, timestamp) => ({
          address: spec.address,
          addressType: 'public',
          rssi,
          timestamp,
          connectable: false,
          serviceData: [serviceData],
        }),
        stamp,
      )
    }
  }

  /** One packet, heard (or not) by each gateway at its own RSSI. */
  private broadcast(
    b: BeaconState,
    p: { x: number; y: number },
    t: number,
    make: (rssi: number, timestamp: number) => Advertisement,
    stamp: (ms: number) => number,
  ): void {
    this.counters.transmitted++
    const r = this.radio
    const power = b.spec.measuredPower ?? r.measuredPower
    const z = b.spec.z ?? r.beaconHeight
    for (let g = 0; g < this.places.length; g++) {
      const gw = this.places[g]
      const link = b.index * this.places.length + g
      this.shadow[link] = shadowingStep(
        this.shadow[link],
        t - this.shadowAt[link],
        r.shadowingDb,
        r.shadowingMs,
        this.gaussian(),
      )
      this.shadowAt[link] = t
      const distance = Math.hypot(gw.x - p.x, gw.y - p.y, gw.z - z)
      const mean =
        meanRssi(power, distance, r.pathLossExponent) - wallLoss(this.site.walls, [p.x, p.y], [gw.x, gw.y], r.wallDb)
      const rssi = mean + this.shadow[link] + this.gaussian() * r.fadingDb
      const lost = this.random() < lossProbability(rssi, r)
      if (rssi <= r.sensitivityDbm) {
        this.counters.unheard++
        continue
      }
      if (lost) {
        this.counters.lost++
        continue
      }
      const sources = this.live[g]
      if (sources.size === 0) continue
      const timestamp = stamp(t)
      this.clock?.advanceTo(timestamp)
      const adv = make(Math.max(-127, Math.min(0, Math.round(rssi))), timestamp)
      this.counters.heard++
      b.lastHeard = { gateway: gw.id, time: timestamp }
      for (const s of sources) s.deliver(adv)
    }
  }
}
