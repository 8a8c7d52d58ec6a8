/**
 * What one foreign message means once parsed. OpenMQTTGateway, Theengs Gateway and ESPresense
 * nodes publish what they hear in their own topics and JSON; a format's parser (format.ts) turns
 * one message into one of these, and the bridge (bridge.ts) feeds it to the native pipeline.
 * Pure: no MQTT, no clock.
 */
import type { Advertisement } from '../advertisement.js'

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
 * What a sighting carries: the advertisement's own bytes, an iBeacon rebuilt from decoded
 * fields, or the address only.
 */
export type ForeignCarries = 'raw' | 'ibeacon' | 'address'

/**
 * What one foreign message means.
 * - `advertisement`: `node` heard `advertisement`; `carries` says whether it carries the
 *   advertisement's own bytes (`raw`), an iBeacon rebuilt from decoded fields (`ibeacon`), or
 *   only the address (`address`: presence without frames).
 * - `status`: the node went online or offline (its last will).
 * - `ignored`: a valid message that carries no sighting (a tracker timeout, a telemetry report).
 * - `rejected`: skipped for `reason`.
 */
export type ForeignMessage =
  | { kind: 'advertisement'; node: string; advertisement: ForeignAdvertisement; carries: ForeignCarries }
  | { kind: 'status'; node: string; online: boolean }
  | { kind: 'ignored' }
  | { kind: 'rejected'; reason: ForeignRejectReason }

/** A parser of one format: topic and payload in, meaning out; never throws. */
export type ForeignParser = (topic: string, payload: string) => ForeignMessage
