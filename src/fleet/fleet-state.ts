/**
 * The fused view of many gateways: one record per beacon, fed by every gateway's per-second
 * RSSI batch (docs/mqtt.md; the shapes are the publisher's own, from mqtt/payloads.ts). A beacon
 * is present while any gateway hears it, so one gateway losing it never makes it go; it goes when
 * no gateway has heard it for the gone timeout. Pure state driven by `ingest` and `tick` with the
 * caller's time: no I/O, no timers, so the tracker can run it on a real clock and tests on a
 * virtual one.
 */
import { BeaconAdmission, countOption } from './admission.js'
import { GatewayRegistry } from './gateway-registry.js'
import { ClockRefusals } from './clock-refusals.js'
import type { GatewayState } from './gateway-registry.js'
import type { RssiReading } from '../mqtt/payloads.js'
import { isReading, readBatchHead, type SeedState } from './wire.js'
import type { FleetBeacon, FleetDescriber, PositionEstimator } from './fleet-beacon.js'
import {
  DEFAULT_GONE_TIMEOUT_MS,
  DEFAULT_MAX_BEACONS,
  DEFAULT_MAX_CLOCK_OFFSET_MS,
  type FleetStateEvents,
  type FleetStateOptions,
  type FleetStateStats,
} from './fleet-state-options.js'
import { hearFrom, seededRecord, viewOf, type Fused } from './fused-beacon.js'
import { BeaconPlacer } from './placement.js'
import type { Site } from '../positioning/site.js'
import type { RoomLocator } from '../positioning/room-locator.js'

/** One step of a tick's placing (see {@link FleetState.beginTick}). */
export interface TickStep {
  /**
   * Ask the positioner for new positions (default true); false decides the rooms from the
   * previous positions (counted in `positionsDeferred`).
   */
  estimate?: boolean
  /** Beacons placed in this step (default: the tick's `chunk`). */
  count?: number
}

/** The fused state of a fleet. */
export class FleetState {
  private readonly counters = {
    batches: 0,
    observations: 0,
    malformed: 0,
    skippedReadings: 0,
    clockRejected: 0,
    positionsDeferred: 0,
    staleStatuses: 0,
  }
  /** Where the next tick starts placing: just past the last beacon a tick positioned. */
  private placeCursor = 0
  private readonly beacons = new Map<string, Fused>()
  private readonly gateways: GatewayRegistry
  private readonly maxBeacons: number
  private readonly maxBatchReadings: number
  private readonly admission: BeaconAdmission
  private readonly goneTimeoutMs: number
  private readonly hearingMs: number
  private readonly maxClockOffsetMs: number
  private readonly clockRefusals = new ClockRefusals()
  private readonly placer: BeaconPlacer
  private site: Site | undefined

  constructor(
    private readonly options: FleetStateOptions,
    private readonly on: FleetStateEvents,
    private readonly describe?: FleetDescriber,
  ) {
    this.goneTimeoutMs = options.goneTimeoutMs ?? DEFAULT_GONE_TIMEOUT_MS
    this.hearingMs = options.hearingMs ?? 10_000
    this.maxBeacons = options.maxBeacons ?? DEFAULT_MAX_BEACONS
    this.placer = new BeaconPlacer(options, {
      moved: (b, now) => this.on.moved(viewOf(b, now, this.describe)),
      room: (b, now, change) => this.on.room(viewOf(b, now, this.describe), change),
      floor: (b, now, change) => this.on.floor?.(viewOf(b, now, this.describe), change),
      online: (g, now) => this.gateways.stateOf(g, now) === 'online',
    })
    this.maxBatchReadings = countOption(options.maxBatchReadings, 'maxBatchReadings', 20_000)
    this.admission = new BeaconAdmission(
      {
        maxBeacons: this.maxBeacons,
        maxBeaconsPerGateway: countOption(options.maxBeaconsPerGateway, 'maxBeaconsPerGateway', 20_000),
        ...(options.site === undefined ? {} : { site: options.site }),
        ...(options.holdsIdentity === undefined ? {} : { holdsIdentity: options.holdsIdentity }),
      },
      {
        size: () => this.beacons.size,
        lastSeen: (id) => this.beacons.get(id)?.lastSeen,
        evict: (id, now) => {
          const b = this.beacons.get(id)
          if (b !== undefined) this.drop(b, now, { evicted: true })
        },
      },
    )
    this.maxClockOffsetMs = options.maxClockOffsetMs ?? DEFAULT_MAX_CLOCK_OFFSET_MS
    // Forgetting a gateway sooner than its readings stop counting would orphan them.
    this.site = options.site
    this.gateways = new GatewayRegistry(
      options.maxGateways ?? 10_000,
      Math.max(options.gatewayForgetMs ?? 600_000, this.hearingMs),
      (id) => this.site?.anchor(id) !== undefined,
      (id, now, how) => this.forgotten(id, now, how),
    )
  }

