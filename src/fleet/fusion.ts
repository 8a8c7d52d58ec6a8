/**
 * The fused view of many gateways: one record per beacon, fed by every gateway's per-second
 * RSSI batch (docs/mqtt.md; the shapes are the publisher's own, from mqtt/payloads.ts). A beacon is present while any gateway hears it, so one
 * gateway losing it never makes it go; it goes when no gateway has heard it for the gone
 * timeout. Pure state driven by `ingest` and `tick` with the caller's time: no I/O, no timers,
 * so the tracker can run it on a real clock and tests on a virtual one.
 */
import { accuracy } from '../decode/distance.js'
import { BeaconAdmission, countOption } from './admission.js'
import { GatewayRegistry } from './gateway-registry.js'
import { ClockRefusals } from './clock-refusals.js'
import type { GatewayState } from './gateway-registry.js'
import { decideRoom, type RoomChange, type RoomOptions, type RoomState } from './room-choice.js'
import type { Site } from '../positioning/site.js'
import type { RssiBatch, RssiReading } from '../mqtt/payloads.js'
import { GATEWAY_ID, isReading, type SeedState } from './wire.js'
import type { FleetValues } from './beacon-values.js'

/** What one gateway hears of a beacon. */
export interface FleetGatewayReading {
  gateway: string
  /** Smoothed RSSI, dBm. */
  rssi: number
  /** Metres from the measured power, when the beacon sends one. */
  distance?: number
  /** ms on the tracker's clock. */
  lastSeen: number
}

/** A position estimate on the site's plan. */
export interface FleetPosition {
  x: number
  y: number
  /** Metres, a 1-sigma-like radius. */
  accuracy: number
}

/** One fused beacon, the payload of `<p>/fleet/beacons/<id>`. */
export interface FleetBeacon {
  id: string
  /** ms on the tracker's clock: when this view was taken. */
  time: number
  present: true
  room?: string
  position?: FleetPosition
  /** The gateways hearing it now, strongest first. */
  gateways: FleetGatewayReading[]
  firstSeen: number
  lastSeen: number
  /** Its name, from the site file's `beacons` list (beacon-names.ts). */
  name?: string
  /** Its own readings, freshest from any known gateway's `<p>/gateways/<gw>/beacons/<id>` state (beacon-values.ts). */
  values?: FleetValues
}

/** What a holder of the fused state adds to a beacon's view: its name and its own readings. */
export type FleetDescriber = (id: string) => { name?: string; values?: FleetValues } | undefined

/** Something that estimates positions from observations (the positioning engine's `Positioner`). */
export interface PositionEstimator {
  observe(o: { time: number; anchor: string; beacon: string; rssi: number }): void
  estimate(beacon: string, time: number): (FleetPosition & { room?: string }) | undefined
  /** Lets go of a beacon's state. */
  forget?(beacon: string): void
  /**
   * Estimates `beacons` at `time` elsewhere (another thread), in this order, as far as
   * `budgetMs` allows; resolves with how many, from the first, were estimated — `estimate` then
   * returns theirs. Undefined when it cannot (then `estimate` does the work itself).
   */
  prepare?(beacons: readonly string[], time: number, budgetMs: number): Promise<number> | undefined
  /**
   * ms of the steps its estimates are cut into, if it has them: the fused state then asks for
   * positions at whole steps (see {@link FleetState.positionTime}).
   */
  readonly stepMs?: number
}

/** How long a new beacon's first room waits for the other gateways' batches (one batch interval). */
const FIRST_ROOM_WAIT_MS = 1000

/** Default of {@link FleetStateOptions.goneTimeoutMs}. */
export const DEFAULT_GONE_TIMEOUT_MS = 30_000

/** Default of {@link FleetStateOptions.maxBeacons}. */
export const DEFAULT_MAX_BEACONS = 100_000

