/**
 * A fleet tracker's last will, for a root that opens the connection the tracker rides on
 * (src/gateway/broker-connection.ts): the tracker's `offline` status and the largest packet it
 * accepts, as the tracker's own connection would have them. Without scale-out only: trackers
 * that share the beacons each have a status of their own and a connection of their own.
 */

import { statusPayload } from '../mqtt/payloads.js'
import { checkTopicPrefix, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import { PACKET_OVERHEAD_BYTES, trackerLimits } from './tracker-limits.js'
import type { FleetTrackerOptions } from './tracker-types.js'

/** `<p>/fleet/status`: the retained status of a tracker without scale-out. */
export function fleetStatusTopic(topicPrefix: string): string {
  return `${topicPrefix}/fleet/status`
}

/** The will (`offline` at `now`) and the largest packet of a tracker with these options. */
export function trackerWill(
  options: Pick<FleetTrackerOptions, 'topicPrefix' | 'maxPayloadBytes'>,
  now: number,
): { will: { topic: string; payload: string }; maxPacketBytes: number } {
  const prefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
  return {
    will: { topic: fleetStatusTopic(prefix), payload: statusPayload('offline', now) },
    maxPacketBytes: trackerLimits(options, undefined).maxPayloadBytes + PACKET_OVERHEAD_BYTES,
  }
}
