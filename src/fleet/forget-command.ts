/**
 * `<p>/fleet/forget` (docs/fleet.md "Forgetting a beacon"): `beaconkit fleet forget <id>` asks
 * the running trackers to forget a beacon with a non-retained `{"id": "<id>"}`. Anyone who may
 * publish there can send anything, so the payload is bounded and the id checked like any id that
 * becomes a topic level.
 */
import { isTopicLevel } from '../util/topic-level.js'
import { haFleetConfigTopics } from './home-assistant.js'

/** A forget command larger than this is not one (an id is at most 256 characters). */
export const MAX_FORGET_COMMAND_BYTES = 1024

/** `<p>/fleet/forget` */
export function forgetCommandTopic(topicPrefix: string): string {
  return `${topicPrefix}/fleet/forget`
}

/** The payload of a forget command for `id`. */
export function forgetCommandPayload(id: string): string {
  return JSON.stringify({ id })
}

/** The beacon id a forget command names, or undefined when the payload is not a valid one. */
export function readForgetCommand(payload: Buffer): string | undefined {
  if (payload.length === 0 || payload.length > MAX_FORGET_COMMAND_BYTES) return undefined
  try {
    const value = JSON.parse(payload.toString('utf8')) as unknown
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    const id = (value as { id?: unknown }).id
    return isTopicLevel(id) ? id : undefined
  } catch {
    return undefined
  }
}

/**
 * Every retained topic of a beacon the fleet writes, which forgetting it empties: its state, its
 * presence and all its Home Assistant configs (home-assistant.ts).
 */
export function fleetBeaconTopics(topicPrefix: string, haPrefix: string, id: string): string[] {
  return [
    `${topicPrefix}/fleet/beacons/${id}`,
    `${topicPrefix}/fleet/presence/${id}`,
    ...haFleetConfigTopics(haPrefix, id),
  ]
}
