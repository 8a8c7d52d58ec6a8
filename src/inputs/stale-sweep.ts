/**
 * The stale sweep of a starting foreign-input bridge (docs/fleet.md "Mixed fleets"): a bridge
 * that was killed left its nodes' retained statuses `online` (their will is the bridge's, on
 * another topic). Once connected, the bridge reads the retained `<p>/gateways/+/status`; every
 * one that says `online` via this bridge, for a node not heard within the grace after start, is
 * set `offline` by the bridge. Anyone on the broker can publish such statuses, so the sweep is
 * bounded: at most `maxNodes` topics, bodies over 4 KiB or not JSON skipped and counted, ids
 * checked; the worst a forger gets is `maxNodes` `offline` publishes.
 */

import type { Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import type { MqttLink } from '../mqtt/connection.js'
import { statusPayload } from '../mqtt/payloads.js'
import { anyGatewayStatusTopic, GATEWAY_ID } from '../mqtt/topics.js'
import { publishRetained } from './bridge-liveness.js'

/** Counters of one sweep. */
export interface StaleSweepStats {
  /** Retained gateway statuses read. */
  read: number
  /** Of those, skipped: empty, over 4 KiB, not a JSON object, or an unusable gateway id. */
  skipped: number
  /** `online` via this bridge beyond the `maxNodes` bound: left alone. */
  beyondBound: number
  /** `online` via this bridge, for a node heard within the grace: left alone. */
  live: number
  /** Set `offline` (published retained, acknowledged by the broker). */
  cleared: number
}

/** What {@link sweepStaleNodes} resolves with. */
export interface StaleSweepResult {
  stats: StaleSweepStats
  /**
   * False when the connection went before the sweep was over (the subscription failed, or a
   * publish was not acknowledged): the bridge sweeps again on its next connection.
   */
  complete: boolean
}

/** What a sweep needs from its bridge. */
export interface StaleSweepSettings {
  prefix: string
  bridgeId: string
  /** The bridge's own retained status topic: its retained `online` arriving ends the reading (see below). */
  markerTopic: string
  maxNodes: number
  /**
   * When the grace ends, wall-clock ms (`Date.now()`: a real wait, whatever the bridge's clock):
   * nodes unheard by then are stale.
   */
  graceEnds: number
  /** Time of the `offline` payloads (the bridge's clock, as its nodes' statuses). */
  clock: Clock
  /** Whether the bridge has heard the node since it started. */
  live(node: string): boolean
  /** Aborted when the bridge closes: the sweep stops waiting and publishes nothing more. */
  signal: AbortSignal
}

/** Bodies of statuses are small (payloads.ts): a larger one is skipped unparsed. */
const MAX_STATUS_BYTES = 4096
/** After the grace, how long the sweep still waits for the retained messages to end. */
const MARKER_WAIT_MS = 10_000
/** Time for the broker to acknowledge the sweep's publishes. */
const PUBLISH_TIMEOUT_MS = 5000

/** Zeroed counters. */
export function zeroSweepStats(): StaleSweepStats {
  return { read: 0, skipped: 0, beyondBound: 0, live: 0, cleared: 0 }
}

/**
 * The `via` of an `online` status body, or undefined (another state, no `via`); 'skip' for a
 * body that is not a status.
 */
function onlineVia(payload: Buffer): string | undefined | 'skip' {
  if (payload.length === 0 || payload.length > MAX_STATUS_BYTES) return 'skip'
  let body: unknown
  try {
    body = JSON.parse(payload.toString('utf8'))
  } catch {
    return 'skip'
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'skip'
  const { state, via } = body as { state?: unknown; via?: unknown }
  return state === 'online' && typeof via === 'string' ? via : undefined
}

/**
 * Resolves after `ms` (unref'd: a sweep never keeps a process alive), when `signal` aborts, or
 * when `early` settles.
 */
function wait(ms: number, signal: AbortSignal, early?: Promise<void>): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    timer.unref()
    signal.addEventListener('abort', done)
    void early?.then(done)
  })
}

