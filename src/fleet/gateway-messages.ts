/**
 * Reading what arrives on the gateways' topics: which gateway and which kind of message a topic
 * names, and the JSON body. Anything that is not the contract is told apart from what is
 * simply not for the tracker, so the first is counted and the second ignored.
 */

import { GATEWAY_ID } from './wire.js'

/** A gateway message: its gateway id (from the topic), its kind and parsed body. */
export interface GatewayMessage {
  gateway: string
  kind: 'rssi' | 'status'
  body: unknown
}

/** A partition level of `…/rssi/<n>`: 0–1023 (scale-out allows up to 1024 partitions). */
const PARTITION = /^(0|[1-9][0-9]{0,3})$/

/**
 * The message on `topic` under `<p>/gateways/`: `'ignore'` for topics that are not a status or
 * batch (or an empty retained message, which clears a topic), `'invalid_id'` for a status or
 * batch whose gateway id (or partition) is not one ({@link GATEWAY_ID}: anyone may publish any
 * topic, and the id becomes a map key the map and the CLI show), `'unparsable'` for a body
 * that is not JSON. `partitioned`: batches arrive as `…/rssi/<n>` (scale-out).
 */
export function readGatewayMessage(
  base: string,
  topic: string,
  payload: Buffer,
  partitioned: boolean,
): GatewayMessage | 'ignore' | 'invalid_id' | 'unparsable' {
  if (!topic.startsWith(base)) return 'ignore'
  const [gateway, kind, extra, more] = topic.slice(base.length).split('/')
  if (gateway === undefined || more !== undefined || (kind !== 'rssi' && kind !== 'status')) return 'ignore'
  if ((extra !== undefined) !== (partitioned && kind === 'rssi')) return 'ignore'
  if (payload.length === 0) return 'ignore'
  if (!GATEWAY_ID.test(gateway) || (extra !== undefined && !PARTITION.test(extra))) return 'invalid_id'
  try {
    return { gateway, kind, body: JSON.parse(payload.toString('utf8')) as unknown }
  } catch {
    return 'unparsable'
  }
}

/** The `time` of a gateway status body (ms, the gateway's clock), or undefined when it is not a finite number. */
export function statusTime(body: unknown): number | undefined {
  const time = typeof body === 'object' && body !== null ? (body as { time?: unknown }).time : undefined
  return typeof time === 'number' && Number.isFinite(time) ? time : undefined
}

/** The `state` of a gateway status body, or undefined when it is not of the contract's shape. */
export function statusState(body: unknown): 'online' | 'offline' | undefined {
  const state = typeof body === 'object' && body !== null ? (body as { state?: unknown }).state : undefined
  return state === 'online' || state === 'offline' ? state : undefined
}
