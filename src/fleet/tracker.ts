/**
 * FleetTracker: the central side of the MQTT contract (docs/fleet.md). It listens to every
 * gateway's status and RSSI batches through a broker, keeps the fused state of fleet-state.ts on a
 * clock, and publishes that state back as retained `<p>/fleet/beacons/<id>` messages.
 */

import type { EventEmitter } from 'eventemitter3'
import { inspect } from 'node:util'
import { RealClock } from '../clock.js'
import type { Clock } from '../clock.js'
import { InvalidOptionError, MqttError } from '../errors.js'
import { SafeEmitter } from '../range/safe-emitter.js'
import type { EventIterator } from '../scanner/event-stream.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import { statusPayload } from '../mqtt/payloads.js'
import { resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { checkTopicPrefix, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import type { FleetBeacon } from './fleet-beacon.js'
import type { Site } from '../positioning/site.js'
import type { RoomLocator } from '../positioning/room-locator.js'
import { summarizeGateways } from './gateway-summary.js'
import type { FleetGatewaySummary } from './gateway-summary.js'
import type { FleetEvent } from './tracker-events.js'
import type { FleetTrackerEvents, FleetTrackerOptions, FleetTrackerStats } from './tracker-types.js'
import { isTopicLevel } from '../util/topic-level.js'
import { forgetCommandTopic } from './forget-command.js'
import { trackerLimits } from './tracker-limits.js'
import { fleetStatusTopic } from './tracker-will.js'
import { TickRunner } from './tick-runner.js'
import { trackerParts, type TrackerParts } from './tracker-parts.js'
import { TrackerInbox } from './tracker-inbox.js'
import { TrackerSession } from './tracker-session.js'
import { trackerStats } from './tracker-stats.js'
import { publishTick } from './tick-publish.js'
import { applySiteChange, positioningKey, type SiteChange } from './site-change.js'
import { sitePositioner, type SitePositioner } from './site-positioner.js'

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
  readonly #session: TrackerSession
  private readonly parts: TrackerParts
  /** Fleet messages handed to the broker. */
  private published = 0
  private readonly inbox: TrackerInbox
  private readonly maxPayloadBytes: number
  /** The site, if given: its gateways are the ones counted (gateway-summary.ts). */
  private site: Site | undefined
  /** The room method's locator (#39), when the tracker has one. */
  private rooms: RoomLocator | undefined
  /** A site given to setSite, applied when the next tick starts. */
  private nextSite: SiteChange | undefined
  /** Makes the tracker's own positioner on a site, unless it was given one. */
  private readonly positionerFor: ((site: Site) => SitePositioner | undefined) | undefined
  private starting: Promise<void> | undefined
  private stopped = false
  private readonly ticks: TickRunner

  constructor(options: FleetTrackerOptions) {
    super()
    // The connection options are the publisher's (url or client, TLS, password file, reconnect).
    this.#options = resolvePublisherOptions({ ...options, gatewayId: 'fleet' })
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
    this.clock = options.clock ?? new RealClock()
    const ha = this.#options.homeAssistant
    const limits = trackerLimits(options, typeof ha === 'object' ? ha.expireMs : undefined)
    this.maxPayloadBytes = limits.maxPayloadBytes
    this.site = options.site
    this.rooms = options.rooms
    // Its own positioner (none given) is made again on each new site.
    if (options.positioner === undefined)
      this.positionerFor = (site) => sitePositioner({ ...options, site }, (error) => this.emit('error', error))
    this.parts = trackerParts(options, this.#options, limits, {
      clock: this.clock,
      topicPrefix: this.topicPrefix,
      emit: (event, ...args) => this.emit(event, ...args),
      link: () => this.#session.link,
      published: () => this.published++,
      clearBeacon: (id) => this.clearBeacon(id),
      statusTopic: () => this.statusTopic,
      statusPayload: (state) => this.statusPayload(state),
    })
    this.inbox = new TrackerInbox(this.parts, {
      clock: this.clock,
      topicPrefix: this.topicPrefix,
      maxPayloadBytes: this.maxPayloadBytes,
      forgetTopic: this.forgetTopic,
      site: this.site,
      emit: (event, ...args) => this.emit(event, ...args),
      forget: (id) => this.forget(id),
    })
    this.ticks = new TickRunner({
      clock: this.clock,
      state: this.parts.state,
      // Read at each tick: a new site makes the tracker's own positioner again.
      positioner: () => this.parts.positioner,
      stopped: () => this.stopped,
      begin: (now) => this.beginTick(now),
      end: (now) => this.endTick(now),
    })
    this.#session = new TrackerSession({
      options: this.#options,
      parts: this.parts,
      inbox: this.inbox,
      ticks: this.ticks,
      clock: this.clock,
      topicPrefix: this.topicPrefix,
      forgetTopic: this.forgetTopic,
      clientId: options.clientId,
      maxPayloadBytes: this.maxPayloadBytes,
      statusTopic: () => this.statusTopic,
      statusPayload: (state) => this.statusPayload(state),
      stopped: () => this.stopped,
      emit: (event, ...args) => this.emit(event, ...args),
    })
  }

  /** `<p>/fleet/beacons/<id>` */
  beaconTopic(id: string): string {
    return this.parts.topics.beaconTopic(id)
  }

  /** `<p>/fleet/presence/<id>` */
  presenceTopic(id: string): string {
    return this.parts.presence.topic(id)
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
    this.parts.state.release((x) => x === id)
    this.parts.ghosts.settled(id)
    this.clearBeacon(id)
  }

  /** `<p>/fleet/forget`: where `beaconkit fleet forget` asks running trackers to forget a beacon. */
  get forgetTopic(): string {
    return forgetCommandTopic(this.topicPrefix)
  }

  /** Clears every retained topic of a beacon the tracker forgets (docs/fleet-reference.md, "The fleet topics"). */
  private clearBeacon(id: string): void {
    this.parts.topics.forget(id)
    this.parts.presence.forget(id)
  }

  /**
   * The tracker's own retained status, whose last will is `offline`: `<p>/fleet/status`, or
   * with scale-out `<p>/fleet/trackers/<trackerId>` (one per tracker).
   */
  get statusTopic(): string {
    return this.parts.scaleOut?.statusTopic ?? fleetStatusTopic(this.topicPrefix)
  }

  /** Scale-out: this tracker's id among the trackers sharing the beacons. */
  get trackerId(): string | undefined {
    return this.parts.scaleOut?.trackerId
  }

  private statusPayload(state: 'online' | 'offline'): string {
    const now = this.clock.now()
    return this.parts.scaleOut?.status(state, now) ?? statusPayload(state, now)
  }

  /** Counters of the fused state and the connection. */
  get stats(): FleetTrackerStats {
    return trackerStats(this.parts, this.inbox.counters, this.published)
  }

  /**
   * The tracker's events as an async iterable of `{ event, time, ... }` objects. Ends when the
   * tracker stops or `signal` aborts. Up to `eventBufferSize` events wait for a slow consumer;
   * beyond that the oldest are dropped and counted (`iterator.dropped`, `stats.eventsDropped`).
   */
  events(options: { signal?: AbortSignal } = {}): EventIterator<FleetEvent> {
    return this.parts.streams.open(options.signal, this.stopped)
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
    if (this.parts.streams.active) this.parts.streams.push(event, args as unknown[], this.clock.now())
    return super.emit(event, ...args)
  }

  /** The beacons present now, strongest gateway first within each. */
  beacons(): FleetBeacon[] {
    return this.parts.state.list(this.clock.now())
  }

  /** One beacon, if present. */
  get(id: string): FleetBeacon | undefined {
    return this.parts.state.get(id, this.clock.now())
  }

  /**
   * The gateway's estimated clock offset (tracker minus gateway, ms) while the tracker holds a record
   * of it (a batch or a status).
   */
  clockOffset(gateway: string): number | undefined {
    return this.parts.state.offsetOf(gateway)
  }

  /**
   * The gateways counted now and the others known (gateway-summary.ts): with a site, its gateways
   * (heard or not) and, apart, any other gateway the tracker holds; without one, every gateway it holds.
   */
  gatewaySummary(): FleetGatewaySummary {
    return summarizeGateways(this.parts.state, this.site, this.clock.now())
  }

  /** Shows where it listens, never the client (whose options hold the password). */
  [inspect.custom](): string {
    return `FleetTracker { topicPrefix: '${this.topicPrefix}', beacons: ${this.parts.state.size} }`
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
    this.starting ??= this.#session.open()
    return this.starting
  }

  /**
   * Takes a new site without a restart (an edited site file, docs/fleet.md "The site file"). It is
   * applied when the next tick starts (never within one): that tick places every beacon with it.
   * Beacons keep their state (no `gone`, no `found`); a beacon in a room the site no longer has is
   * placed anew; a renamed beacon's fleet topic and Home Assistant configs carry its new name at
   * once; a beacon no longer announced has its configs emptied; rooms that went have their
   * occupancy state and config emptied, new ones get theirs. The tracker's own positioner is made
   * again when the gateways' places or the plan changed (a positioner given in the options is kept).
   *
   * @param options.rooms the room method on the new site: a RoomLocator (the plan method),
   *   `false` for the strongest gateway; omitted, the tracker's own locator, if any, is rebuilt on
   *   the new site (RoomLocator.forSite: learnt offsets and fingerprints of what remains kept)
   */
  setSite(site: Site, options: { rooms?: RoomLocator | false } = {}): void {
    const given = options.rooms
    const rooms = given === false ? undefined : (given ?? this.nextSite?.rooms ?? this.rooms)
    this.nextSite = { site, rooms: given === undefined && rooms !== undefined ? rooms.forSite(site) : rooms }
  }

  /** The start of a tick, before any beacon is placed: a new site waiting is taken now. */
  private beginTick(now: number): void {
    const change = this.nextSite
    if (change === undefined) return
    this.nextSite = undefined
    const moved = positioningKey(this.site) !== positioningKey(change.site)
    this.site = change.site
    this.rooms = change.rooms
    applySiteChange(this.parts, this.inbox, change, now, moved ? this.positionerFor : undefined)
    this.emit('site', { site: change.site, time: now })
  }

  /** The rest of a tick once every beacon is placed: publishing and events. */
  private endTick(now: number): void {
    this.parts.scaleOut?.tick(now)
    this.parts.ghosts.tick(now)
    this.parts.presence.tick(now)
    if (this.parts.ghosts.wantsRead) this.#session.readGhosts()
    publishTick(this.parts, this.site, now)
    this.parts.occupancy?.tick(() => this.parts.state.list(now))
    // The whole list is built only for someone who listens: at 50,000 beacons it is most of a tick.
    if (this.parts.streams.active || this.listenerCount('updated') > 0) this.emit('updated', this.parts.state.list(now))
  }

  /** Resolves when every fleet message queued has reached the broker, or after `timeoutMs` (false then). */
  flush(timeoutMs = 10_000): Promise<boolean> {
    return this.parts.outbox.idle(timeoutMs)
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
    this.parts.scaleOut?.stop()
    this.parts.birth?.close()
    this.parts.reader.stop()
    this.ticks.stop()
    this.#session.wake()
    const link = this.#session.link
    let delivered = false
    if (link !== undefined && link.connected) {
      this.parts.outbox.putStatus(this.statusTopic, this.statusPayload('offline'))
      delivered = await this.parts.outbox.idle(timeoutMs, this.#options.ackTimeoutMs)
    }
    const { lost, kept } = this.parts.outbox.abandon()
    this.parts.outbox.setClient(undefined)
    await Promise.all([link?.close(), this.parts.own?.close()])
    this.parts.streams.endAll()
    return { delivered: delivered || lost === 0, lost, kept }
  }
}