  /**
   * A new site from the next placing on (FleetTracker.setSite): its gateways admitted first, its
   * rooms decided by `rooms` (the plan method) or else the strongest gateway, positions by
   * `positioner` (none: undefined). A beacon in a room that went is placed anew (no `from`).
   */
  setSite(site: Site | undefined, rooms: RoomLocator | undefined, positioner: PositionEstimator | undefined): void {
    this.site = site
    this.admission.setSite(site)
    this.placer.setSite(site, rooms, positioner)
    const names = new Set(site?.rooms.map((r) => r.name))
    for (const b of this.beacons.values())
      if (b.room !== undefined && !names.has(b.room)) [b.room, b.candidate] = [undefined, undefined]
  }

  /** Counters (a copy). */
  get stats(): FleetStateStats {
    const a = this.admission.counters
    return {
      ...this.counters,
      clockRefusedGateways: this.clockRefusals.size,
      droppedBeacons: a.full,
      refusedBeacons: a.overQuota,
      evictedBeacons: a.evicted,
      droppedGateways: this.gateways.refused,
      gateways: this.gateways.size,
    }
  }

  /**
   * Whether beacons are positioned (a positioner was given): placing one is then a filter update, not
   * a few comparisons.
   */
  get positioned(): boolean {
    return this.placer.positioned
  }

  /** Number of beacons present. */
  get size(): number {
    return this.beacons.size
  }

  /** What the fleet can say of `gateway` now (gateway-registry.ts, `stateOf`). */
  gatewayState(gateway: string, now: number): GatewayState {
    return this.gateways.stateOf(gateway, now)
  }

  /** The gateways known now, silent longest first. */
  gatewayIds(): IterableIterator<string> {
    return this.gateways.ids()
  }

  /** The gateway's clock offset estimate (tracker minus gateway, ms). */
  offsetOf(gateway: string): number | undefined {
    return this.gateways.get(gateway)?.offset.offsetMs
  }

  /**
   * Takes one RSSI batch that arrived at `arrival` (tracker clock), from the topic of gateway
   * `from` when known. Anything not of the published shape (or naming another gateway than its
   * topic) is skipped and counted, never thrown: batches come from the network. True when the
   * batch was taken (its gateway known to the registry), whatever its readings held.
   */
  ingest(batch: unknown, arrival: number, from?: string): boolean {
    const head = readBatchHead(batch, from)
    if (head === undefined) {
      this.counters.malformed++
      return false
    }
    const { gateway, time, readings } = head
    // Checked before the gateway is touched: a rejected batch makes no registry entry.
    if (!(Math.abs(arrival - time) <= this.maxClockOffsetMs)) {
      this.counters.clockRejected++
      if (this.clockRefusals.refuse(gateway)) this.on.gatewayClock?.(gateway, true, arrival - time)
      return false
    }
    const record = this.gateways.touch(gateway, arrival, 'batch')
    if (record === undefined) return false
    if (this.clockRefusals.accept(gateway)) this.on.gatewayClock?.(gateway, false, arrival - time)
    this.counters.batches++
    const offset = record.offset
    offset.sample(time, arrival)
    // A batch holds what one gateway heard in a second: past the bound it is a flood, not a site.
    const n = Math.min(readings.length, this.maxBatchReadings)
    this.counters.skippedReadings += readings.length - n
    for (let i = 0; i < n; i++) {
      const r: unknown = readings[i]
      if (!isReading(r)) {
        this.counters.malformed++
        continue
      }
      this.observe(gateway, r, offset.toTracker(r.lastSeen, arrival))
    }
    return true
  }

