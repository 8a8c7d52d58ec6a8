/**
 * FleetTracker: the central side of the MQTT contract (docs/fleet.md). It listens to every
 * gateway's status and RSSI batches through a broker, keeps the fused state of fusion.ts on a
 * clock, and publishes that state back as retained `<p>/fleet/beacons/<id>` messages.
 */

import type { EventEmitter } from 'eventemitter3'
import { hostname } from 'node:os'
import { inspect } from 'node:util'
import { RealClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError, MqttError } from '../errors.js'
import { SafeEmitter } from '../range/safe-emitter.js'
import type { EventIterator } from '../range/event-stream.js'
import type { MqttLink } from '../mqtt/connection.js'
import { Outbox } from '../mqtt/outbox.js'
import { statusPayload } from '../mqtt/payloads.js'
import { openLink, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { anyGatewayStatusTopic, checkTopicPrefix, DEFAULT_HA_PREFIX, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import { FleetTopics } from './fleet-topics.js'
import { FleetState } from './fusion.js'
import { withSitePositioner } from './site-positioner.js'
import { readGatewayMessage, statusState } from './gateway-messages.js'
import type { FleetBeacon } from './fusion.js'
import { ScaleOut } from './scale-out.js'
import { FleetEventStreams } from './tracker-events.js'
import type { FleetEvent } from './tracker-events.js'
import type { FleetTrackerEvents, FleetTrackerOptions, FleetTrackerStats } from './tracker-types.js'

export type { FleetGatewayEvent, FleetScaleOutOptions, FleetTrackerEvents, FleetTrackerOptions, FleetTrackerStats } from './tracker-types.js'
export type { FleetEvent } from './tracker-events.js'

const TICK_MS = 1000

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
  /** Scale-out coordination, when this tracker shares the beacons with others. */
  private readonly scaleOut: ScaleOut | undefined
  private readonly streams: FleetEventStreams
  private readonly counters = { unparsable: 0, published: 0 }
  private cancelTick: CancelTimer | undefined
  private starting: Promise<void> | undefined
  private stopped = false
  private swept = false
  private wakeStart: (() => void) | undefined

  constructor(options: FleetTrackerOptions) {
    super()
    // The connection options are the publisher's (url or client, TLS, password file, reconnect).
    this.#options = resolvePublisherOptions({ ...options, gatewayId: 'fleet' })
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
    this.clock = options.clock ?? new RealClock()
    this.clientId = options.clientId
    const interval = options.publishIntervalMs ?? 5000
    if (!Number.isFinite(interval) || interval <= 0) throw new InvalidOptionError('invalid_option', `publishIntervalMs must be a positive number of ms, e.g. 5000, not ${String(interval)}`, { option: 'publishIntervalMs' })
    const size = options.eventBufferSize ?? 10_000
    if (!Number.isInteger(size) || size < 1) throw new InvalidOptionError('invalid_option', `eventBufferSize must be a positive whole number, e.g. 10000, not ${String(size)}`, { option: 'eventBufferSize' })
    this.streams = new FleetEventStreams(size)
    const ha = this.#options.homeAssistant
    const haPrefix = ha === undefined ? undefined : checkTopicPrefix(ha.prefix ?? DEFAULT_HA_PREFIX, 'homeAssistant.prefix')
    this.outbox = new Outbox({ maxQueuedEvents: 1, maxInflight: 100 }, { sent: () => this.counters.published++, dropped: () => undefined })
    const topics = new FleetTopics(this.outbox, this.topicPrefix, interval, ha === undefined || haPrefix === undefined ? undefined : { prefix: haPrefix, availability: options.scaleOut === undefined, gate: ha })
    this.topics = topics
    this.state = new FleetState(withSitePositioner(options), {
      found: (b) => {
        topics.found(b.id, b.time)
        topics.put(b)
        this.emit('found', b)
      },
      gone: (b) => {
        topics.gone(b.id, b.time)
        this.emit('gone', b)
      },
      room: (b, change) => {
        topics.put(b)
        this.emit('room', b, change)
      },
      moved: (b) => this.emit('moved', b),
    })
    this.scaleOut =
      options.scaleOut === undefined
        ? undefined
        : new ScaleOut(options.scaleOut, this.topicPrefix, {
            link: () => this.#link,
            now: () => this.clock.now(),
            state: this.state,
            topics,
            changed: (info) => this.emit('partitions', info),
            announce: () => this.outbox.putStatus(this.statusTopic, this.statusPayload('online')),
            error: (error) => this.emit('error', error),
          })
  }

  /** `<p>/fleet/beacons/<id>` */
  beaconTopic(id: string): string {
    return this.topics.beaconTopic(id)
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
    const stats: FleetTrackerStats = { ...s, malformed: s.malformed + unparsable, unparsable, published: c.published, eventsDropped: this.streams.dropped, seeded: so.seeded, released: so.released }
    const ha = this.topics.discoveryStats
    if (ha !== undefined) stats.homeAssistant = ha
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
  override emit<T extends EventEmitter.EventNames<FleetTrackerEvents>>(event: T, ...args: EventEmitter.EventArgs<FleetTrackerEvents, T>): boolean {
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

  /** The gateway's estimated clock offset (tracker minus gateway, ms), once it sent a batch. */
  clockOffset(gateway: string): number | undefined {
    return this.state.offsetOf(gateway)
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
    const defaultId = this.scaleOut === undefined ? `beaconkit-fleet-${hostname().replace(/[^A-Za-z0-9_-]/g, '').slice(0, 16)}` : `beaconkit-fleet-${this.scaleOut.trackerId}`
    const link = await openLink(o, this.clientId ?? defaultId, { topic: this.statusTopic, payload: this.statusPayload('offline') })
    if (this.stopped) {
      await link.close()
      return
    }
    this.#link = link
    const subscribed = new Promise<void>((resolve) => {
      this.wakeStart = resolve
    })
    link.on('connected', (protocolVersion) => void this.onConnected(protocolVersion))
    link.on('disconnected', () => {
      if (this.stopped) return
      this.outbox.setClient(undefined)
      this.scaleOut?.disconnected()
      this.emit('disconnected')
    })
    link.on('error', (error) => this.emit('error', error))
    link.on('message', (topic, payload) => this.onMessage(topic, payload))
    if (link.connected) void this.onConnected(link.protocolVersion)
    this.cancelTick = this.clock.setInterval(() => this.tick(), TICK_MS)
    await subscribed
  }

  private async onConnected(protocolVersion: 4 | 5): Promise<void> {
    const link = this.#link
    if (this.stopped || link === undefined) return
    try {
      // A clean session forgets subscriptions: subscribe on every connection. With scale-out
      // the partitions come later, once the live trackers are known.
      const so = this.scaleOut
      await link.subscribe(so === undefined ? [anyGatewayStatusTopic(this.topicPrefix), `${this.topicPrefix}/gateways/+/rssi`] : [anyGatewayStatusTopic(this.topicPrefix), ...so.filters], 1)
    } catch (error) {
      // Lost the connection meanwhile: the next `connected` subscribes again.
      this.emit('error', error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (this.stopped) return
    if (this.scaleOut === undefined) this.outbox.putStatus(this.statusTopic, this.statusPayload('online'))
    else this.scaleOut.connected()
    this.outbox.setClient(link.client)
    // Configs an earlier run left: once. Not with scale-out, where another tracker may own them.
    if (!this.swept && this.scaleOut === undefined) {
      this.swept = true
      void this.topics.sweep(link, this.clock.now())
    }
    this.emit('connected', { protocolVersion })
    this.wakeStart?.()
    this.wakeStart = undefined
  }

  private onMessage(topic: string, payload: Buffer): void {
    const m = readGatewayMessage(`${this.topicPrefix}/gateways/`, topic, payload, this.scaleOut !== undefined)
    if (m === 'unparsable') this.counters.unparsable++
    if (typeof m === 'string') {
      if (m === 'ignore') this.scaleOut?.onMessage(topic, payload)
      return
    }
    const now = this.clock.now()
    if (m.kind === 'rssi') {
      this.state.ingest(m.body, now, m.gateway)
      return
    }
    const state = statusState(m.body)
    if (state === undefined) this.counters.unparsable++
    else if (this.state.gatewayStatus(m.gateway, state, now)) this.emit('gateway', { gateway: m.gateway, state, time: now })
  }

  private tick(): void {
    const now = this.clock.now()
    this.state.tick(now)
    this.scaleOut?.tick(now)
    this.topics.discovery(now, (id) => this.state.get(id, now))
    // Present beacons are refreshed at most every publishIntervalMs: enough for a dashboard
    // that subscribes late (the message is retained anyway) without a message per beacon per second.
    for (const b of this.state.list(now, (id) => this.topics.due(id, now))) this.topics.put(b)
    // The whole list is built only for someone who listens: at 50,000 beacons it is most of a tick.
    if (this.streams.active || this.listenerCount('updated') > 0) this.emit('updated', this.state.list(now))
  }

  /** Resolves when every fleet message queued has reached the broker, or after `timeoutMs` (false then). */
  flush(timeoutMs = 10_000): Promise<boolean> {
    return this.outbox.idle(timeoutMs)
  }

  /**
   * Stops the tick, publishes `<p>/fleet/status` offline (waiting up to `timeoutMs` for what is
   * queued) and disconnects. The retained beacon states stay on the broker: the last known view.
   */
  async stop(timeoutMs = 5000): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.scaleOut?.stop()
    this.cancelTick?.()
    this.cancelTick = undefined
    this.wakeStart?.()
    this.wakeStart = undefined
    const link = this.#link
    if (link !== undefined && link.connected) {
      this.outbox.putStatus(this.statusTopic, this.statusPayload('offline'))
      await this.outbox.idle(timeoutMs)
    }
    this.outbox.clear()
    this.outbox.setClient(undefined)
    await link?.close()
    this.streams.endAll()
  }
}