/** Options of {@link FleetState}. */
export interface FleetStateOptions extends RoomOptions {
  site?: Site
  /** No gateway heard it for this long: gone (default 30000 ms). */
  goneTimeoutMs?: number
  /** A gateway counts as hearing a beacon for this long after its latest reading (default 10000 ms). */
  hearingMs?: number
  /** Positions for beacons, when the site has anchor positions. */
  positioner?: PositionEstimator
  /**
   * A position this many metres or more from where `moved` last reported the beacon (or first
   * placed it) is reported as `moved` (default 1); less is not.
   */
  moveThresholdM?: number
  /**
   * A position counts as evidence for the room it lies in only when its accuracy radius is at
   * most this many metres (default 4): a filter that has just started spreads its first
   * estimates over the whole plan, and their centre names a room the beacon may not be in.
   */
  roomAccuracyM?: number
  /**
   * Beacons tracked at most (default 100000). When full, a new beacon with a stronger claim
   * (heard by a site gateway, a stable identity) evicts the least recently heard beacon of the
   * weakest claim (`evictedBeacons`, with a `gone`); otherwise it is skipped (`droppedBeacons`).
   */
  maxBeacons?: number
  /**
   * New beacons one gateway id may introduce into the table, counted while they are tracked
   * (default 20000, twice what a gateway at 10,000 beacons hears): one client flooding fake ids
   * under one gateway id cannot fill it. Beyond it: skipped and counted in `refusedBeacons`.
   */
  maxBeaconsPerGateway?: number
  /**
   * Readings read from one batch at most (default 20000, the same reasoning); the rest of the
   * batch is skipped and counted in `skippedReadings`.
   */
  maxBatchReadings?: number
  /** Gateways known at most; a new one beyond is skipped and counted in `droppedGateways` (default 10000). */
  maxGateways?: number
  /** A gateway that sent nothing (no batch, no status) for this long is forgotten, whatever its last status (default 600000 ms). */
  gatewayForgetMs?: number
  /**
   * A batch whose `time` is further than this from its arrival is skipped and counted in
   * `clockRejected` (default 30 days): a Pi without a real-time clock boots at the time it last
   * saved (fake-hwclock), hours or days behind until NTP answers, but never a month; a stamp
   * further off is hostile or a clock at 1970, and would shift every reading of the gateway.
   */
  maxClockOffsetMs?: number
}

/** Default of {@link FleetStateOptions.maxClockOffsetMs}: 30 days. */
export const DEFAULT_MAX_CLOCK_OFFSET_MS = 30 * 24 * 3600 * 1000

/** What the fused state reports. */
export interface FleetStateEvents {
  found(b: FleetBeacon): void
  /** `evicted`: dropped to make room for a beacon with a stronger claim, not gone by the timeout. */
  gone(b: FleetBeacon, evicted?: boolean): void
  room(b: FleetBeacon, change: RoomChange): void
  moved(b: FleetBeacon): void
  /**
   * A gateway was forgotten: silent for `gatewayForgetMs`, or evicted to make room for a site
   * gateway or one that sends batches (its readings no longer count). Lists of gateways kept elsewhere drop it too.
   */
  gatewayForgotten?(gateway: string): void
  /**
   * A gateway's batches are refused for their clock (`refused`, its first such batch; `offsetMs`
   * is arrival minus stamp) or, after that, taken again. Once each way per gateway.
   */
  gatewayClock?(gateway: string, refused: boolean, offsetMs: number): void
}

/** Counters of the fused state. */
export interface FleetStateStats {
  batches: number
  observations: number
  /** Batches or readings that were not of the published shape (skipped). */
  malformed: number
  /** Readings of new beacons skipped because `maxBeacons` were tracked and none had a weaker claim. */
  droppedBeacons: number
  /** Readings of new beacons skipped because their gateway had introduced `maxBeaconsPerGateway`. */
  refusedBeacons: number
  /** Beacons forgotten (with a `gone`) to make room for a new one with a stronger claim. */
  evictedBeacons: number
  /** Readings beyond `maxBatchReadings` in a batch (skipped). */
  skippedReadings: number
  /** Batches and statuses of new gateways skipped because `maxGateways` were known. */
  droppedGateways: number
  /** Gateways known now. */
  gateways: number
  /** Statuses skipped because they were sent `gatewayForgetMs` or more before they arrived (retained leftovers). */
  staleStatuses: number
  /** Batches skipped because their `time` was more than `maxClockOffsetMs` from their arrival. */
  clockRejected: number
  /** Gateways whose batches are refused for their clock now (their latest batch was; at most 100 known). */
  clockRefusedGateways: number
  /**
   * Ticks' room decisions made from a beacon's previous position because the tick's time for
   * positioning was spent (see `FleetState.beginTick`): a tracker short of CPU updates positions
   * less often instead of falling behind its messages.
   */
  positionsDeferred: number
}

