/**
 * Payloads of the MQTT contract (docs/mqtt.md) besides the `--json` event shapes,
 * which come from scanner/json-events.ts so the CLI and the broker carry the same objects.
 */

import pkg from '../../package.json' with { type: 'json' }

/** The package version the status payload reports. */
export const PACKAGE_VERSION: string = pkg.version

/** `<p>/gateways/<gw>/status`, retained; the last will is the `offline` form. */
export interface GatewayStatus {
  state: 'online' | 'offline'
  /** ms on the scanner's clock. */
  time: number
  version: string
  /**
   * With Home Assistant on (docs/mqtt.md): beacons in range now, in the online form only;
   * the retained status is republished when it changes, at most every 5 s.
   */
  beacons?: number
  /**
   * The foreign-input bridge that publishes this gateway for a foreign node (docs/fleet.md
   * "Mixed fleets"): its own liveness is `<p>/inputs/<via>/status`, which carries the will this
   * status cannot have. Absent for a beaconkit gateway.
   */
  via?: string
}

/**
 * Extra members of a gateway's status, set by its owner (MqttPublisher's `statusFields`), in both
 * forms and the will. They never replace the contract's own members: those names are refused.
 */
export type StatusFields = Readonly<Record<string, string>>

/** Members of the status a `StatusFields` may not set. */
export const RESERVED_STATUS_FIELDS: readonly string[] = ['state', 'time', 'version', 'beacons']

/** One beacon in an RSSI batch. */
export interface RssiReading {
  id: string
  /** The smoothed RSSI, dBm. */
  rssi: number
  /** RSSI at 1 m, when the beacon reports it: what the fleet side needs for distances. */
  measuredPower?: number
  /** ms, clock time of the latest packet. */
  lastSeen: number
  /** Packets heard from the beacon since the previous batch. */
  count: number
}

/** `<p>/gateways/<gw>/rssi`, QoS 0, once per update tick: the beacons heard since the previous batch. */
export interface RssiBatch {
  gateway: string
  time: number
  readings: RssiReading[]
}

/**
 * The status payload as JSON text; `beacons` goes into the online form only (the will stays as it
 * was); `extra` members (checked by the caller: none of {@link RESERVED_STATUS_FIELDS}) into both.
 */
export function statusPayload(
  state: GatewayStatus['state'],
  time: number,
  beacons?: number,
  extra?: StatusFields,
): string {
  const status: GatewayStatus & Record<string, unknown> = { state, time, version: PACKAGE_VERSION, ...extra }
  // Written after the spread: a reserved name in `extra` can never change what readers rely on.
  status.state = state
  status.time = time
  status.version = PACKAGE_VERSION
  if (state === 'online' && beacons !== undefined) status.beacons = beacons
  else delete status.beacons
  return JSON.stringify(status)
}

/** Status payloads of beaconkit (gateway or fleet) are small: a larger one is not one. */
const MAX_STATUS_BYTES = 4096

/**
 * The `state` of a beaconkit status payload (`<p>/gateways/<gw>/status`, `<p>/fleet/status`,
 * `<p>/fleet/trackers/<id>`) read off the wire, or undefined for anything else (empty, too
 * large, not JSON, no valid state). Extra members are ignored.
 */
export function readStatusState(payload: Buffer): GatewayStatus['state'] | undefined {
  if (payload.length === 0 || payload.length > MAX_STATUS_BYTES) return undefined
  try {
    const body = JSON.parse(payload.toString('utf8')) as unknown
    const state = typeof body === 'object' && body !== null ? (body as { state?: unknown }).state : undefined
    return state === 'online' || state === 'offline' ? state : undefined
  } catch {
    return undefined
  }
}
