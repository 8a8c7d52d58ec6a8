/**
 * MqttPublisher: a gateway's scanner events onto a broker, in the topics and payloads of the
 * MQTT contract (docs/mqtt.md), with bounded memory while the broker is away and
 * optional Home Assistant discovery.
 */

import { EventEmitter } from 'eventemitter3'
import { inspect } from 'node:util'
import { RealClock } from '../clock.js'
import type { Clock } from '../clock.js'
import { MqttError } from '../errors.js'
import { FileQueue } from '../queue/file-queue.js'
import { DiskEvents, isStoredEvent } from './disk-events.js'
import type { StoredEvent } from './disk-events.js'
import type { Beacon } from '../reading.js'
import type { ScannerSink } from '../scanner/sink.js'
import type { Advertisement } from '../advertisement.js'
import { GatewayFeed } from './feed.js'
import { GatewayHomeAssistant, HA_MAX_PACKET_BYTES } from './ha-gateway.js'
import type { MqttLink } from './connection.js'
import { ackWarning } from './inflight.js'
import type { MqttCloseResult } from './inflight.js'
import { Outbox } from './outbox.js'
import { statusPayload } from './payloads.js'
import { refusedError } from './refusals.js'
import { checkGatewayId, checkTopicPrefix, GatewayTopics } from './topics.js'
import { defaultClientId, resolvePublisherOptions } from './publisher-options.js'
import { openLink } from './link-secrets.js'
import type { MqttPublisherOptions } from './publisher-options.js'
import type {
  MqttConnectionState,
  MqttPublisherEvents,
  MqttPublisherStats,
  PublisherEventSource,
} from './publisher-types.js'

/**
 * Publishes a gateway's beacons to an MQTT broker.
 *
 * ```ts
 * const publisher = new MqttPublisher({ url: 'mqtt://127.0.0.1:1883', gatewayId: 'hall', homeAssistant: true })
 * publisher.attach(scanner)
 * await publisher.connect()
 * // …
 * await publisher.close() // publishes status offline
 * ```
 *
 * mqtt.js is loaded by `connect()` only.
 */
export class MqttPublisher extends EventEmitter<MqttPublisherEvents> implements ScannerSink<PublisherEventSource> {
  /** The gateway's topics. */
  readonly topics: GatewayTopics
  readonly gatewayId: string
  #options: ReturnType<typeof resolvePublisherOptions>
  #link: MqttLink | undefined
  #connecting: Promise<void> | undefined
  #disk: DiskEvents | undefined
  /** close() has begun: a reconnect meanwhile must not say `online` again. */
  #closing = false
  private clock: Clock
  private readonly outbox: Outbox
  private readonly feed: GatewayFeed
  private readonly ha: GatewayHomeAssistant | undefined
  private scanner: PublisherEventSource | undefined
  private detachScanner: (() => void) | undefined
  private state: MqttConnectionState = 'idle'
  private readonly counters = {
    messages: 0,
    bytes: 0,
    connections: 0,
    byKind: { status: 0, retained: 0, event: 0, rssi: 0 },
    dropped: { event: 0, rssi: 0 },
  }

