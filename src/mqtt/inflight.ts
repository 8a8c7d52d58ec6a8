/**
 * What has been handed to mqtt.js at QoS 1 and waits for its PUBACK: counted, watched for a
 * broker that stopped acknowledging (told once when it stops, once when it resumes), and
 * withdrawn from mqtt.js's store when the sender gives up, so nothing given up on stays inside
 * mqtt.js.
 */

import { outgoingId, withdrawPublish } from './outgoing.js'
import type { MqttClientLike } from './client.js'
import { POISON_STRIKES } from './refusals.js'

/** Default of `ackTimeoutMs`: a PUBACK later than this means the broker stopped acknowledging. */
export const DEFAULT_ACK_TIMEOUT_MS = 5000

/**
 * The broker stopped acknowledging (`stalled`: messages are in flight and none was acknowledged
 * for `ackTimeoutMs`) or started again (`resumed`: the next acknowledgement). Told once per
 * change, not per message; one message the broker never acknowledges while it acknowledges the
 * others is not a stall.
 */
export interface AckStallInfo {
  state: 'stalled' | 'resumed'
  /** QoS 1 messages handed to mqtt.js and not yet acknowledged. */
  inflight: number
  /** How long nothing was acknowledged while messages waited. */
  waitedMs: number
}

/** One message handed over, until its PUBACK or until it is withdrawn. */
interface Flight<T> {
  item: T
  client: MqttClientLike
  /** Real time (Date.now): acknowledgements are a wall-clock matter, also in a virtual replay. */
  since: number
  callback: (error?: Error) => void
  /** mqtt.js's packet id, to withdraw it. */
  id: number | undefined
  /** Connection losses while it was the oldest in flight, in a row (refusals.ts). */
  strikes: number
}

/** The QoS 1 messages of one sender that mqtt.js holds. */
export class InFlight<T> {
  /** In hand-over order: the first is the oldest. */
  private readonly flights = new Set<Flight<T>>()
  /** When the broker last acknowledged something (Date.now). */
  private ackedAt = Date.now()
  private stalledSince: number | undefined
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly ackTimeoutMs: number,
    private readonly onAcks: (info: AckStallInfo) => void,
  ) {}

  get size(): number {
    return this.flights.size
  }

  /** When the broker last acknowledged a message of this sender (Date.now), or when this began. */
  get lastAck(): number {
    return this.ackedAt
  }

  /** The items in flight, oldest first. */
  items(): T[] {
    return [...this.flights].map((f) => f.item)
  }

  /**
   * Publishes at QoS 1 and calls `done` once: with no error on the PUBACK, with mqtt.js's error
   * when it gives up. Never after {@link InFlight.withdrawAll}.
   */
  publish(
    client: MqttClientLike,
    topic: string,
    payload: string | Buffer,
    retain: boolean,
    item: T,
    done: (error?: Error) => void,
  ): void {
    const flight: Flight<T> = { item, client, since: Date.now(), callback: () => undefined, id: undefined, strikes: 0 }
    flight.callback = (error?: Error) => {
      // Withdrawn meanwhile: its sender has already let it go.
      if (!this.flights.delete(flight)) return
      if (error === undefined || error === null) this.acknowledged()
      done(error ?? undefined)
    }
    this.flights.add(flight)
    client.publish(topic, payload, { qos: 1, retain }, flight.callback)
    if (this.flights.has(flight)) flight.id = outgoingId(client, flight.callback)
    this.watch()
  }

  /** Takes one item's message out of mqtt.js (its `done` is not called); false when it is not in flight. */
  withdraw(item: T): boolean {
    for (const f of this.flights) {
      if (f.item !== item) continue
      this.flights.delete(f)
      withdrawPublish(f.client, f.id, f.callback)
      return true
    }
    return false
  }

  /**
   * The connection dropped: a strike against the oldest message in flight. At
   * {@link POISON_STRIKES} in a row it is taken out of mqtt.js (its `done` is not called) and
   * returned: a poison message the broker closes the connection on, which mqtt.js would resend
   * first on every reconnect for ever. A healthy message is acknowledged after a reconnect.
   */
  strike(): T | undefined {
    const oldest = this.flights.values().next().value
    if (oldest === undefined || ++oldest.strikes < POISON_STRIKES) return undefined
    this.flights.delete(oldest)
    withdrawPublish(oldest.client, oldest.id, oldest.callback)
    return oldest.item
  }

  /** Takes every message out of mqtt.js (their `done` is not called) and stops watching. */
  withdrawAll(): void {
    for (const f of [...this.flights]) {
      this.flights.delete(f)
      withdrawPublish(f.client, f.id, f.callback)
    }
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Since when messages wait with no acknowledgement: the later of the oldest hand-over and the last PUBACK. */
  private quietSince(): number | undefined {
    const oldest = this.flights.values().next().value
    return oldest === undefined ? undefined : Math.max(oldest.since, this.ackedAt)
  }

  /** Arms the stall check while something is in flight and acknowledgements are not known to be stalled. */
  private watch(): void {
    if (this.timer !== undefined || this.stalledSince !== undefined) return
    const since = this.quietSince()
    if (since === undefined) return
    this.timer = setTimeout(() => this.check(), Math.max(0, since + this.ackTimeoutMs - Date.now()))
    // Unref'd: a check must not keep alive a process that has nothing else to do.
    this.timer.unref?.()
  }

  private check(): void {
    this.timer = undefined
    const since = this.quietSince()
    if (since === undefined) return
    const waitedMs = Date.now() - since
    if (waitedMs < this.ackTimeoutMs) return this.watch()
    this.stalledSince = since
    this.onAcks({ state: 'stalled', inflight: this.flights.size, waitedMs })
  }

  private acknowledged(): void {
    const now = Date.now()
    this.ackedAt = now
    if (this.stalledSince !== undefined) {
      const waitedMs = now - this.stalledSince
      this.stalledSince = undefined
      this.onAcks({ state: 'resumed', inflight: this.flights.size, waitedMs })
    }
    this.watch()
  }
}

