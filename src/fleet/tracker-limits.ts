/**
 * The numeric options of FleetTracker, checked at construction (an InvalidOptionError names the
 * option), and the bound a broker's packet may reach.
 */
import { InvalidOptionError } from '../errors.js'
import type { FleetTrackerOptions } from './tracker-types.js'
import { DEFAULT_FORGET_AFTER_MS } from './fleet-presence.js'

/**
 * Default `maxPayloadBytes`: a gateway's batch at 10,000 beacons is about 880 KiB (docs/mqtt.md),
 * and `maxBatchReadings` (20,000) readings of long ids with measured power take about 4 MiB.
 */
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024
/** The packet around a payload: a topic (at most 64 KiB) and MQTT 5 properties. */
export const PACKET_OVERHEAD_BYTES = 128 * 1024

/** The tracker's numeric options with their defaults, checked. */
export interface TrackerLimits {
  publishIntervalMs: number
  eventBufferSize: number
  maxPayloadBytes: number
  forgetAfterMs: number
}

/** `options` checked (see {@link TrackerLimits}); `expireMs`: Home Assistant's, the default of `forgetAfterMs`. */
export function trackerLimits(options: FleetTrackerOptions, expireMs: number | undefined): TrackerLimits {
  const interval = options.publishIntervalMs ?? 5000
  if (!Number.isFinite(interval) || interval <= 0)
    throw new InvalidOptionError(
      'invalid_option',
      `publishIntervalMs must be a positive number of ms, e.g. 5000, not ${String(interval)}`,
      { option: 'publishIntervalMs' },
    )
  const size = options.eventBufferSize ?? 10_000
  if (!Number.isInteger(size) || size < 1)
    throw new InvalidOptionError(
      'invalid_option',
      `eventBufferSize must be a positive whole number, e.g. 10000, not ${String(size)}`,
      { option: 'eventBufferSize' },
    )
  const maxPayload = options.maxPayloadBytes ?? MAX_PAYLOAD_BYTES
  if (!Number.isInteger(maxPayload) || maxPayload < 1024)
    throw new InvalidOptionError(
      'invalid_option',
      'maxPayloadBytes must be a whole number of bytes, at least 1024, e.g. 4194304, ' + `not ${String(maxPayload)}`,
      { option: 'maxPayloadBytes' },
    )
  const forgetAfterMs = options.forgetAfterMs ?? expireMs ?? DEFAULT_FORGET_AFTER_MS
  if (!(forgetAfterMs > 0))
    throw new InvalidOptionError(
      'invalid_option',
      `forgetAfterMs must be a positive number of ms, e.g. 604800000 (7 days), not ${String(forgetAfterMs)}`,
      { option: 'forgetAfterMs' },
    )
  return { publishIntervalMs: interval, eventBufferSize: size, maxPayloadBytes: maxPayload, forgetAfterMs }
}
