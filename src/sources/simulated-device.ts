/**
 * The simulator's model of one device: what it sends, where it is, and how the vendor's
 * encodings round its values. Shared by the simulator and the scenarios built for it.
 */
import type { E781Mode } from '../frames/e781.js'
import type { IBeaconFrame } from '../frames/ibeacon.js'
import type { BroadcastKey } from '../secure/broadcast-key.js'

/** A distance (m) that changes over time: from `from` to `to` between `startMs` and `startMs + durationMs`. */
export interface Walk {
  from: number
  to: number
  startMs: number
  durationMs: number
}

/** One vendor frame a device sends (devices cycle through their list, one per interval). */
export type SimulatedVendorFrame = { frame: 'e780' } | { frame: 'e781'; mode: E781Mode }

/** A simulated device. Times are ms after the simulation's start. */
export interface SimulatedDevice {
  address: string
  /** iBeacon frame in the advertisement. */
  ibeacon?: IBeaconFrame
  /** Vendor frames, sent as a scan response 1 ms after the advertisement. */
  vendor?: SimulatedVendorFrame[]
  serialNumber?: string
  hardwareModelName?: string
  firmwareVersion?: string
  major?: number
  minor?: number
  /** RSSI at 1 m (dBm) for the path-loss model and the vendor frames. Default -59. */
  measuredPower?: number
  /** Encrypts 0x81E7 modes 0x10/0x20 and enables 0x41/0x42. */
  key?: BroadcastKey
  /**
   * Secure broadcast interval: the iBeacon major/minor change to meaningless values every
   * this many ms, as a device with a broadcast key does (docs/private-broadcast.md: the identity rotates).
   */
  rotateIBeaconMs?: number
  batteryLevel?: number
  temperature?: number | null
  light?: number | null
  /** Advertising interval in ms (BLE adds 0–10 ms of random delay). Default 500. */
  intervalMs?: number
  /** Metres: fixed, or a walk. A walking device reports `moving` and counts steps. */
  distance: number | Walk
  appearAtMs?: number
  leaveAtMs?: number
}

/** Distance of a device at time `t` (ms after start). */
export function distanceAt(d: number | Walk, t: number): number {
  if (typeof d === 'number') return d
  const f = Math.min(1, Math.max(0, (t - d.startMs) / d.durationMs))
  return d.from + (d.to - d.from) * f
}

/** The nearest lux value the vendor's light encoding (2^e × m × 0.045) can carry. */
export function representableLux(lux: number | null): number | null {
  if (lux === null) return null
  let units = Math.max(0, Math.round(lux / 0.045))
  let e = 0
  while (units / 2 ** e > 255) e++
  units = Math.round(units / 2 ** e)
  return (units * 2 ** e * 45) / 1000
}

/** Whether a device is walking at time `t`. */
export function isMoving(d: number | Walk, t: number): boolean {
  return typeof d !== 'number' && t >= d.startMs && t < d.startMs + d.durationMs
}
