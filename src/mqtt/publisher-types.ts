/** The public shapes of MqttPublisher: its connection state, events, counters and event source. */

import type { Advertisement } from '../advertisement.js'
import type { Clock } from '../clock.js'
import type { QueueWarning } from '../queue/queue.js'
import type { Beacon } from '../reading.js'
import type { HaPublisherStats } from './ha-gateway.js'
import type { MqttAckWarning } from './inflight.js'
import type { MqttDropInfo, OutMessage } from './outbox-types.js'
import type { MqttRefusedReason } from './refusals.js'

/** The broker connection as the publisher sees it. */
export type MqttConnectionState = 'idle' | 'connecting' | 'connected' | 'offline' | 'closed'

/** Events of an `MqttPublisher`. */
export interface MqttPublisherEvents {
  /** Connected (again); `protocolVersion` 5, or 4 for MQTT 3.1.1 when the broker refused 5. */
  connected: [info: { protocolVersion: 4 | 5 }]
  /** The connection was lost; publishing resumes, current state first, on reconnect. */
  disconnected: []
  /** Messages let go on purpose: events beyond the queue bound, RSSI batches while offline. */
  dropped: [info: MqttDropInfo]
  /** A connection problem (the publisher keeps retrying) or a listener that threw. */
  error: [error: Error]
  /**
   * Something to act on that the publisher copes with by itself: the broker stopped
   * acknowledging (`acks_stalled`: nothing acknowledged for `ackTimeoutMs`) or acknowledges again
   * (`acks_resumed`), once per change; with `queueDir`, something the disk queue found and set
   * right (a damaged ack file ignored, an unreadable segment).
   */
  warning: [warning: MqttAckWarning | QueueWarning]
}

/** Counters of an `MqttPublisher`. */
export interface MqttPublisherStats {
  state: MqttConnectionState
  /** Messages handed to the broker (QoS 1: acknowledged). */
  messages: number
  /** Topic plus payload bytes of those messages. */
  bytes: number
  /** By kind. */
  byKind: Record<OutMessage['kind'], number>
  /** Messages waiting for the broker. */
  pending: number
  /** Events dropped (queue full, closed, disk damage) and RSSI batches dropped while offline. */
  dropped: { event: number; rssi: number }
  /** With `queueDir`: events in the disk queue (written, not yet acknowledged by the broker). */
  diskQueued?: number
  /** Connections made (1 + reconnects). */
  connections: number
  /**
   * Messages dropped because the broker will never take them (docs/mqtt.md "Refused
   * publishes"): an invalid topic, a refusing MQTT 5 PUBACK, a poison message. Never retried.
   */
  refused: Record<MqttRefusedReason, number>
  /** Beacon states not published because the beacon id cannot be a topic level (counted per time due). */
  invalidIds: number
  /**
   * With Home Assistant discovery: beacons announced, refused at the cap and removed, and the mode
   * (standalone or in a fleet).
   */
  homeAssistant?: HaPublisherStats
}

/** What `MqttPublisher.attach` listens to: a `BeaconScanner`, or anything with its events. */
export interface PublisherEventSource {
  readonly clock: Clock
  /**
   * Advertisements, counted per beacon for the RSSI batch (not needed from a BeaconScanner, whose
   * snapshots count them).
   */
  readonly source?: {
    on(event: 'advertisement', fn: (adv: Advertisement) => void): unknown
    off(event: 'advertisement', fn: (adv: Advertisement) => void): unknown
  }
  beacons(): Beacon[]
  /**
   * True when `updated` snapshots already carry packet totals (a BeaconScanner's do): `source` is then
   * not listened to.
   */
  readonly countsPackets?: boolean
  on(event: 'found' | 'gone', fn: (b: Beacon) => void): unknown
  on(event: 'updated', fn: (bs: Beacon[]) => void): unknown
  off(event: 'found' | 'gone', fn: (b: Beacon) => void): unknown
  off(event: 'updated', fn: (bs: Beacon[]) => void): unknown
}
