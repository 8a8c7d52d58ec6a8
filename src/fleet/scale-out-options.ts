/** The scale-out options of a tracker, checked (an InvalidOptionError names the option), with defaults. */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { InvalidOptionError } from '../errors.js'
import { MAX_RSSI_PARTITIONS } from '../mqtt/partition.js'
import type { FleetScaleOutOptions } from './tracker-types.js'

const TRACKER_ID = /^[A-Za-z0-9_-]{1,64}$/

/**
 * `options` checked: the partitions (as many as the gateways' rssiPartitions), the tracker id `id`
 * (default the host name and 6 random hex digits) and the group `g`.
 */
export function resolveScaleOut(options: FleetScaleOutOptions): { partitions: number; id: string; g: string } {
  const { partitions, trackerId, group } = options
  if (!Number.isInteger(partitions) || partitions < 2 || partitions > MAX_RSSI_PARTITIONS) {
    throw new InvalidOptionError(
      'invalid_option',
      `scaleOut.partitions must be a whole number from 2 to ${MAX_RSSI_PARTITIONS} ` +
        `(the gateways' rssiPartitions), not ${String(partitions)}`,
      { option: 'scaleOut.partitions' },
    )
  }
  const id =
    trackerId ??
    `${
      hostname()
        .replace(/[^A-Za-z0-9_-]/g, '')
        .slice(0, 32) || 'tracker'
    }-${randomBytes(3).toString('hex')}`
  if (!TRACKER_ID.test(id))
    throw new InvalidOptionError(
      'invalid_option',
      `scaleOut.trackerId must be 1-64 letters, digits, '-' or '_', e.g. 'tracker-1'`,
      { option: 'scaleOut.trackerId' },
    )
  const g = group ?? 'beaconkit-fleet'
  if (!TRACKER_ID.test(g))
    throw new InvalidOptionError(
      'invalid_option',
      `scaleOut.group must be 1-64 letters, digits, '-' or '_', e.g. 'fleet'`,
      { option: 'scaleOut.group' },
    )
  return { partitions, id, g }
}
