/**
 * Messages in flight and how a refused one is recognised: an MQTT 5 PUBACK with a failure reason
 * code, or a message that was the oldest unacknowledged one each time the connection dropped (a
 * poison message: Mosquitto closes the connection on a packet it cannot take, and mqtt.js
 * resends the unacknowledged messages first on every reconnect, so it would loop for ever).
 */

import { MqttError } from '../errors.js'
import type { MqttClientLike } from './connection.js'

/**
 * Why a message was given up as one the broker will never take: its topic is not a valid
 * publish topic (`invalid_topic`, never sent), an MQTT 5 PUBACK said no (`broker_refused`:
 * reason code ≥ 0x80, e.g. 0x87 not authorized by an ACL), or the connection dropped while it
 * was the oldest unacknowledged message {@link POISON_STRIKES} times in a row (`poison`).
 */
export type MqttRefusedReason = 'invalid_topic' | 'broker_refused' | 'poison'

/**
 * Connection losses in a row with the same message oldest in flight before it is given up as
 * poison. A healthy message survives a flapping link: it is acknowledged after the reconnect.
 */
export const POISON_STRIKES = 3

/** The mqtt.js 5 internals needed to take a poison message out of the client's resend store. */
interface OutgoingStore {
  outgoing?: Record<number, { cb?: unknown } | undefined>
  removeOutgoingMessage?(messageId: number): unknown
  getLastMessageId?(): number | null | undefined
}

/** A QoS 1 message handed to the client and not yet acknowledged. */
export interface Inflight<M> {
  readonly m: M
  /** The publish callback handed to the client. */
  callback: (error?: Error) => void
  /** Connection losses while it was the oldest in flight, in a row. */
  strikes: number
  /** Taken out of the client as poison: its error callback means dropped, not requeued. */
  poisoned: boolean
  /** Its packet id in the client: mqtt.js wraps the callback when it resends, so the id is what finds it. */
  messageId?: number
}

/** QoS 1 messages handed to the client and not yet acknowledged, oldest first. */
export class Unacked<M> {
  private readonly set = new Set<Inflight<M>>()

  /** Tracks `m`; `done` runs when the client calls back (tracking has stopped by then). */
  add(m: M, done: (f: Inflight<M>, error?: Error) => void): Inflight<M> {
    const f: Inflight<M> = { m, strikes: 0, poisoned: false, callback: () => undefined }
    f.callback = (error) => {
      this.set.delete(f)
      done(f, error)
    }
    this.set.add(f)
    return f
  }

  /** `f` was just handed to `client.publish`: learn its packet id (when mqtt.js sent it at once). */
  published(f: Inflight<M>, client: MqttClientLike): void {
    const c = client as MqttClientLike & OutgoingStore
    const id = c.getLastMessageId?.()
    if (typeof id === 'number' && c.outgoing?.[id]?.cb === f.callback) f.messageId = id
  }

  /**
   * The connection of `client` dropped: the oldest message in flight gets a strike; at
   * POISON_STRIKES it is taken out of mqtt.js's store, which calls its callback with an error
   * (and `poisoned` set: the caller drops it).
   */
  strike(client: MqttClientLike): void {
    const oldest = this.set.values().next()
    if (oldest.done === true) return
    const f = oldest.value
    if (++f.strikes < POISON_STRIKES) return
    const store = client as MqttClientLike & OutgoingStore
    if (store.outgoing === undefined || typeof store.removeOutgoingMessage !== 'function') return
    let id = f.messageId
    // Published while mqtt.js was resending its store: found by its callback, unwrapped until resent.
    if (id === undefined) for (const [k, o] of Object.entries(store.outgoing)) if (o?.cb === f.callback) id = Number(k)
    if (id === undefined || store.outgoing[id] === undefined) return
    f.poisoned = true
    store.removeOutgoingMessage(id)
  }
}

/** The MQTT 5 reason code of a refused PUBACK (≥ 0x80), or undefined for other errors (a closed connection: retried). */
export function refusalCode(error: Error): number | undefined {
  const code = (error as { code?: unknown }).code
  return typeof code === 'number' && code >= 0x80 && code <= 0xff ? code : undefined
}

const WHY: Record<MqttRefusedReason, string> = {
  invalid_topic: 'its topic is not a valid MQTT publish topic (a wildcard, a control character or too long)',
  broker_refused: 'the broker refused it (MQTT 5 PUBACK reason code; an ACL?)',
  poison: `the broker closed the connection each time it was sent (${POISON_STRIKES} times)`,
}

/**
 * The warning for the first message refused for `reason` (later ones are only counted): what
 * happened and what to check. Never the topic or payload, which may be hostile.
 */
export function refusedError(reason: MqttRefusedReason, reasonCode?: number): MqttError {
  const code = reasonCode === undefined ? '' : ` (reason code 0x${reasonCode.toString(16)})`
  return new MqttError('publish_refused', `an MQTT message was dropped: ${WHY[reason]}${code}; later ones are counted in stats; check the broker's ACL and the ids published`)
}