interface Fused extends RoomState {
  id: string
  gateways: FleetGatewayReading[]
  firstSeen: number
  lastSeen: number
  position?: FleetPosition
  /**
   * Where it was when `moved` last reported it (or first placed): a move is measured from here,
   * not from the previous tick, so a tag walking slower than `moveThresholdM` a second still moves.
   */
  reported?: FleetPosition
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
  private readonly evidence = new Map<string, number>()
  private readonly goneTimeoutMs: number
  private readonly hearingMs: number
  private readonly dwellMs: number
  private readonly marginDb: number
  private readonly moveThresholdM: number
  private readonly roomAccuracyM: number
  private readonly maxClockOffsetMs: number
  private readonly clockRefusals = new ClockRefusals()

  constructor(
    private readonly options: FleetStateOptions,
    private readonly on: FleetStateEvents,
    private readonly describe?: FleetDescriber,
  ) {
    this.goneTimeoutMs = options.goneTimeoutMs ?? DEFAULT_GONE_TIMEOUT_MS
    this.hearingMs = options.hearingMs ?? 10_000
    this.dwellMs = options.dwellMs ?? 4_000
    this.marginDb = options.marginDb ?? 3
    this.moveThresholdM = options.moveThresholdM ?? 1
    this.roomAccuracyM = options.roomAccuracyM ?? 4
    this.maxBeacons = options.maxBeacons ?? DEFAULT_MAX_BEACONS
    this.maxBatchReadings = countOption(options.maxBatchReadings, 'maxBatchReadings', 20_000)
    this.admission = new BeaconAdmission(
      {
        maxBeacons: this.maxBeacons,
        maxBeaconsPerGateway: countOption(options.maxBeaconsPerGateway, 'maxBeaconsPerGateway', 20_000),
        ...(options.site === undefined ? {} : { site: options.site }),
      },
      {
        size: () => this.beacons.size,
        lastSeen: (id) => this.beacons.get(id)?.lastSeen,
        evict: (id, now) => {
          const b = this.beacons.get(id)
          if (b !== undefined) this.drop(b, now, true)
        },
      },
    )
    this.maxClockOffsetMs = options.maxClockOffsetMs ?? DEFAULT_MAX_CLOCK_OFFSET_MS
    // Forgetting a gateway sooner than its readings stop counting would orphan them.
    const site = options.site
    this.gateways = new GatewayRegistry(
      options.maxGateways ?? 10_000,
      Math.max(options.gatewayForgetMs ?? 600_000, this.hearingMs),
      (id) => site?.anchor(id) !== undefined,
      (id, now, evicted) => this.forgotten(id, now, evicted),
    )
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

  /** Whether beacons are positioned (a positioner was given): placing one is then a filter update, not a few comparisons. */
  get positioned(): boolean {
    return this.options.positioner !== undefined
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
    if (typeof batch !== 'object' || batch === null) {
      this.counters.malformed++
      return false
    }
    const { gateway, time, readings } = batch as Partial<RssiBatch>
    if (
      typeof gateway !== 'string' ||
      !GATEWAY_ID.test(gateway) ||
      (from !== undefined && gateway !== from) ||
      typeof time !== 'number' ||
      !Number.isFinite(time) ||
      !Array.isArray(readings)
    ) {
      this.counters.malformed++
      return false
    }
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
    let g: FleetGatewayReading | undefined
    for (const x of b.gateways) if (x.gateway === gateway) g = x
    if (g === undefined) b.gateways.push((g = { gateway, rssi: r.rssi, lastSeen: seen }))
    // A batch delayed in transit must not move time backwards.
    if (seen >= g.lastSeen) {
      g.rssi = r.rssi
      g.lastSeen = seen
      const d = accuracy(Math.round(r.rssi), r.measuredPower)
      if (d >= 0) g.distance = d
      else delete g.distance
    }
    if (seen > b.lastSeen) b.lastSeen = seen
    this.options.positioner?.observe({ time: seen, anchor: gateway, beacon: r.id, rssi: r.rssi })
    if (fresh) {
      this.place(b, seen)
      this.on.found(this.view(b, seen))
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
  private forgotten(gateway: string, now: number, evicted: boolean): void {
    if (evicted) this.gatewayOffline(gateway, now)
    this.on.gatewayForgotten?.(gateway)
  }

  /** See {@link gatewayStatus}: a gateway's readings stop counting. */
  gatewayOffline(gateway: string, now: number): void {
    for (const b of this.beacons.values()) {
      const i = b.gateways.findIndex((g) => g.gateway === gateway)
      if (i >= 0) {
        b.gateways.splice(i, 1)
        this.place(b, now)
      }
    }
  }

  /**
   * Takes over a beacon from the retained state another tracker left (scale-out): no `found`,
   * and its room is kept, so a handover is invisible. A beacon already tracked is left alone.
   */
  seed(s: SeedState, now: number): boolean {
    if (this.beacons.has(s.id) || this.beacons.size >= this.maxBeacons) return false
    // Times come from another process's clock: never in the future of this one.
    const gateways = s.gateways.map((g) => ({ ...g, lastSeen: Math.min(g.lastSeen, now) }))
    const b: Fused = {
      id: s.id,
      gateways,
      firstSeen: Math.min(s.firstSeen, now),
      lastSeen: Math.min(s.lastSeen, now),
      candidateSince: 0,
    }
    if (s.room !== undefined) b.room = s.room
    this.beacons.set(s.id, b)
    this.admission.adopt(
      s.id,
      gateways.map((g) => g.gateway),
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
      this.options.positioner?.forget?.(id)
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
  beginTick(now: number, chunk = Infinity): (estimate?: boolean, count?: number) => boolean {
    this.gateways.sweep(now)
    const due: Fused[] = []
    for (const b of this.beacons.values()) {
      if (now - b.lastSeen >= this.goneTimeoutMs) {
        this.drop(b, now)
        continue
      }
      let kept = 0
      for (const g of b.gateways) if (now - g.lastSeen < this.hearingMs) b.gateways[kept++] = g
      b.gateways.length = kept
      due.push(b)
    }
    const n = due.length
    const start = this.firstPlaced(n)
    let i = 0
    let estimated = 0
    const positioned = this.positioned
    return (estimate = true, count = chunk) => {
      const end = Math.min(n, i + count)
      for (; i < end; i++) {
        const b = due[(start + i) % n]
        // A beacon released or forgotten between steps is not placed again.
        if (this.beacons.get(b.id) !== b) continue
        if (estimate) estimated++
        else if (positioned) this.counters.positionsDeferred++
        this.place(b, now, estimate)
      }
      if (i < n) return false
      this.placeCursor = start + estimated
      return true
    }
  }

  /**
   * The time a tick at `now` asks positions for: the last whole step of the positioner (a
   * second, for the grid filter) at or before `now`. An estimate's newest packets then make one
   * whole step, which the next tick folds in for good by taking the estimate over; at any other
   * time they straddle two steps, and every beacon cost two updates for each estimate and two
   * more to fold them for good. A tracker's tick falls just after a whole second (see
   * `FleetTracker.start`), so the position is as of a few ms before the tick.
   */
  positionTime(now: number): number {
    const step = this.options.positioner?.stepMs
    return step === undefined || !(step > 0) ? now : Math.floor(now / step) * step
  }

  /**
   * The beacons a tick at `now` would place, in the order it would place them (the gone ones
   * left out): what to ask a positioner on another thread for before the tick (see `prepare`).
   */
  tickOrder(now: number): string[] {
    const ids: string[] = []
    for (const b of this.beacons.values()) if (now - b.lastSeen < this.goneTimeoutMs) ids.push(b.id)
    const start = this.firstPlaced(ids.length)
    return [...ids.slice(start), ...ids.slice(0, start)]
  }

  /** Where among `n` beacons due a tick starts placing (`beginTick` and `tickOrder` must agree). */
  private firstPlaced(n: number): number {
    return n === 0 ? 0 : this.placeCursor % n
  }

  /** The beacon goes: forgotten everywhere, then reported (`evicted`: for a stronger claim, not by the timeout). */
  private drop(b: Fused, now: number, evicted = false): void {
    this.beacons.delete(b.id)
    this.admission.forget(b.id)
    this.options.positioner?.forget?.(b.id)
    this.on.gone(this.view(b, now), evicted)
  }

  /** Every beacon present (or those `which` selects), strongest gateway first within each. */
  list(now: number, which?: (id: string) => boolean): FleetBeacon[] {
    const out: FleetBeacon[] = []
    for (const b of this.beacons.values()) if (which === undefined || which(b.id)) out.push(this.view(b, now))
    return out
  }

  /** One beacon, if present. */
  get(id: string, now: number): FleetBeacon | undefined {
    const b = this.beacons.get(id)
    return b === undefined ? undefined : this.view(b, now)
  }

  private place(b: Fused, now: number, estimate = true): void {
    const site = this.options.site
    const fix: { x: number; y: number; accuracy: number; room?: string } | undefined = estimate
      ? this.options.positioner?.estimate(b.id, this.positionTime(now))
      : b.position
    if (fix !== undefined) {
      const was = b.reported
      const position = { x: fix.x, y: fix.y, accuracy: fix.accuracy }
      b.position = position
      if (was === undefined) b.reported = position
      else if (Math.hypot(was.x - position.x, was.y - position.y) >= this.moveThresholdM) {
        b.reported = position
        this.on.moved(this.view(b, now))
      }
    }
    if (site === undefined) return
    // Evidence per room: its strongest gateway; a position inside a room's polygon counts as
    // that room leading by the margin, so a positioned beacon follows the plan.
    // One map reused for every beacon: a new one per beacon per tick was most of the tick's garbage.
    const evidence = this.evidence
    evidence.clear()
    for (const g of b.gateways) {
      const room = site.anchor(g.gateway)?.room
      if (room !== undefined && g.rssi > (evidence.get(room) ?? -Infinity)) evidence.set(room, g.rssi)
    }
    const at =
      fix === undefined || fix.accuracy > this.roomAccuracyM ? undefined : (fix.room ?? site.roomAt(fix.x, fix.y))
    if (at !== undefined) {
      let best = -Infinity
      for (const v of evidence.values()) if (v > best) best = v
      evidence.set(at, (best === -Infinity ? -100 : best) + this.marginDb)
    }
    // A beacon just found has been heard by whichever gateway's batch came first; its first
    // room waits one batch interval so that every gateway hearing it has had its say.
    if (b.room === undefined && now - b.firstSeen < FIRST_ROOM_WAIT_MS) return
    const change = decideRoom(b, evidence, now, this.dwellMs, this.marginDb)
    if (change !== undefined) this.on.room(this.view(b, now), change)
  }

  private view(b: Fused, now: number): FleetBeacon {
    const gateways = b.gateways.map((g) => ({ ...g })).sort((x, y) => y.rssi - x.rssi)
    const out: FleetBeacon = {
      id: b.id,
      time: now,
      present: true,
      gateways,
      firstSeen: b.firstSeen,
      lastSeen: b.lastSeen,
    }
    if (b.room !== undefined) out.room = b.room
    if (b.position !== undefined) out.position = { ...b.position }
    const more = this.describe?.(b.id)
    if (more?.name !== undefined) out.name = more.name
    if (more?.values !== undefined) out.values = more.values
    return out
  }
}
