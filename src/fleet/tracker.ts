/**
 * FleetTracker: the central side of the MQTT contract (docs/fleet.md). It listens to every
 * gateway's status and RSSI batches through a broker, keeps the fused state of fusion.ts on a
 * clock, and publishes that state back as retained `<p>/fleet/beacons/<id>` messages.
 */

import type { EventEmitter } from 'eventemitter3'
import { setImmediate } from 'node:timers'
import { performance } from 'node:perf_hooks'
import { inspect } from 'node:util'
import { RealClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError, MqttError } from '../errors.js'
import { SafeEmitter } from '../range/safe-emitter.js'
import type { EventIterator } from '../scanner/event-stream.js'
import type { MqttLink } from '../mqtt/connection.js'
import { ackWarning, watchAck } from '../mqtt/inflight.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import { Outbox } from '../mqtt/outbox.js'
import { refusedError } from '../mqtt/refusals.js'
import { statusPayload } from '../mqtt/payloads.js'
import { defaultClientId, openLink, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { anyGatewayStatusTopic, checkTopicPrefix, DEFAULT_HA_PREFIX, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import { FleetTopics } from './fleet-topics.js'
import { BeaconFacts } from './beacon-facts.js'
import { DEFAULT_FORGET_AFTER_MS, FleetPresence } from './fleet-presence.js'
import { HaBirthWatch } from '../mqtt/ha-birth.js'
import { DEFAULT_GONE_TIMEOUT_MS, DEFAULT_MAX_BEACONS, FleetState } from './fusion.js'
import { GhostStates } from './ghost-states.js'
import { RetainedReader } from './retained-reader.js'
import { sitePositioner, type SitePositioner } from './site-positioner.js'
import { readGatewayMessage, statusState, statusTime } from './gateway-messages.js'
import type { FleetBeacon, PositionEstimator } from './fusion.js'
import { ScaleOut } from './scale-out.js'
import type { Site } from '../positioning/site.js'
import { UnknownGateways } from './unknown-gateways.js'
import { summarizeGateways } from './gateway-summary.js'
import type { FleetGatewaySummary } from './gateway-summary.js'
import { FleetEventStreams } from './tracker-events.js'
import type { FleetEvent } from './tracker-events.js'
import type { FleetTrackerEvents, FleetTrackerOptions, FleetTrackerStats } from './tracker-types.js'
import { isTopicLevel } from '../util/topic-level.js'
import { forgetCommandTopic, readForgetCommand } from './forget-command.js'

export type {
  FleetGatewayClock,
  FleetGatewayEvent,
  FleetScaleOutOptions,
  FleetTrackerEvents,
  FleetTrackerOptions,
  FleetTrackerStats,
} from './tracker-types.js'
export type { FleetEvent } from './tracker-events.js'

const TICK_MS = 1000
/**
 * Beacons placed per step of a tick when they are positioned: 10–30 ms of filter updates on a
 * large site, so a batch waits about that long behind a tick (see `tick`). A fleet below it, or
 * one without positions, ticks in one go.
 */
const PLACE_STEP = 250

/**
 * ms of each 1 s tick that positioning may take. Half the tick: the rest is for the messages
 * (50,000 readings a second cost about a quarter of a core). A tracker short of CPU then
 * positions each beacon less often instead of falling behind its messages — behind them, its
 * packets arrive late for the filter, whose steps then grow and cost more: a spiral.
 */
const POSITION_BUDGET_MS = 500
/**
 * ms of its own time a positioning thread may take for a tick's estimates. It delays no
 * message, so most of the tick; the rest is for taking in the readings between requests.
 */
const THREAD_BUDGET_MS = 800
/**
 * Default `maxPayloadBytes`: a gateway's batch at 10,000 beacons is about 880 KiB (docs/mqtt.md),
 * and `maxBatchReadings` (20,000) readings of long ids with measured power take about 4 MiB.
 */
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024
/** The packet around a payload: a topic (at most 64 KiB) and MQTT 5 properties. */
const PACKET_OVERHEAD_BYTES = 128 * 1024

/**
 * One fused view of many gateways, from their MQTT topics.
 *
 * ```ts
 * const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1883', site: Site.fromJSON(json) })
 * tracker.on('room', (b, { from, to }) => console.log(b.id, from, '→', to))
 * await tracker.start() // resolves once subscribed
 * // …
 * await tracker.stop()
 * ```
 *
 * mqtt.js is loaded by `start()` only. Listeners are isolated: one that throws is reported as `error`.
 */
export class FleetTracker extends SafeEmitter<FleetTrackerEvents> {
  /** The clock of the fused state. */
  readonly clock: Clock
  readonly topicPrefix: string
  #options: ReturnType<typeof resolvePublisherOptions>
  #link: MqttLink | undefined
  private readonly state: FleetState
  private readonly outbox: Outbox
  private readonly clientId: string | undefined
  private readonly topics: FleetTopics
  /** With Home Assistant: its birth makes every config go out again. */
  private readonly birth: HaBirthWatch | undefined
  private readonly presence: FleetPresence
  /** Names and the gateways' own readings of each beacon. */
  private readonly facts: BeaconFacts
  /** Scale-out coordination, when this tracker shares the beacons with others. */
  private readonly scaleOut: ScaleOut | undefined
  private readonly streams: FleetEventStreams
  private readonly counters = {
    unparsable: 0,
    published: 0,
    oversized: 0,
    invalidIds: 0,
    forgetCommands: 0,
    invalidForgetCommands: 0,
    retainedBatches: 0,
  }
  private readonly maxPayloadBytes: number
  /** Reads the retained fleet states: ghosts at start, seeds of a scale-out takeover. */
  private readonly reader: RetainedReader
  private readonly ghosts: GhostStates
  private readonly unknownGateways: UnknownGateways
  /** The site, if given: its gateways are the ones counted (gateway-summary.ts). */
  private readonly site: Site | undefined
  private ghostsRead = false
  private cancelTick: CancelTimer | undefined
  private starting: Promise<void> | undefined
  private stopped = false
  /** A tick's steps are running (see `tick`). */
  private ticking = false
  /** A tick fell due while one was running. */
  private tickDue = false
  private swept = false
  /** The positioner the tracker made for itself (see site-positioner.ts), if any. */
  private readonly own: SitePositioner | undefined
  /** Its own or the one given (`options.positioner`). */
  private readonly positioner: PositionEstimator | undefined
  private wakeStart: (() => void) | undefined

  constructor(options: FleetTrackerOptions) {
    super()
    // The connection options are the publisher's (url or client, TLS, password file, reconnect).
    this.#options = resolvePublisherOptions({ ...options, gatewayId: 'fleet' })
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
    this.clock = options.clock ?? new RealClock()
    this.clientId = options.clientId
    const interval = options.publishIntervalMs ?? 5000
    if (!Number.isFinite(interval) || interval <= 0)
      throw new InvalidOptionError(
        'invalid_option',
        `publishIntervalMs must be a positive number of ms, e.g. 5000, not ${String(interval)}`,
        { option: 'publishIntervalMs' },
      )
    const size = options.eventBufferSize ?? 10_000
    if (!Number.isInteger(size) || size < 1)
      throw new InvalidOptionError(
        'invalid_option',
        `eventBufferSize must be a positive whole number, e.g. 10000, not ${String(size)}`,
        { option: 'eventBufferSize' },
      )
    this.streams = new FleetEventStreams(size)
    const maxPayload = options.maxPayloadBytes ?? MAX_PAYLOAD_BYTES
    if (!Number.isInteger(maxPayload) || maxPayload < 1024)
      throw new InvalidOptionError(
        'invalid_option',
        `maxPayloadBytes must be a whole number of bytes, at least 1024, e.g. 4194304, not ${String(maxPayload)}`,
        { option: 'maxPayloadBytes' },
      )
    this.maxPayloadBytes = maxPayload
    const ha = this.#options.homeAssistant
    const haPrefix =
      ha === undefined ? undefined : checkTopicPrefix(ha.prefix ?? DEFAULT_HA_PREFIX, 'homeAssistant.prefix')
    const broker = this.#options.url ?? 'the broker'
    this.outbox = new Outbox(
      { maxQueuedEvents: 1, maxInflight: 100, ackTimeoutMs: this.#options.ackTimeoutMs },
      {
        sent: () => this.counters.published++,
        dropped: () => undefined,
        // Reported once per reason; the rest are counted in stats.refused.
        refused: (info) => {
          if (this.outbox.refused[info.reason] === 1) this.emit('error', refusedError(info.reason, info.reasonCode))
        },
        acks: (info) => this.emit('warning', ackWarning(info, broker)),
      },
    )
    this.unknownGateways = new UnknownGateways(options.site)
    this.site = options.site
    const topics = new FleetTopics(
      this.outbox,
      this.topicPrefix,
      interval,
      ha === undefined || haPrefix === undefined
        ? undefined
        : { prefix: haPrefix, availability: options.scaleOut === undefined, gate: ha },
    )
    this.topics = topics
    this.birth = haPrefix === undefined ? undefined : new HaBirthWatch(haPrefix, () => topics.reannounce())
    const forgetAfterMs =
      options.forgetAfterMs ?? (typeof ha === 'object' ? ha.expireMs : undefined) ?? DEFAULT_FORGET_AFTER_MS
    if (!(forgetAfterMs > 0))
      throw new InvalidOptionError(
        'invalid_option',
        `forgetAfterMs must be a positive number of ms, e.g. 604800000 (7 days), not ${String(forgetAfterMs)}`,
        { option: 'forgetAfterMs' },
      )
    const presence = new FleetPresence(
      this.outbox,
      this.topicPrefix,
      options.maxBeacons ?? DEFAULT_MAX_BEACONS,
      forgetAfterMs,
    )
    this.presence = presence
    this.facts = new BeaconFacts(options.site, (gateway) => this.state.offsetOf(gateway) !== undefined)
    this.own = sitePositioner(options, (error) => this.emit('error', error))
    this.positioner = this.own?.positioner ?? options.positioner
    this.state = new FleetState(
      this.own === undefined ? options : { ...options, positioner: this.own.positioner },
      {
        found: (b) => {
          topics.found(b.id, b.time, this.facts.named(b.id))
          topics.put(b)
          presence.present(b)
          this.ghosts.settled(b.id)
          this.emit('found', b)
        },
        gone: (b, evicted) => {
          // Evicted for a stronger claim: forgotten (docs/fleet.md), not merely away.
          if (evicted === true) this.clearBeacon(b.id)
          else {
            topics.gone(b.id, b.time)
            presence.gone(b.id, b.time, b.name)
          }
          this.ghosts.settled(b.id)
          this.emit('gone', b)
        },
        room: (b, change) => {
          topics.put(b)
          presence.present(b)
          this.emit('room', b, change)
        },
        moved: (b) => {
          // A walking tag's retained state follows it at the batches' pace (at most once a second).
          topics.moved(b)
          this.emit('moved', b)
        },
        gatewayForgotten: (gateway) => this.emit('gateway', { gateway, state: 'forgotten', time: this.clock.now() }),
        gatewayClock: (gateway, refused, offsetMs) =>
          this.emit('gatewayClock', { gateway, refused, offsetMs, time: this.clock.now() }),
      },
      (id) => this.facts.describe(id),
    )
    this.scaleOut =
      options.scaleOut === undefined
        ? undefined
        : new ScaleOut(options.scaleOut, this.topicPrefix, {
            link: () => this.#link,
            now: () => this.clock.now(),
            state: this.state,
            topics,
            reader: () => this.reader,
            suspect: (id) => this.ghosts.suspect(id, this.clock.now()),
            changed: (info) => this.emit('partitions', info),
            announce: () => this.outbox.putStatus(this.statusTopic, this.statusPayload('online')),
            error: (error) => this.emit('error', error),
          })
    this.reader = new RetainedReader(this.topicPrefix, `${this.statusTopic}/sync`)
    this.ghosts = new GhostStates(
      options.maxBeacons ?? DEFAULT_MAX_BEACONS,
      options.goneTimeoutMs ?? DEFAULT_GONE_TIMEOUT_MS,
      {
        present: (id) => this.state.get(id, this.clock.now()) !== undefined,
        owns: (id) => this.scaleOut?.holds(id) ?? true,
        clear: (id) => {
          topics.clear(id, true)
          // A present state an earlier run left that no gateway confirmed: the beacon is away.
          presence.ghost(id, this.clock.now(), this.facts.describe(id)?.name)
        },
        backlog: () => this.outbox.pending,
      },
    )
  }

  /** `<p>/fleet/beacons/<id>` */
  beaconTopic(id: string): string {
    return this.topics.beaconTopic(id)
  }

  /** `<p>/fleet/presence/<id>` */
  presenceTopic(id: string): string {
    return this.presence.topic(id)
  }

  /**
   * Forgets a beacon: let go of without a `gone` if it is present, and its fleet state, presence
   * and Home Assistant configs cleared (empty retained). A beacon heard again is found anew (and
   * announced again after the dwell). Throws InvalidOptionError for an id that is no topic level.
   */
  forget(id: string): void {
    if (!isTopicLevel(id))
      throw new InvalidOptionError(
        'invalid_option',
        'forget(id) takes a beacon id as the fleet publishes it (no "/", "+", "#" or control characters)',
        { option: 'id' },
      )
    this.state.release((x) => x === id)
    this.ghosts.settled(id)
    this.clearBeacon(id)
  }

  /** `<p>/fleet/forget`: where `beaconkit fleet forget` asks running trackers to forget a beacon. */
  get forgetTopic(): string {
    return forgetCommandTopic(this.topicPrefix)
  }

  /** Clears every retained topic of a beacon the tracker forgets (docs/fleet.md, "The fleet topics"). */
  private clearBeacon(id: string): void {
    this.topics.forget(id)
    this.presence.forget(id)
  }

  /**
   * The tracker's own retained status, whose last will is `offline`: `<p>/fleet/status`, or
   * with scale-out `<p>/fleet/trackers/<trackerId>` (one per tracker).
   */
  get statusTopic(): string {
    return this.scaleOut?.statusTopic ?? `${this.topicPrefix}/fleet/status`
  }

  /** Scale-out: this tracker's id among the trackers sharing the beacons. */
  get trackerId(): string | undefined {
    return this.scaleOut?.trackerId
  }

  private statusPayload(state: 'online' | 'offline'): string {
    const now = this.clock.now()
    return this.scaleOut?.status(state, now) ?? statusPayload(state, now)
  }

  /** Counters of the fused state and the connection. */
  get stats(): FleetTrackerStats {
    const s = this.state.stats
    const c = this.counters
    const so = this.scaleOut?.counters ?? { seeded: 0, released: 0, unparsable: 0 }
    const unparsable = c.unparsable + so.unparsable
    const f = this.facts.stats
    const stats: FleetTrackerStats = {
      ...s,
      malformed: s.malformed + unparsable,
      unparsable,
      oversized: c.oversized,
      invalidIds: c.invalidIds,
      beaconStates: f,
      presence: this.presence.stats,
      forgetCommands: { done: c.forgetCommands, invalid: c.invalidForgetCommands },
      published: c.published,
      refused: { ...this.outbox.refused },
      eventsDropped: this.streams.dropped,
      seeded: so.seeded,
      released: so.released,
      ghostsCleared: this.ghosts.counters.cleared,
      retainedBatches: c.retainedBatches,
    }
    const ha = this.topics.discoveryStats
    if (ha !== undefined) stats.homeAssistant = ha
    const thread = this.own?.threadStats?.()
    if (thread !== undefined) stats.positioningThread = thread
    return stats
  }

  /**
   * The tracker's events as an async iterable of `{ event, time, ... }` objects. Ends when the
   * tracker stops or `signal` aborts. Up to `eventBufferSize` events wait for a slow consumer;
   * beyond that the oldest are dropped and counted (`iterator.dropped`, `stats.eventsDropped`).
   */
  events(options: { signal?: AbortSignal } = {}): EventIterator<FleetEvent> {
    return this.streams.open(options.signal, this.stopped)
  }

  /** Same as `events()` without a signal: `for await (const e of tracker)`. */
  [Symbol.asyncIterator](): EventIterator<FleetEvent> {
    return this.events()
  }

  /** Every event also goes to the async iterators (as an object), then to the listeners. */
  override emit<T extends EventEmitter.EventNames<FleetTrackerEvents>>(
    event: T,
    ...args: EventEmitter.EventArgs<FleetTrackerEvents, T>
  ): boolean {
    if (this.streams.active) this.streams.push(event, args as unknown[], this.clock.now())
    return super.emit(event, ...args)
  }

  /** The beacons present now, strongest gateway first within each. */
  beacons(): FleetBeacon[] {
    return this.state.list(this.clock.now())
  }

  /** One beacon, if present. */
  get(id: string): FleetBeacon | undefined {
    return this.state.get(id, this.clock.now())
  }

  /** The gateway's estimated clock offset (tracker minus gateway, ms) while the tracker holds a record of it (a batch or a status). */
  clockOffset(gateway: string): number | undefined {
    return this.state.offsetOf(gateway)
  }

  /**
   * The gateways counted now and the others known (gateway-summary.ts): with a site, its gateways
   * (heard or not) and, apart, any other gateway the tracker holds; without one, every gateway it holds.
   */
  gatewaySummary(): FleetGatewaySummary {
    return summarizeGateways(this.state, this.site, this.clock.now())
  }

  /** Shows where it listens, never the client (whose options hold the password). */
  [inspect.custom](): string {
    return `FleetTracker { topicPrefix: '${this.topicPrefix}', beacons: ${this.state.size} }`
  }

  /** What JSON.stringify shows; never credentials. */
  toJSON(): { topicPrefix: string; stats: FleetTrackerStats } {
    return { topicPrefix: this.topicPrefix, stats: this.stats }
  }

  /**
   * Loads mqtt.js, connects, subscribes to `<p>/gateways/+/status` and `<p>/gateways/+/rssi` and
   * starts the 1 s tick. Resolves once subscribed (a broker that is down is retried with backoff
   * meanwhile); rejects with a typed error for what retrying cannot fix (mqtt.js missing, an
   * unreadable password file) and for a tracker already stopped.
   */
  start(): Promise<void> {
    if (this.stopped) return Promise.reject(new MqttError('closed', 'this FleetTracker is stopped; create a new one'))
    this.starting ??= this.open()
    return this.starting
  }

  private async open(): Promise<void> {
    const o = this.#options
    // Trackers that share the beacons need one client id each: the tracker id is unique.
    const defaultId =
      this.scaleOut === undefined ? defaultClientId('fleet') : `beaconkit-fleet-${this.scaleOut.trackerId}`
    const link = await openLink(
      o,
      this.clientId ?? defaultId,
      { topic: this.statusTopic, payload: this.statusPayload('offline') },
      this.maxPayloadBytes + PACKET_OVERHEAD_BYTES,
    )
    if (this.stopped) {
      await link.close()
      return
    }
    this.#link = link
    const subscribed = new Promise<void>((resolve) => {
      this.wakeStart = resolve
    })
    link.on('connected', (protocolVersion, sessionPresent) => void this.onConnected(protocolVersion, sessionPresent))
    link.on('disconnected', () => {
      if (this.stopped) return
      this.outbox.setClient(undefined)
      this.reader.cancel()
      this.scaleOut?.disconnected()
      this.emit('disconnected')
    })
    link.on('error', (error) => this.emit('error', error))
    link.on('message', (topic, payload, retained) => this.onMessage(topic, payload, retained))
    if (link.connected) void this.onConnected(link.protocolVersion)
    // Ticks fall on whole seconds of the clock (a few ms after, as timers do), where the fleet's
    // positioner is cheapest to ask (FleetState.positionTime) and its answer newest.
    const cancelFirst = this.clock.setTimeout(
      () => {
        this.tick()
        this.cancelTick = this.clock.setInterval(() => this.tick(), TICK_MS)
      },
      TICK_MS - (((this.clock.now() % TICK_MS) + TICK_MS) % TICK_MS),
    )
    this.cancelTick = cancelFirst
    await subscribed
  }

  private async onConnected(protocolVersion: 4 | 5, sessionPresent = false): Promise<void> {
    const link = this.#link
    if (this.stopped || link === undefined) return
    try {
      // A clean session forgets subscriptions: subscribe on every connection. With scale-out
      // the partitions come later, once the live trackers are known.
      const so = this.scaleOut
      // Beacon states are not partitioned: every tracker reads them all (bounded: beacon-claims.ts).
      const base = [
        anyGatewayStatusTopic(this.topicPrefix),
        this.reader.syncTopic,
        `${this.topicPrefix}/gateways/+/beacons/+`,
        this.forgetTopic,
      ]
      const filters = so === undefined ? [...base, `${this.topicPrefix}/gateways/+/rssi`] : [...base, ...so.filters]
      await watchAck(
        this.#options.ackTimeoutMs,
        (info) => this.emit('warning', ackWarning(info, this.#options.url ?? 'the broker')),
        link.subscribe(filters, 1),
      )
    } catch (error) {
      // Lost the connection meanwhile: the next `connected` subscribes again. Stopped meanwhile: nothing to say.
      if (this.stopped) return
      this.emit('error', error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (this.stopped) return
    if (this.scaleOut === undefined) this.outbox.putStatus(this.statusTopic, this.statusPayload('online'))
    else this.scaleOut.connected()
    this.outbox.setClient(link.client)
    // No session kept: the broker may have lost its retained messages (restarted without
    // persistence). Not with scale-out, where beacons move between trackers.
    if (!sessionPresent && this.scaleOut === undefined) {
      this.topics.republish(this.state.list(this.clock.now()))
      this.presence.republish()
    }
    this.birth?.connected(link)
    // Configs an earlier run left: once. Not with scale-out, where another tracker may own them.
    if (!this.swept && this.scaleOut === undefined) {
      this.swept = true
      void this.topics.sweep(link, this.clock.now(), (id) => this.facts.describe(id)?.name)
    }
    this.emit('connected', { protocolVersion })
    this.wakeStart?.()
    this.wakeStart = undefined
    if (!this.ghostsRead) this.readGhosts()
  }

  /** Reads the retained states once per start (again when they did not all fit): see ghost-states.ts. */
  private readGhosts(): void {
    const link = this.#link
    if (link === undefined || this.stopped) return
    this.ghostsRead = true
    this.ghosts
      .read(link, this.reader, () => this.clock.now())
      .catch(() => {
        // Lost the connection meanwhile: read again on the next one.
        this.ghostsRead = false
      })
  }

  private onMessage(topic: string, payload: Buffer, retained = false): void {
    // Checked before anything is parsed: the broker may hold anything anyone published.
    if (payload.length > this.maxPayloadBytes) {
      this.counters.oversized++
      return
    }
    if (topic === this.forgetTopic) {
      // A command is sent once; a retained one would forget the beacon again on every connection.
      const id = retained ? undefined : readForgetCommand(payload)
      if (id === undefined) this.counters.invalidForgetCommands++
      else {
        this.counters.forgetCommands++
        this.forget(id)
      }
      return
    }
    // The gateways' own beacon states: names' serial numbers and the fused values.
    if (this.facts.onMessage(this.topicPrefix, topic, payload, this.clock.now())) return
    const m = readGatewayMessage(`${this.topicPrefix}/gateways/`, topic, payload, this.scaleOut !== undefined)
    if (m === 'unparsable') this.counters.unparsable++
    if (m === 'invalid_id') this.counters.invalidIds++
    if (typeof m === 'string') {
      if (m === 'ignore' && !this.reader.onMessage(topic, payload)) this.scaleOut?.onMessage(topic, payload)
      return
    }
    const now = this.clock.now()
    if (m.kind === 'rssi') {
      // Never retained by a gateway: a retained one is an earlier run's, its readings and stamp stale.
      if (retained) this.counters.retainedBatches++
      // Only a batch the fleet took says a gateway is there (not one it refused: malformed, clock).
      else if (this.state.ingest(m.body, now, m.gateway) && this.unknownGateways.firstSight(m.gateway)) {
        this.emit('unknownGateway', { gateway: m.gateway, time: now })
      }
      return
    }
    const state = statusState(m.body)
    if (state === undefined) this.counters.unparsable++
    else if (this.state.gatewayStatus(m.gateway, state, now, statusTime(m.body))) {
      this.emit('gateway', { gateway: m.gateway, state, time: now })
    }
  }

  /**
   * The 1 s tick. Beacons are placed {@link PLACE_STEP} at a time with the tracker's messages
   * in between, so a large positioned fleet does not stall ingest for the whole tick; a tick
   * that falls due while one is still running starts when it ends.
   */
  private tick(): void {
    if (this.ticking) {
      this.tickDue = true
      return
    }
    const now = this.clock.now()
    // A positioner on its own thread estimates this tick's beacons there first; placing them is
    // then a few comparisons each, in one step.
    const order = this.positioner?.prepare === undefined ? [] : this.state.tickOrder(now)
    const ready =
      order.length === 0 ? undefined : this.positioner?.prepare?.(order, this.state.positionTime(now), THREAD_BUDGET_MS)
    if (ready !== undefined) {
      this.ticking = true
      void ready.then((estimated) => {
        if (this.stopped) return
        const place = this.state.beginTick(now)
        if (estimated > 0) place(true, estimated)
        place(false)
        this.tickDone(now)
      })
      return
    }
    // Without positions a beacon's room is a few comparisons: 12,500 take ~40 ms, one step.
    const place = this.state.beginTick(now, this.state.positioned ? PLACE_STEP : Infinity)
    // Positioning may take POSITION_BUDGET_MS of each tick (the steps' own time, not the time
    // between them, when messages are handled); past it the tick's remaining beacons keep their
    // positions.
    let spent = 0
    const step = (): boolean => {
      const t0 = performance.now()
      const done = place(spent < POSITION_BUDGET_MS)
      spent += performance.now() - t0
      return done
    }
    if (step()) {
      this.endTick(now)
      return
    }
    this.ticking = true
    const next = (): void => {
      if (this.stopped) return
      if (!step()) {
        setImmediate(next)
        return
      }
      this.tickDone(now)
    }
    setImmediate(next)
  }

  /** A tick that ran in steps (or waited for its positioning thread) has placed every beacon: its end, and the tick that fell due meanwhile. */
  private tickDone(now: number): void {
    this.ticking = false
    this.endTick(now)
    if (this.tickDue) {
      this.tickDue = false
      this.tick()
    }
  }

  /** The rest of a tick once every beacon is placed: publishing and events. */
  private endTick(now: number): void {
    this.scaleOut?.tick(now)
    this.ghosts.tick(now)
    this.presence.tick(now)
    if (this.ghosts.wantsRead) this.readGhosts()
    const facts = this.facts
    // A named beacon skips the dwell, but on a site with rooms it waits for its first room: announced
    // earlier, Home Assistant's Room sensor would show `home` (present, no room yet) before the room.
    const roomless = (this.site?.rooms.length ?? 0) === 0
    const vouched = (id: string): boolean =>
      facts.named(id) && (roomless || this.state.get(id, now)?.room !== undefined)
    this.topics.discovery(
      now,
      (id) => this.state.get(id, now),
      (id) => facts.listed(id),
      vouched,
    )
    // Present beacons are refreshed at most every publishIntervalMs: enough for a dashboard
    // that subscribes late (the message is retained anyway) without a message per beacon per second.
    const moving = (id: string): boolean => this.facts.moving(id)
    for (const b of this.state.list(now, (id) => this.topics.due(id, now, moving))) {
      this.topics.put(b)
      this.presence.refreshed(b)
    }
    // The whole list is built only for someone who listens: at 50,000 beacons it is most of a tick.
    if (this.streams.active || this.listenerCount('updated') > 0) this.emit('updated', this.state.list(now))
  }

  /** Resolves when every fleet message queued has reached the broker, or after `timeoutMs` (false then). */
  flush(timeoutMs = 10_000): Promise<boolean> {
    return this.outbox.idle(timeoutMs)
  }

  /**
   * Stops the tick, publishes `<p>/fleet/status` offline and disconnects. The wait for what is
   * queued is bounded: at most `timeoutMs`, and no longer than `ackTimeoutMs` without any
   * acknowledgement; then what is left is let go (withdrawn from mqtt.js) and the connection
   * dropped if a clean DISCONNECT does not finish within 2 s. Resolves with what was not
   * delivered. The retained beacon states stay on the broker: the last known view.
   */
  async stop(timeoutMs = 5000): Promise<MqttCloseResult> {
    if (this.stopped) return { delivered: true, lost: 0, kept: 0 }
    this.stopped = true
    this.scaleOut?.stop()
    this.birth?.close()
    this.reader.stop()
    this.cancelTick?.()
    this.cancelTick = undefined
    this.wakeStart?.()
    this.wakeStart = undefined
    const link = this.#link
    let delivered = false
    if (link !== undefined && link.connected) {
      this.outbox.putStatus(this.statusTopic, this.statusPayload('offline'))
      delivered = await this.outbox.idle(timeoutMs, this.#options.ackTimeoutMs)
    }
    const { lost, kept } = this.outbox.abandon()
    this.outbox.setClient(undefined)
    await Promise.all([link?.close(), this.own?.close()])
    this.streams.endAll()
    return { delivered: delivered || lost === 0, lost, kept }
  }
}
