/**
 * Discovery configs left on the broker by an earlier run (docs/mqtt.md "Home Assistant"): read
 * once after the first connection, each one that is ours either kept under the discovery gate
 * (it expires like a beacon gone since now) or removed at once (a bare address, the cap
 * reached). Bounded in messages, bytes and time: the broker is hostile too, and a config that is
 * not exactly one we would write is left alone.
 */

import type { MqttLink } from './connection.js'
import type { HaGate } from './ha-gate.js'
import { topicMatches } from './topic-filter.js'

/** Bounds of one sweep. */
export interface SweepBounds {
  /** Retained messages read at most (the rest are left alone). */
  maxMessages: number
  /** How long retained messages are read after the subscription is acknowledged. */
  windowMs: number
}

/** A config payload larger than this is not one of ours. */
const MAX_CONFIG_BYTES = 16 * 1024

/**
 * What a sweep needs from its owner: the filters of its configs, the beacon a config belongs to
 * (undefined: not ours, left alone), and what to do with the verdict.
 */
export interface SweepOwner {
  readonly filters: string[]
  /** The beacon id of a config we would have written on this topic, or undefined. */
  beaconOf(topic: string, config: Record<string, unknown>): string | undefined
  /** Whether the id may keep a config (default: the gate's own rule, not a bare address). */
  stable?(id: string): boolean
  /** Kept: the config's topic counts as announced for the beacon. */
  kept(id: string, topic: string): void
  /** Removed: publish the empty retained message. */
  remove(topic: string): void
}

function parse(payload: Buffer): Record<string, unknown> | undefined {
  if (payload.length === 0 || payload.length > MAX_CONFIG_BYTES) return undefined
  try {
    const value = JSON.parse(payload.toString('utf8')) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads the retained configs under `owner.filters` for `bounds.windowMs`, hands ours to the gate
 * (`adopt` at `now`) and unsubscribes. Resolves with the number of configs seen; a broker that
 * refuses the subscription (an ACL) leaves everything as it is.
 */
export async function sweepRetainedConfigs(
  link: MqttLink,
  gate: HaGate,
  owner: SweepOwner,
  now: number,
  bounds: SweepBounds,
): Promise<number> {
  let seen = 0
  const onMessage = (topic: string, payload: Buffer): void => {
    if (seen >= bounds.maxMessages || !owner.filters.some((f) => topicMatches(f, topic))) return
    seen++
    const config = parse(payload)
    const id =
      config === undefined || (config.origin as { name?: unknown } | undefined)?.name !== 'beaconkit'
        ? undefined
        : owner.beaconOf(topic, config)
    if (id === undefined) return
    if (gate.adopt(id, now, owner.stable?.(id))) owner.kept(id, topic)
    else owner.remove(topic)
  }
  link.on('message', onMessage)
  // Unref'd: a sweep never keeps a finished process alive.
  const window = (): Promise<'late'> =>
    new Promise((resolve) => setTimeout(() => resolve('late'), bounds.windowMs).unref())
  try {
    // A broker that never acknowledges the subscription must not hold the sweep (and its
    // listener) for ever: one window for the SUBACK, one for the retained configs.
    if ((await Promise.race([link.subscribe(owner.filters, 1), window()])) === 'late') return seen
    await window()
    await link.unsubscribe(owner.filters).catch(() => undefined)
  } catch {
    // Not allowed to read discovery, or the connection went: nothing swept, nothing lost.
  } finally {
    link.off('message', onMessage)
  }
  return seen
}