  private observe(gateway: string, r: RssiReading, seen: number): void {
    this.counters.observations++
    let b = this.beacons.get(r.id)
    const fresh = b === undefined
    if (b === undefined) {
      if (!this.admission.admit(r.id, gateway, seen)) return
      b = { id: r.id, gateways: [], firstSeen: seen, lastSeen: seen, candidateSince: 0 }
      this.beacons.set(r.id, b)
    } else this.admission.heard(r.id, gateway)
    hearFrom(b, gateway, r, seen)
    this.options.away?.heard(r.id, gateway, seen)
    this.placer.observe({ time: seen, anchor: gateway, beacon: r.id, rssi: r.rssi })
    if (fresh) {
      this.placer.place(b, seen)
      this.on.found(viewOf(b, seen, this.describe))
    }
  }

  /**
   * A gateway's status arrived; true when it changed. Offline (its last will, or a clean
   * close): its readings stop counting at once and its beacons are re-decided from the gateways
   * that remain. None is dropped for it: a beacon only that gateway heard goes by the gone
   * timeout like any other. `sentAt`: the status's own `time`; one sent `gatewayForgetMs` or more
   * before `now` (a retained status of an earlier run) is skipped and counted.
   */
  gatewayStatus(gateway: string, state: 'online' | 'offline', now: number, sentAt?: number): boolean {
    if (sentAt !== undefined && this.gateways.stale(gateway, sentAt, now)) {
      this.counters.staleStatuses++
      return false
    }
    const record = this.gateways.touch(gateway, now, 'status')
    if (record === undefined) return false
    if (state === 'offline') this.gatewayOffline(gateway, now)
    if (record.status === state) return false
    record.status = state
    return true
  }

  /**
   * The registry let a gateway go. An evicted one may still hold readings: they stop counting. A
   * silent one holds none younger than the forget time (≥ hearingMs), which this tick drops.
   */
  private forgotten(gateway: string, now: number, { evicted }: { evicted: boolean }): void {
    if (evicted) this.gatewayOffline(gateway, now)
    this.on.gatewayForgotten?.(gateway)
  }

  /** See {@link gatewayStatus}: a gateway's readings stop counting. */
  gatewayOffline(gateway: string, now: number): void {
    for (const b of this.beacons.values()) {
      const i = b.gateways.findIndex((g) => g.gateway === gateway)
      if (i >= 0) {
        b.gateways.splice(i, 1)
        this.placer.place(b, now)
      }
    }
  }

  /**
   * Takes over a beacon from the retained state another tracker left (scale-out): no `found`,
   * and its room is kept, so a handover is invisible. A beacon already tracked is left alone.
   */
  seed(s: SeedState, now: number): boolean {
    if (this.beacons.has(s.id) || this.beacons.size >= this.maxBeacons) return false
    const b = seededRecord(s, now)
    this.beacons.set(s.id, b)
    this.admission.adopt(
      s.id,
      b.gateways.map((g) => g.gateway),
    )
    return true
  }

  /**
   * Lets go of the beacons `which` selects without a `gone` (another tracker took them over);
   * returns how many.
   */
  release(which: (id: string) => boolean): number {
    let n = 0
    for (const id of this.beacons.keys()) {
      if (!which(id)) continue
      this.beacons.delete(id)
      this.admission.forget(id)
      this.placer.forget(id)
      this.options.away?.forget(id)
      n++
    }
    return n
  }

  /**
   * Moves the state to `now`: gateways that stopped hearing a beacon drop out of it, rooms and
   * positions are decided again, and beacons no gateway heard for the gone timeout go.
   */
  tick(now: number): void {
    this.beginTick(now)()
  }

