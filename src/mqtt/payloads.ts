/**
 * Payloads of the MQTT contract (docs/mqtt.md) besides the `--json` event shapes,
 * which come from json-events.ts so the CLI and the broker carry the same objects.
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
}

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

/** The status payload as JSON text. */
export function statusPayload(state: GatewayStatus['state'], time: number): string {
  const status: GatewayStatus = { state, time, version: PACKAGE_VERSION }
  return JSON.stringify(status)
}
