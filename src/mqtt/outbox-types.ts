/**
 * The shapes around the outbox (outbox.ts): a message, why messages are dropped or refused, what
 * is left undelivered at close, and the outbox's hooks and limits.
 */

import type { QueuedRecord } from '../queue/queue.js'
import type { AckStallInfo } from './inflight.js'
import type { StoredEvent } from './disk-events.js'
import type { MqttRefusedReason } from './refusals.js'

/** One message. */
export interface OutMessage {
  kind: 'status' | 'retained' | 'event' | 'rssi'
  topic: string
  payload: string
  qos: 0 | 1
  retain: boolean
  /** An event read from the disk queue: removed from it once the broker acknowledged it. */
  record?: QueuedRecord<StoredEvent>
}

/**
 * Why messages were dropped: the in-memory or disk bound (`queue_full`), RSSI while offline,
 * events left in memory at close, and for the disk queue (`queueDir`) damaged or deleted
 * segment files (`corrupt`, `missing`) and writes that failed (`write_failed`: disk full?).
 */
export type MqttDropReason = 'queue_full' | 'offline' | 'closed' | 'corrupt' | 'missing' | 'write_failed'

/** Counted when messages are let go on purpose. */
export interface MqttDropInfo {
  count: number
  reason: MqttDropReason
  /** `event` for the events topic, `rssi` for batches (QoS 0: not kept while offline). */
  kind: 'event' | 'rssi'
  /** For `corrupt` and `missing`: the segment file of the queue directory concerned. */
  segment?: string
}

/** A message handed to the client, as the `sent` hook sees it (an RSSI batch is bytes). */
export interface SentMessage {
  kind: OutMessage['kind']
  topic: string
  payload: string | Uint8Array
}

/** A message given up as refused (counted, never retried). */
export interface MqttRefusedInfo {
  reason: MqttRefusedReason
  kind: OutMessage['kind']
  /** Only the topic's length: the topic itself may be hostile bytes. */
  topicLength: number
  /** The PUBACK reason code, for `broker_refused`. */
  reasonCode?: number
}

/** What was not acknowledged when an `Outbox` gave up at close. */
export interface Undelivered {
  /** Messages let go (status, retained states, events kept in memory). */
  lost: number
  /** Events that stay in the `queueDir` disk queue for the next run. */
  kept: number
}

/** Callbacks of an `Outbox`. */
export interface OutboxHooks {
  sent(message: SentMessage): void
  dropped(info: MqttDropInfo): void
  /** A message the broker will not take was dropped (see {@link MqttRefusedReason}). */
  refused?(info: MqttRefusedInfo): void
  /** Acknowledgements stopped or resumed (inflight.ts). */
  acks?(info: AckStallInfo): void
}

/** Limits of an `Outbox`. */
export interface OutboxLimits {
  /** Events kept while the broker is away; the oldest go first beyond it. */
  maxQueuedEvents: number
  /** QoS 1 messages handed to mqtt.js and not yet acknowledged. */
  maxInflight: number
  /**
   * A PUBACK that takes longer says the broker stopped acknowledging. Default `DEFAULT_ACK_TIMEOUT_MS`
   * (inflight.ts).
   */
  ackTimeoutMs?: number
}

/** How a retained message is put (see `Outbox.putRetained`). */
export interface RetainOptions {
  /** Clear the topic even if this run never wrote it (what an earlier run left). */
  always?: boolean
}