  constructor(options: MqttPublisherOptions) {
    super()
    this.#options = resolvePublisherOptions(options)
    const o = this.#options
    this.gatewayId = checkGatewayId(o.gatewayId)
    this.topics = new GatewayTopics(checkTopicPrefix(o.topicPrefix), this.gatewayId)
    this.clock = o.clock ?? new RealClock()
    this.outbox = new Outbox(
      { maxQueuedEvents: o.maxQueuedEvents, maxInflight: o.maxInflight, ackTimeoutMs: o.ackTimeoutMs },
      {
        sent: (m) => {
          this.counters.messages++
          this.counters.bytes += Buffer.byteLength(m.topic) + Buffer.byteLength(m.payload)
          this.counters.byKind[m.kind]++
        },
        dropped: (info) => {
          this.counters.dropped[info.kind] += info.count
          this.emit('dropped', info)
        },
        // Reported once per reason; the rest are counted in stats.refused.
        refused: (info) => {
          if (this.outbox.refused[info.reason] === 1) this.emit('error', refusedError(info.reason, info.reasonCode))
        },
        acks: (info) => this.emit('warning', ackWarning(info, o.broker)),
      },
    )
    this.ha =
      o.homeAssistant === undefined
        ? undefined
        : GatewayHomeAssistant.forGateway(o.homeAssistant, this.topics, o.heartbeatMs, {
            retained: (topic, payload, options) => this.outbox.putRetained(topic, payload, options),
            status: (beacons, now) => {
              if (this.state !== 'connected' || this.#closing) return false
              const payload = statusPayload('online', this.statusTime(now), beacons, o.statusFields)
              this.outbox.putStatus(this.topics.status, payload)
              return true
            },
          })
    this.feed = new GatewayFeed(
      this.topics,
      { minIntervalMs: o.minIntervalMs, heartbeatMs: o.heartbeatMs },
      this.outbox,
      this.ha?.announcer,
      o.rssiPartitions,
    )
  }

  /** Counters and the connection state. */
  get stats(): MqttPublisherStats {
    const c = this.counters
    const stats: MqttPublisherStats = {
      state: this.state,
      messages: c.messages,
      bytes: c.bytes,
      byKind: { ...c.byKind },
      pending: this.outbox.pending,
      dropped: { ...c.dropped },
      connections: c.connections,
      refused: { ...this.outbox.refused },
      invalidIds: this.feed.invalidIds,
    }
    if (this.#disk !== undefined) stats.diskQueued = this.#disk.size
    if (this.ha !== undefined) stats.homeAssistant = this.ha.stats
    return stats
  }

  /** Shows where it publishes, never the client (whose options hold the password). */
  [inspect.custom](): string {
    const { gatewayId, state } = this
    return `MqttPublisher { gatewayId: '${gatewayId}', topicPrefix: '${this.topics.prefix}', state: '${state}' }`
  }

  /** What JSON.stringify shows: where it publishes and how it goes; never credentials. */
  toJSON(): { gatewayId: string; topicPrefix: string; stats: MqttPublisherStats } {
    return { gatewayId: this.gatewayId, topicPrefix: this.topics.prefix, stats: this.stats }
  }

  /**
   * Loads mqtt.js and starts connecting (or takes over the given `client`). Resolves once the
   * client exists, not once the broker answered: a broker that is down is retried with backoff
   * while the outbox keeps state. Rejects with a typed error for what retrying cannot fix
   * (mqtt.js not installed, an unreadable password or certificate file, a `queueDir` that cannot
   * be used or is locked by another process). With `queueDir` the disk queue is opened first:
   * events of an earlier run found there go out after the current state.
   */
  connect(): Promise<void> {
    if (this.state === 'closed')
      return Promise.reject(new MqttError('closed', 'this MqttPublisher is closed; create a new one'))
    this.#connecting ??= this.open()
    return this.#connecting
  }

  private async open(): Promise<void> {
    const o = this.#options
    this.state = 'connecting'
    if (o.queueDir !== undefined) await this.openDisk(o.queueDir, o.maxQueueBytes)
    // With Home Assistant on it listens (sweep, fleet watch): no packet larger than those need.
    const link = await openLink(
      o,
      o.clientId ?? defaultClientId(this.gatewayId),
      { topic: this.topics.status, payload: statusPayload('offline', this.statusTime(), undefined, o.statusFields) },
      this.ha === undefined ? undefined : HA_MAX_PACKET_BYTES,
    )
    // close() may have run while mqtt.js was loading.
    if ((this.state as MqttConnectionState) === 'closed') {
      await link.close()
      return
    }
    this.#link = link
    link.on('connected', (protocolVersion, sessionPresent) => this.onConnected(protocolVersion, sessionPresent))
    link.on('disconnected', () => {
      if (this.state === 'closed') return
      this.outbox.setClient(undefined)
      if (this.state === 'connected') {
        this.state = 'offline'
        this.emit('disconnected')
      }
    })
    link.on('error', (error) => this.emit('error', error))
    if (link.connected) this.onConnected(link.protocolVersion)
  }

  private async openDisk(dir: string, maxBytes: number): Promise<void> {
    const queue = await FileQueue.open<StoredEvent>({ dir, maxBytes, accept: isStoredEvent })
    if ((this.state as MqttConnectionState) === 'closed') {
      await queue.close()
      return
    }
    this.#disk = new DiskEvents(queue, this.#options.maxQueuedEvents, {
      ready: () => this.outbox.wake(),
      dropped: (info) => {
        this.counters.dropped.event += info.count
        this.emit('dropped', info)
      },
      warning: (warning) => this.emit('warning', warning),
      failed: (error) =>
        this.emit(
          'error',
          new MqttError('queue', `MQTT event queue in ${dir}: ${error.message}; check the disk`, { cause: error }),
        ),
    })
    this.outbox.useDisk(this.#disk)
  }

  private onConnected(protocolVersion: 4 | 5, sessionPresent = false): void {
    if (this.state === 'closed') return
    this.state = 'connected'
    this.counters.connections++
    const now = this.clock.now()
    // Status first, then every beacon's current state, then the queued events. Reconnected
    // while closing: the status to deliver is still `offline`.
    const ha = this.ha
    const beacons = this.scanner?.beacons()
    if (ha !== undefined && beacons !== undefined) ha.count(beacons.length, now, this.clock)
    this.outbox.putStatus(
      this.topics.status,
      statusPayload(this.#closing ? 'offline' : 'online', this.statusTime(), ha?.beacons, this.#options.statusFields),
    )
    ha?.statusSent(now)
    if (beacons !== undefined) this.feed.refresh(beacons, now)
    this.outbox.setClient(this.#link?.client)
    // The gateway device (and, without a kept session, every beacon config again), the fleet
    // watch, Home Assistant's birth, and (once) the configs an earlier run left.
    const link = this.#link
    if (ha !== undefined && link !== undefined)
      ha.connected(link, now, { first: this.counters.connections === 1, sessionPresent })
    this.emit('connected', { protocolVersion })
  }

  /**
   * The `time` of a status: the scanner's clock (replay time in a replay), except before that
   * clock has any time. A replay's clock reads 0 until its first line, which is read after the
   * broker connection is up; a status dated 1970 shows in Home Assistant as such, so the wall
   * clock stands in until the replay has started.
   */
  private statusTime(now = this.clock.now()): number {
    return now > 0 ? now : Date.now()
  }

  /**
   * Publishes the scanner's events from now on; returns a function that stops. The scanner's
   * clock becomes the publisher's (replay time in a replay).
   */
  attach(scanner: PublisherEventSource): () => void {
    this.detachScanner?.()
    this.scanner = scanner
    this.clock = this.#options.clock ?? scanner.clock
    const feed = this.feed
    const now = (): number => this.clock.now()
    const ha = this.ha
    // The status's beacons in range: found and gone between ticks, the tick's list is the truth.
    const found = (b: Beacon): void => {
      feed.found(b, now())
      ha?.count(ha.beacons + 1, now(), this.clock)
    }
    const gone = (b: Beacon): void => {
      feed.gone(b, now())
      ha?.count(ha.beacons - 1, now(), this.clock)
    }
    const updated = (bs: Beacon[]): void => {
      feed.updated(bs, now())
      ha?.count(bs.length, now(), this.clock)
    }
    const packet = (adv: Advertisement): void => feed.packet(adv.address)
    // A BeaconScanner's snapshots carry packet totals (packetsHeard): nothing to do per packet.
    const source = scanner.countsPackets === true ? undefined : scanner.source
    scanner.on('found', found)
    scanner.on('gone', gone)
    scanner.on('updated', updated)
    source?.on('advertisement', packet)
    if (ha !== undefined) ha.count(scanner.beacons().length, now(), this.clock)
    // At most a minute late: the expiry is days by default, and a minute of timers costs nothing.
    const cancelExpiry =
      ha === undefined
        ? undefined
        : this.clock.setInterval(
            () => feed.expireDiscovery(now()),
            Math.min(60_000, ha.announcer.gate.options.expireMs),
          )
    const detach = (): void => {
      cancelExpiry?.()
      scanner.off('found', found)
      scanner.off('gone', gone)
      scanner.off('updated', updated)
      source?.off('advertisement', packet)
      if (this.scanner === scanner) this.scanner = undefined
      if (this.detachScanner === detach) this.detachScanner = undefined
    }
    this.detachScanner = detach
    return detach
  }

  /**
   * Removes a beacon's Home Assistant entities: empty retained discovery configs for every
   * entity it may have had. Its state topic is left to the scanner (cleared when it is gone).
   */
  forget(beaconId: string): void {
    if (this.ha === undefined) return
    for (const c of this.ha.announcer.forget(beaconId)) this.outbox.putRetained(c.topic, c.payload, { always: true })
  }

  /** Resolves when everything queued has reached the broker, or after `timeoutMs` (false then). */
  flush(timeoutMs = 10_000): Promise<boolean> {
    return this.outbox.idle(timeoutMs)
  }

  /**
   * Stops publishing: detaches, publishes status `offline` (retained), waits for what is queued
   * and disconnects cleanly. The wait is bounded: at most `timeoutMs`, and no longer than
   * `ackTimeoutMs` without any acknowledgement (a broker that stopped answering ends it early).
   * Then whatever is not acknowledged is let go (and withdrawn from mqtt.js) and the connection
   * is dropped if a clean DISCONNECT does not finish within 2 s. Resolves with what was not
   * delivered; events in the `queueDir` queue stay there for the next run (`kept`).
   */
  async close(timeoutMs = 5000): Promise<MqttCloseResult> {
    if (this.state === 'closed') return { delivered: true, lost: 0, kept: 0 }
    this.#closing = true
    this.detachScanner?.()
    this.ha?.close()
    const link = this.#link
    const connecting = this.#connecting
    if (link === undefined && connecting !== undefined) await connecting.catch(() => undefined)
    let delivered = false
    if (this.#link !== undefined && this.#link.connected) {
      const offline = statusPayload('offline', this.statusTime(), undefined, this.#options.statusFields)
      this.outbox.putStatus(this.topics.status, offline)
      delivered = await this.outbox.idle(timeoutMs, this.#options.ackTimeoutMs)
    }
    this.state = 'closed'
    const { lost, kept } = this.outbox.abandon()
    this.outbox.setClient(undefined)
    await this.#link?.close()
    await this.#disk?.close()
    // Never connected: only the status `offline` of a run that said nothing else is not "lost".
    return { delivered: delivered || (lost === 0 && kept === 0), lost, kept }
  }
}
