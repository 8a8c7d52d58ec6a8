/**
 * Finding and withdrawing a QoS 1 publish in mqtt.js's outgoing store, so a publish whose waiter
 * gave up does not stay in memory until a PUBACK that may never come.
 */

import type { MqttClientLike, OutgoingStore } from './client.js'

/**
 * The packet id mqtt.js gave a QoS 1 publish, found by its callback; call it right after
 * `publish()` (mqtt.js stores the message synchronously while connected). After a reconnect
 * mqtt.js wraps the callback of a resent message, so later only this id finds it again.
 */
export function outgoingId(client: MqttClientLike, callback: (error?: Error) => void): number | undefined {
  const c = client as MqttClientLike & OutgoingStore
  const store = c.outgoing
  if (store === undefined) return undefined
  // The publish just made is the last one numbered: found at once. Searching the whole table
  // per publish cost O(in flight) each — quadratic for many publishers on one shared client
  // (the foreign-input bridge's nodes: 37 % of its CPU, measured).
  const last = typeof c.getLastMessageId === 'function' ? c.getLastMessageId() : undefined
  if (typeof last === 'number' && store[last]?.cb === callback) return last
  for (const [id, entry] of Object.entries(store)) if (entry?.cb === callback) return Number(id)
  return undefined
}

/**
 * Takes a QoS 1 publish that waits for its PUBACK out of mqtt.js's outgoing store; mqtt.js calls
 * its callback with an error. mqtt.js keeps such a message, payload and all, until the broker
 * acknowledges it, across reconnects: one whose waiter gave up must go, or a broker that never
 * acknowledges grows the process without bound. `messageId` is {@link outgoingId}'s answer: it
 * still belongs to this message as long as its callback has not been called (mqtt.js frees an id
 * only after calling back). Returns false when the message is not there.
 */
export function withdrawPublish(
  client: MqttClientLike,
  messageId: number | undefined,
  callback: (error?: Error) => void,
): boolean {
  const store = client as MqttClientLike & OutgoingStore
  if (store.outgoing === undefined || typeof store.removeOutgoingMessage !== 'function') return false
  const id =
    messageId !== undefined && store.outgoing[messageId] !== undefined ? messageId : outgoingId(client, callback)
  if (id === undefined) return false
  store.removeOutgoingMessage(id)
  return true
}