/**
 * Waits for one acknowledgement (a SUBACK: `work` is the subscribe); tells `stalled` once if it
 * takes longer than `ackTimeoutMs`, and `resumed` when it comes after all (not when it fails:
 * the connection is gone, which says enough).
 */
export async function watchAck<T>(
  ackTimeoutMs: number,
  onAcks: (info: AckStallInfo) => void,
  work: Promise<T>,
): Promise<T> {
  const started = Date.now()
  let late = false
  const timer = setTimeout(() => {
    late = true
    onAcks({ state: 'stalled', inflight: 1, waitedMs: Date.now() - started })
  }, ackTimeoutMs)
  timer.unref?.()
  try {
    const result = await work
    if (late) onAcks({ state: 'resumed', inflight: 0, waitedMs: Date.now() - started })
    return result
  } finally {
    clearTimeout(timer)
  }
}

/** A `warning` event of a publisher or tracker: the broker stopped (or resumed) acknowledging. */
export interface MqttAckWarning {
  code: 'acks_stalled' | 'acks_resumed'
  message: string
  /** QoS 1 messages waiting for their PUBACK. */
  inflight: number
  /** How long nothing was acknowledged while messages waited. */
  waitedMs: number
}

/** The warning for a stall change; `broker` names it, e.g. the URL. */
export function ackWarning(info: AckStallInfo, broker: string): MqttAckWarning {
  const seconds = Math.round(info.waitedMs / 100) / 10
  return info.state === 'stalled'
    ? {
        code: 'acks_stalled',
        message:
          `mqtt: ${broker} has acknowledged nothing for ${seconds} s (${info.inflight} messages waiting); ` +
          'is the broker overloaded or frozen?',
        inflight: info.inflight,
        waitedMs: info.waitedMs,
      }
    : {
        code: 'acks_resumed',
        message: `mqtt: ${broker} acknowledges again (after ${seconds} s)`,
        inflight: info.inflight,
        waitedMs: info.waitedMs,
      }
}

/** What a close or stop could not deliver before its deadline. */
export interface MqttCloseResult {
  /** True when everything queued was acknowledged. */
  delivered: boolean
  /** Messages let go unacknowledged (status, retained states, events held in memory). */
  lost: number
  /** Events left in the `queueDir` disk queue, sent by the next run. */
  kept: number
}
