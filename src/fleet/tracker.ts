/**
 * FleetTracker: the central side of the MQTT contract (docs/fleet.md). It listens to every
 * gateway's status and RSSI batches through a broker, keeps the fused state of fusion.ts on a
 * clock, and publishes that state back as retained `<p>/fleet/beacons/<id>` messages.
 */

import { hostname } from 'node:os'
import { inspect } from 'node:util'
import { RealClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError, MqttError } from '../errors.js'
import { SafeEmitter } from '../range/safe-emitter.js'
import type { MqttLink } from '../mqtt/connection.js'
import { Outbox } from '../mqtt/outbox.js'
import { statusPayload } from '../mqtt/payloads.js'
import { openLink, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { anyGatewayStatusTopic, checkTopicPrefix, DEFAULT_HA_PREFIX, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import { haTrackerConfig, haTrackerConfigTopic } from './home-assistant.js'
import { FleetState } from './fusion.js'
import { withSitePositioner } from './site-positioner.js'
import type { FleetBeacon } from './fusion.js'
import type { FleetTrackerEvents, FleetTrackerOptions, FleetTrackerStats } from './tracker-types.js'

export type { FleetGatewayEvent, FleetTrackerEvents, FleetTrackerOptions, FleetTrackerStats } from './tracker-types.js'

const TICK_MS = 1000
const MAX_ANNOUNCED = 100_000

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
  private readonly publishIntervalMs: number
  private readonly clientId: string | undefined
  /** When each present beacon's fleet topic was last put in the outbox. */
  private readonly published = new Map<string, number>()
  private readonly gateways = new Map<string, 'online' | 'offline'>()
  private readonly haPrefix: string | undefined
  /** Beacons whose device_tracker config went out in this run (insertion order: oldest first). */
  private readonly announced = new Set<string>()
  private readonly counters = { unparsable: 0, published: 0 }
  private cancelTick: CancelTimer | undefined
  private starting: Promise<void> | undefined
  private stopped = false
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
    this.publishIntervalMs = interval
    const ha = this.#options.homeAssistant
    this.haPrefix = ha === undefined ? undefined : checkTopicPrefix(ha.prefix ?? DEFAULT_HA_PREFIX, 'homeAssistant.prefix')
    this.outbox = new Outbox({ maxQueuedEvents: 1, maxInflight: 100 }, { sent: () => this.counters.published++, dropped: () => undefined })
    this.state = new FleetState(withSitePositioner(options), {
      found: (b) => {
        this.announce(b.id)
        this.put(b)
        this.emit('found', b)
      },
      gone: (b) => {
        this.published.delete(b.id)
        this.outbox.putRetained(this.beaconTopic(b.id), '')
        this.emit('gone', b)
      },
      room: (b, change) => {
        this.put(b)
        this.emit('room', b, change)
      },
      moved: (b) => this.emit('moved', b),
    })
  }

  /** `<p>/fleet/beacons/<id>` */
  beaconTopic(id: string): string {
    return `${this.topicPrefix}/fleet/beacons/${id}`
  }

  /** `<p>/fleet/status`: the tracker's own retained status; its last will is `offline`. */
  get statusTopic(): string {
    return `${this.topicPrefix}/fleet/status`
  }

  /** Counters of the fused state and the connection. */
  get stats(): FleetTrackerStats {
    const s = this.state.stats
    return { ...s, malformed: s.malformed + this.counters.unparsable, unparsable: this.counters.unparsable, published: this.counters.published }
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
    const link = await openLink(o, this.clientId ?? `beaconkit-fleet-${hostname().replace(/[^A-Za-z0-9_-]/g, '').slice(0, 16)}`, { topic: this.statusTopic, payload: statusPayload('offline', this.clock.now()) })
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
      // A clean session forgets subscriptions: subscribe on every connection.
      await link.subscribe([anyGatewayStatusTopic(this.topicPrefix), `${this.topicPrefix}/gateways/+/rssi`], 1)
    } catch (error) {
      // Lost the connection meanwhile: the next `connected` subscribes again.
      this.emit('error', error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (this.stopped) return
    this.outbox.putStatus(this.statusTopic, statusPayload('online', this.clock.now()))
    this.outbox.setClient(link.client)
    this.emit('connected', { protocolVersion })
    this.wakeStart?.()
    this.wakeStart = undefined
  }

  private onMessage(topic: string, payload: Buffer): void {
    const base = `${this.topicPrefix}/gateways/`
    if (!topic.startsWith(base)) return
    const [gateway, kind, extra] = topic.slice(base.length).split('/')
    if (gateway === undefined || extra !== undefined) return
    // An empty retained message clears a topic: nothing to read.
    if (payload.length === 0) return
    let body: unknown
    try {
      body = JSON.parse(payload.toString('utf8'))
    } catch {
      this.counters.unparsable++
      return
    }
    const now = this.clock.now()
    if (kind === 'rssi') this.state.ingest(body, now)
    else if (kind === 'status') this.onStatus(gateway, body, now)
  }

  private onStatus(gateway: string, body: unknown, now: number): void {
    const state = typeof body === 'object' && body !== null ? (body as { state?: unknown }).state : undefined
    if (state !== 'online' && state !== 'offline') {
      this.counters.unparsable++
      return
    }
    if (state === 'offline') this.state.gatewayOffline(gateway, now)
    if (this.gateways.get(gateway) === state) return
    this.gateways.set(gateway, state)
    this.emit('gateway', { gateway, state, time: now })
  }

  private tick(): void {
    const now = this.clock.now()
    this.state.tick(now)
    const list = this.state.list(now)
    // Present beacons are refreshed at most every publishIntervalMs: enough for a dashboard
    // that subscribes late (the message is retained anyway) without a message per beacon per second.
    for (const b of list) if (now - (this.published.get(b.id) ?? -Infinity) >= this.publishIntervalMs) this.put(b)
    this.emit('updated', list)
  }

  /**
   * The device_tracker config, once per beacon and run, before its first state. It stays when the
   * beacon goes: Home Assistant then shows it `not_home`, which is the point of away detection.
   */
  private announce(id: string): void {
    if (this.haPrefix === undefined || this.announced.has(id)) return
    // Bounded: a stream of passing tags must not grow it forever; one forgotten is announced again.
    if (this.announced.size >= MAX_ANNOUNCED) this.announced.delete(this.announced.values().next().value as string)
    this.announced.add(id)
    this.outbox.putRetained(haTrackerConfigTopic(this.haPrefix, id), JSON.stringify(haTrackerConfig(this.topicPrefix, id)))
  }

  private put(b: FleetBeacon): void {
    this.published.set(b.id, b.time)
    this.outbox.putRetained(this.beaconTopic(b.id), JSON.stringify(b))
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
    this.cancelTick?.()
    this.cancelTick = undefined
    this.wakeStart?.()
    this.wakeStart = undefined
    const link = this.#link
    if (link !== undefined && link.connected) {
      this.outbox.putStatus(this.statusTopic, statusPayload('offline', this.clock.now()))
      await this.outbox.idle(timeoutMs)
    }
    this.outbox.clear()
    this.outbox.setClient(undefined)
    await link?.close()
  }
}
