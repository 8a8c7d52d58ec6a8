/**
 * The JSON shapes of scanner events (docs/cli.md): what `--json` prints one per
 * line and what the MQTT publisher sends, so a consumer parses one format whichever way it
 * listens.
 */

import type { BeaconChanges } from '../range/merge.js'
import type { Beacon } from '../reading.js'

/** One scanner event as a JSON object. */
export type JsonEvent =
  | { event: 'found' | 'gone'; time: number; beacon: Beacon }
  | { event: 'changed'; time: number; beacon: Beacon; changes: BeaconChanges }
  | { event: 'updated'; time: number; beacons: readonly Beacon[] }

/** The event as JSON text (no newline). */
export function serializeJsonEvent(event: JsonEvent): string {
  return JSON.stringify(event)
}

/** A beacon's state as JSON text: the `beacon` member of a found / gone / changed event. */
export function serializeBeacon(beacon: Beacon): string {
  return JSON.stringify(beacon)
}
