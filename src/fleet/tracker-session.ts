/**
 * A fleet tracker's connection: it opens the link (its status the will, unless the client is a
 * root's), subscribes on every connection (the session is clean), says `online`, republishes
 * what a broker that lost its retained store no longer has, sweeps the Home Assistant configs an
 * earlier run left, and reads the retained beacon states once per start (ghost-states.ts).
 */

import type { Clock } from '../clock.js'
import type { MqttLink } from '../mqtt/connection.js'
import { ackWarning, watchAck } from '../mqtt/inflight.js'
import { openLink } from '../mqtt/link-secrets.js'
import { defaultClientId } from '../mqtt/publisher-options.js'
import type { resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { anyGatewayStatusTopic } from '../mqtt/topics.js'
import type { TickRunner } from './tick-runner.js'
import { PACKET_OVERHEAD_BYTES } from './tracker-limits.js'
import type { TrackerInbox } from './tracker-inbox.js'
import type { TrackerHost, TrackerParts } from './tracker-parts.js'

/** What the session reads of its tracker. */
export interface SessionHost {
  readonly options: ReturnType<typeof resolvePublisherOptions>
  readonly parts: TrackerParts
  readonly inbox: TrackerInbox
  readonly ticks: TickRunner
  readonly clock: Clock
  readonly topicPrefix: string
  readonly forgetTopic: string
  readonly clientId: string | undefined
  readonly maxPayloadBytes: number
  statusTopic(): string
  statusPayload(state: 'online' | 'offline'): string
  stopped(): boolean
  emit: TrackerHost['emit']
}

/** The connection of one FleetTracker start (see the file comment). */
export class TrackerSession {
  /** The link, once opened. */
  link: MqttLink | undefined
  private ghostsRead = false
  private swept = false
  private wakeStart: (() => void) | undefined

  constructor(private readonly host: SessionHost) {}

  /**
   * Loads mqtt.js, connects (the tracker's status the will), and resolves once subscribed; the
   * tick starts meanwhile.
   */
  async open(): Promise<void> {
    const o = this.host.options
    // Trackers that share the beacons need one client id each: the tracker id is unique.
    const defaultId =
      this.host.parts.scaleOut === undefined
        ? defaultClientId('fleet')
        : `beaconkit-fleet-${this.host.parts.scaleOut.trackerId}`
    const link = await openLink(
      o,
      this.host.clientId ?? defaultId,
      { topic: this.host.statusTopic(), payload: this.host.statusPayload('offline') },
      this.host.maxPayloadBytes + PACKET_OVERHEAD_BYTES,
    )
    if (this.host.stopped()) {
      await link.close()
      return
    }
    this.link = link
    const subscribed = new Promise<void>((resolve) => {
      this.wakeStart = resolve
    })
    link.on('connected', (protocolVersion, sessionPresent) => void this.onConnected(protocolVersion, sessionPresent))
    link.on('disconnected', () => {
      if (this.host.stopped()) return
      this.host.parts.outbox.setClient(undefined)
      this.host.parts.reader.cancel()
      this.host.parts.scaleOut?.disconnected()
      this.host.emit('disconnected')
    })
    link.on('error', (error) => this.host.emit('error', error))
    link.on('message', (topic, payload, retained) => this.host.inbox.onMessage(topic, payload, retained))
    if (link.connected) void this.onConnected(link.protocolVersion)
    this.host.ticks.start()
    await subscribed
  }

  /** Subscribes (again: the session is clean), says `online`, republishes what a broker may have lost. */
  private async onConnected(protocolVersion: 4 | 5, sessionPresent = false): Promise<void> {
    const link = this.link
    if (this.host.stopped() || link === undefined) return
    try {
      // A clean session forgets subscriptions: subscribe on every connection. With scale-out
      // the partitions come later, once the live trackers are known.
      const so = this.host.parts.scaleOut
      // Beacon states are not partitioned: every tracker reads them all (bounded: beacon-claims.ts).
      const base = [
        anyGatewayStatusTopic(this.host.topicPrefix),
        this.host.parts.reader.syncTopic,
        `${this.host.topicPrefix}/gateways/+/beacons/+`,
        this.host.forgetTopic,
      ]
      const filters =
        so === undefined ? [...base, `${this.host.topicPrefix}/gateways/+/rssi`] : [...base, ...so.filters]
      await watchAck(
        this.host.options.ackTimeoutMs,
        (info) => this.host.emit('warning', ackWarning(info, this.host.options.broker)),
        link.subscribe(filters, 1),
      )
    } catch (error) {
      // Lost the connection meanwhile: the next `connected` subscribes again. Stopped meanwhile: nothing to say.
      if (this.host.stopped()) return
      this.host.emit('error', error instanceof Error ? error : new Error(String(error)))
      return
    }
    if (this.host.stopped()) return
    if (this.host.parts.scaleOut === undefined)
      this.host.parts.outbox.putStatus(this.host.statusTopic(), this.host.statusPayload('online'))
    else this.host.parts.scaleOut.connected()
    this.host.parts.outbox.setClient(link.client)
    // No session kept: the broker may have lost its retained messages (restarted without
    // persistence). Not with scale-out, where beacons move between trackers.
    if (!sessionPresent && this.host.parts.scaleOut === undefined) {
      this.host.parts.topics.republish(this.host.parts.state.list(this.host.clock.now()))
      this.host.parts.presence.republish()
      this.host.parts.occupancy?.republish()
    }
    this.host.parts.birth?.connected(link)
    // Configs an earlier run left: once. Not with scale-out, where another tracker may own them.
    if (!this.swept && this.host.parts.scaleOut === undefined) {
      this.swept = true
      void this.host.parts.topics.sweep(link, this.host.clock.now(), (id) => this.host.parts.facts.describe(id)?.name)
    }
    this.host.emit('connected', { protocolVersion })
    this.wakeStart?.()
    this.wakeStart = undefined
    if (!this.ghostsRead) this.readGhosts()
  }

  /** Reads the retained states once per start (again when they did not all fit): see ghost-states.ts. */
  readGhosts(): void {
    const link = this.link
    if (link === undefined || this.host.stopped()) return
    this.ghostsRead = true
    this.host.parts.ghosts
      .read(link, this.host.parts.reader, () => this.host.clock.now())
      .catch(() => {
        // Lost the connection meanwhile: read again on the next one.
        this.ghostsRead = false
      })
  }

  /** Lets a start that waits for the subscription go (the tracker stops). */
  wake(): void {
    this.wakeStart?.()
    this.wakeStart = undefined
  }
}