/**
 * The filters a sweep subscribes to; the bridge's message handler leaves their messages to it.
 * The marker's filter comes last: brokers send the retained messages of one SUBSCRIBE filter by
 * filter, so the bridge's own retained `online` (published before subscribing) arrives after
 * every retained gateway status — known, not guessed by a time window.
 */
export function sweepFilters(prefix: string, markerTopic: string): string[] {
  return [anyGatewayStatusTopic(prefix), markerTopic]
}

/** True for a topic of {@link sweepFilters}: a gateway status or the marker. */
export function isSweepTopic(prefix: string, markerTopic: string, topic: string): boolean {
  if (topic === markerTopic) return true
  const levels = topic.split('/')
  const filter = anyGatewayStatusTopic(prefix).split('/')
  return levels.length === filter.length && filter.every((l, i) => l === '+' || l === levels[i])
}

/** The checked `staleGraceMs` (default 30 s). */
export function checkGraceMs(ms: unknown): number {
  if (ms === undefined) return 30_000
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new InvalidOptionError('invalid_option', `staleGraceMs must be a number of ms ≥ 0, not ${String(ms)}`, {
      option: 'staleGraceMs',
    })
  return ms
}

/**
 * Runs one sweep on a connected link (see the file comment) and unsubscribes the marker. Resolves with its
 * counters; a broker that refuses the subscription (an ACL) leaves everything as it is.
 */
export async function sweepStaleNodes(link: MqttLink, s: StaleSweepSettings): Promise<StaleSweepResult> {
  const stats = zeroSweepStats()
  const stale = new Set<string>()
  const nodeLevel = anyGatewayStatusTopic(s.prefix).split('/').indexOf('+')
  let markerSeen = false
  let markerArrived: () => void = () => undefined
  const marker = new Promise<void>((resolve) => (markerArrived = resolve))
  const onMessage = (topic: string, payload: Buffer, retained: boolean): void => {
    // Live messages (the bridge's own nodes saying `online` now) are not what a dead bridge left.
    if (!retained) return
    if (topic === s.markerTopic) {
      markerSeen = true
      markerArrived()
      return
    }
    if (!isSweepTopic(s.prefix, s.markerTopic, topic)) return
    stats.read++
    const node = topic.split('/')[nodeLevel]
    const via = onlineVia(payload)
    if (via === 'skip' || !GATEWAY_ID.test(node)) {
      stats.skipped++
      return
    }
    if (via !== s.bridgeId || stale.has(node)) return
    if (stale.size >= s.maxNodes) stats.beyondBound++
    else stale.add(node)
  }
  const filters = sweepFilters(s.prefix, s.markerTopic)
  link.on('message', onMessage)
  try {
    // QoS 0: at QoS 1 Mosquitto delivered 1,020 of 3,000 retained statuses and not the marker
    // (its max_queued_messages 1000 + 20 in flight, measured); at QoS 0 all of them.
    await link.subscribe(filters, 0)
    await wait(s.graceEnds - Date.now(), s.signal)
    // The grace is over; the retained messages of a slow broker may still be coming (bounded).
    if (!markerSeen) await wait(MARKER_WAIT_MS, s.signal, marker)
  } catch {
    // The connection went (or the client cannot subscribe): nothing swept, tried again later.
    link.off('message', onMessage)
    return { stats, complete: false }
  }
  link.off('message', onMessage)
  // The marker only: the bridge keeps the gateway statuses (it learns the native ids from them).
  await link.unsubscribe([s.markerTopic]).catch(() => undefined)
  const publishes: Promise<boolean>[] = []
  for (const node of stale) {
    if (s.signal.aborted) break
    // Checked now, in the same turn as the publish: a node heard until this moment is live.
    if (s.live(node)) {
      stats.live++
      continue
    }
    const payload = statusPayload('offline', s.clock.now(), undefined, { via: s.bridgeId })
    publishes.push(publishRetained(link, `${s.prefix}/gateways/${node}/status`, payload, PUBLISH_TIMEOUT_MS))
  }
  const acked = await Promise.all(publishes)
  stats.cleared = acked.filter(Boolean).length
  return { stats, complete: acked.every(Boolean) || s.signal.aborted }
}