  /**
   * {@link tick} in steps: drops the gone beacons and the stale readings at once, and returns
   * a step that decides the rooms and positions of the next `chunk` beacons (all as of `now`),
   * true once every beacon is done. With a positioner a beacon's decision is a filter update
   * (tens of µs), so a fleet of 12,500 beacons in one step would hold the event loop for most
   * of a second; the tracker runs the steps with its own messages in between. A step told not
   * to `estimate` decides rooms from the previous positions (counted in `positionsDeferred`);
   * the next tick starts with those beacons, so every one is positioned in turn. A step given
   * a `count` places that many instead of `chunk` (a positioner on another thread answered for
   * the first `count` of {@link tickOrder}).
   */
  beginTick(now: number, chunk = Infinity): (step?: TickStep) => boolean {
    this.gateways.sweep(now)
    const due: Fused[] = []
    for (const b of this.beacons.values()) {
      if (this.gone(b, now)) {
        this.drop(b, now)
        continue
      }
      let kept = 0
      // A slow tag (a packet every 10 s) is still heard between its packets (#39, the away rule's interval).
      const interval = this.options.away?.intervalOf(b.id)
      const hearing = interval === undefined ? this.hearingMs : Math.max(this.hearingMs, 2.5 * interval)
      for (const g of b.gateways) if (now - g.lastSeen < hearing) b.gateways[kept++] = g
      b.gateways.length = kept
      due.push(b)
    }
    const n = due.length
    const start = this.firstPlaced(n)
    let i = 0
    let estimated = 0
    const positioned = this.positioned
    return ({ estimate = true, count = chunk } = {}) => {
      const end = Math.min(n, i + count)
      for (; i < end; i++) {
        const b = due[(start + i) % n]
        // A beacon released or forgotten between steps is not placed again.
        if (this.beacons.get(b.id) !== b) continue
        if (estimate) estimated++
        else if (positioned) this.counters.positionsDeferred++
        this.placer.place(b, now, { estimate })
      }
      if (i < n) return false
      this.placeCursor = start + estimated
      return true
    }
  }

  /** The time a tick at `now` asks positions for (placement.ts, `positionTime`). */
  positionTime(now: number): number {
    return this.placer.positionTime(now)
  }

  /**
   * The beacons a tick at `now` would place, in the order it would place them (the gone ones
   * left out): what to ask a positioner on another thread for before the tick (see `prepare`).
   */
  tickOrder(now: number): string[] {
    const ids: string[] = []
    for (const b of this.beacons.values()) if (!this.gone(b, now)) ids.push(b.id)
    const start = this.firstPlaced(ids.length)
    return [...ids.slice(start), ...ids.slice(0, start)]
  }

  /** Where among `n` beacons due a tick starts placing (`beginTick` and `tickOrder` must agree). */
  private firstPlaced(n: number): number {
    return n === 0 ? 0 : this.placeCursor % n
  }

  /** Whether `b` is gone at `now`: by the away rule when given (#39), else by the gone timeout. */
  private gone(b: Fused, now: number): boolean {
    const away = this.options.away
    if (away === undefined || away.lastHeard(b.id) === undefined) return now - b.lastSeen >= this.goneTimeoutMs
    return away.away(b.id, now, (g) => this.gateways.stateOf(g, now) === 'online')
  }

  /** The beacon goes: forgotten everywhere, then reported (`evicted`: for a stronger claim, not by the timeout). */
  private drop(b: Fused, now: number, { evicted = false }: { evicted?: boolean } = {}): void {
    this.beacons.delete(b.id)
    this.admission.forget(b.id)
    this.placer.forget(b.id)
    this.options.away?.forget(b.id)
    this.on.gone(viewOf(b, now, this.describe), evicted)
  }

  /** Every beacon present (or those `which` selects), strongest gateway first within each. */
  list(now: number, which?: (id: string) => boolean): FleetBeacon[] {
    const out: FleetBeacon[] = []
    for (const b of this.beacons.values())
      if (which === undefined || which(b.id)) out.push(viewOf(b, now, this.describe))
    return out
  }

  /** One beacon, if present. */
  get(id: string, now: number): FleetBeacon | undefined {
    const b = this.beacons.get(id)
    return b === undefined ? undefined : viewOf(b, now, this.describe)
  }
}
