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
import type { MqttLink } from '../mqtt/connection.js'
import { ackWarning, watchAck } from '../mqtt/inflight.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import { statusPayload } from '../mqtt/payloads.js'
import { defaultClientId, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { openLink } from '../mqtt/link-secrets.js'
import { anyGatewayStatusTopic, checkTopicPrefix, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import type { FleetBeacon } from './fleet-beacon.js'
import type { Site } from '../positioning/site.js'
import { summarizeGateways } from './gateway-summary.js'
import type { FleetGatewaySummary } from './gateway-summary.js'
import type { FleetEvent } from './tracker-events.js'
import type { FleetTrackerEvents, FleetTrackerOptions, FleetTrackerStats } from './tracker-types.js'
import { isTopicLevel } from '../util/topic-level.js'
import { forgetCommandTopic } from './forget-command.js'
import { PACKET_OVERHEAD_BYTES, trackerLimits } from './tracker-limits.js'
import { fleetStatusTopic } from './tracker-will.js'
import { TickRunner } from './tick-runner.js'
import { trackerParts, type TrackerParts } from './tracker-parts.js'
import { TrackerInbox } from './tracker-inbox.js'
import { trackerStats } from './tracker-stats.js'
import { publishTick } from './tick-publish.js'

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
  private readonly clientId: string | undefined
  private readonly parts: TrackerParts
  /** Fleet messages handed to the broker. */
  private published = 0
  private readonly inbox: TrackerInbox
  private readonly maxPayloadBytes: number
  /** The site, if given: its gateways are the ones counted (gateway-summary.ts). */
  private readonly site: Site | undefined
  private ghostsRead = false
  private starting: Promise<void> | undefined
  private stopped = false
  private swept = false
  private wakeStart: (() => void) | undefined
  private readonly ticks: TickRunner

  constructor(options: FleetTrackerOptions) {
    super()
    // The connection options are the publisher's (url or client, TLS, password file, reconnect).
    this.#options = resolvePublisherOptions({ ...options, gatewayId: 'fleet' })
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
    this.clock = options.clock ?? new RealClock()
    this.clientId = options.clientId
    const ha = this.#options.homeAssistant
    const limits = trackerLimits(options, typeof ha === 'object' ? ha.expireMs : undefined)
    this.maxPayloadBytes = limits.maxPayloadBytes
    this.site = options.site
    this.parts = trackerParts(options, this.#options, limits, {
      clock: this.clock,
      topicPrefix: this.topicPrefix,
      emit: (event, ...args) => this.emit(event, ...args),
      link: () => this.#link,
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
      positioner: this.parts.positioner,
      stopped: () => this.stopped,
      end: (now) => this.endTick(now),
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
    this.starting ??= this.open()
    return this.starting
  }

  private async open(): Promise<void> {
    const o = this.#options
    // Trackers that share the beacons need one client id each: the tracker id is unique.
    const defaultId =
      this.parts.scaleOut === undefined ? defaultClientId('fleet') : `beaconkit-fleet-${this.parts.scaleOut.trackerId}`
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
      this.parts.outbox.setClient(undefined)
      this.parts.reader.cancel()
      this.parts.scaleOut?.disconnected()
      this.emit('disconnected')
    })
    link.on('error', (error) => this.emit('error', error))
    link.on('message', (topic, payload, retained) => this.inbox.onMessage(topic, payload, retained))
    if (link.connected) void this.onConnected(link.protocolVersion)
    this.ticks.start()
    await subscribed
  }

  private async onConnected(protocolVersion: 4 | 5, sessionPresent = false): Promise<void> {
    const link = this.#link
    if (this.stopped || link === undefined) return
    try {
      // A clean session forgets subscriptions: subscribe on every connection. With scale-out
      // the partitions come later, once the live trackers are known.
      const so = this.parts.scaleOut
      // Beacon states are not partitioned: every tracker reads them all (bounded: beacon-claims.ts).
      const base = [
        anyGatewayStatusTopic(this.topicPrefix),
        this.parts.reader.syncTopic,
        `${this.topicPrefix}/gateways/+/beacons/+`,
        this.forgetTopic,
      ]
      const filters = so === undefined ? [...base, `${this.topicPrefix}/gateways/+/rssi`] : [...base, ...so.filters]
      await watchAck(
        this.#options.ackTimeoutMs,
        (info) => this.emit('warning', ackWarning(info, this.#options.broker)),
        link.subscribe(filters, 1),
      )
    } catch (error) {
      // Lost the connection meanwhile: the next `connected` subscribes again. Stopped meanwhile: nothing to say.
      if (this.stopped) return
      this.emit('error', error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (this.stopped) return
    if (this.parts.scaleOut === undefined) this.parts.outbox.putStatus(this.statusTopic, this.statusPayload('online'))
    else this.parts.scaleOut.connected()
    this.parts.outbox.setClient(link.client)
    // No session kept: the broker may have lost its retained messages (restarted without
    // persistence). Not with scale-out, where beacons move between trackers.
    if (!sessionPresent && this.parts.scaleOut === undefined) {
      this.parts.topics.republish(this.parts.state.list(this.clock.now()))
      this.parts.presence.republish()
    }
    this.parts.birth?.connected(link)
    // Configs an earlier run left: once. Not with scale-out, where another tracker may own them.
    if (!this.swept && this.parts.scaleOut === undefined) {
      this.swept = true
      void this.parts.topics.sweep(link, this.clock.now(), (id) => this.parts.facts.describe(id)?.name)
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
    this.parts.ghosts
      .read(link, this.parts.reader, () => this.clock.now())
      .catch(() => {
        // Lost the connection meanwhile: read again on the next one.
        this.ghostsRead = false
      })
  }

  /** The rest of a tick once every beacon is placed: publishing and events. */
  private endTick(now: number): void {
    this.parts.scaleOut?.tick(now)
    this.parts.ghosts.tick(now)
    this.parts.presence.tick(now)
    if (this.parts.ghosts.wantsRead) this.readGhosts()
    publishTick(this.parts, this.site, now)
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
    this.wakeStart?.()
    this.wakeStart = undefined
    const link = this.#link
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
