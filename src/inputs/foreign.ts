/**
 * The vocabulary of foreign inputs: which format a broker speaks, and what one of its messages
 * means once parsed. OpenMQTTGateway, Theengs Gateway and ESPresense nodes publish what they hear
 * in their own topics and JSON; a parser turns one message into one of these, and the bridge
 * (bridge.ts) feeds it to the native pipeline. Pure: no MQTT, no clock.
 */
import type { Advertisement } from '../advertisement.js'

/** The foreign formats understood. Theengs Gateway speaks OpenMQTTGateway's topics and JSON. */
export type ForeignFormat = 'omg' | 'theengs' | 'espresense'

/** One configured input: a format under a base topic. */
export interface ForeignInput {
  format: ForeignFormat
  /** The base topic: `home` (OMG/Theengs default) or `espresense`; may hold several levels. */
  base: string
  /**
   * Added to every RSSI this input reports (dB): an ESP32's antenna is not a Pi's, and
   * ESPresense reports an already adjusted, filtered value. Default 0.
   */
  rssiOffsetDb?: number
}

/** An advertisement as a foreign node reports it: no time (none of the formats carries one). */
export type ForeignAdvertisement = Omit<Advertisement, 'timestamp'>

/** Why a message was skipped; each is counted (bridge stats). */
export type ForeignRejectReason =
  /** Not JSON, or JSON that is not an object. */
  | 'malformed'
  /** An RSSI outside what a controller reports (−127..20 dBm), or not a number. */
  | 'absurd_rssi'
  /** No usable Bluetooth address (a macOS CoreBluetooth UUID, a 3-byte doc artefact, garbage). */
  | 'bad_address'
  /** A gateway or room id that cannot be a gateway id in beaconkit's topics. */
  | 'bad_node'

/**
 * What one foreign message means.
 * - `advertisement`: `node` heard `advertisement`; `raw` says whether it carries the
 *   advertisement's own bytes (`raw`), an iBeacon rebuilt from decoded fields (`ibeacon`), or
 *   only the address (`address`: presence without frames).
 * - `status`: the node went online or offline (its last will).
 * - `ignored`: a valid message that carries no sighting (a tracker timeout, a telemetry report).
 * - `rejected`: skipped for `reason`.
 */
export type ForeignMessage =
  | { kind: 'advertisement'; node: string; advertisement: ForeignAdvertisement; carries: 'raw' | 'ibeacon' | 'address' }
  | { kind: 'status'; node: string; online: boolean }
  | { kind: 'ignored' }
  | { kind: 'rejected'; reason: ForeignRejectReason }

/** A parser of one format: topic and payload in, meaning out; never throws. */
export type ForeignParser = (topic: string, payload: string) => ForeignMessage

/** Lowest and highest RSSI a controller reports (as the decoder's envelope check). */
export const RSSI_MIN = -127
export const RSSI_MAX = 20

/** Gateway ids as beaconkit's topics allow them (mqtt/topics.ts GATEWAY_ID). */
const NODE_ID = /^[A-Za-z0-9_-]{1,128}$/

/** True when `id` can be a gateway id in beaconkit's topics. */
export function isNodeId(id: string): boolean {
  return NODE_ID.test(id)
}

/** The JSON object of a payload, or undefined (not JSON, or not an object). */
export function jsonObject(payload: string): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** `online` / `offline` availability payloads (OMG, Theengs and ESPresense alike); else undefined. */
export function availability(payload: string): boolean | undefined {
  const text = payload.trim()
  return text === 'online' ? true : text === 'offline' ? false : undefined
}

/** The RSSI of a payload when it is a usable dBm value; `absurd` when present but unusable; undefined when absent. */
export function rssiOf(value: unknown): number | 'absurd' | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value < RSSI_MIN || value > RSSI_MAX) return 'absurd'
  return value
}

/** The topic levels after `base/`, or undefined when the topic is not under `base`. */
export function levelsUnder(topic: string, base: string): string[] | undefined {
  if (!topic.startsWith(base) || topic.charCodeAt(base.length) !== 0x2f) return undefined
  return topic.slice(base.length + 1).split('/')
}
