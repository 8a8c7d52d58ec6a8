/**
 * The beacon properties of the platform specification (part 2.9), as one decoded
 * advertisement yields them. Field names are fixed by the public contract.
 *
 * "Absent means absent": a property the frames did not carry is not present at all.
 * `null` is reserved for a sensor the device reports as switched off.
 */

/** Which frame kinds contributed to a reading. A set: the order carries no meaning. */
export type FrameKind = 'ibeacon' | 'e780' | 'e781' | 'eddystone'

/** Android `movingState` vocabulary, lower-case. */
export type MovingState = 'still' | 'moving' | 'disabled' | 'unknown'

/** Proximity zones; `immediate` is the specification's "very near". */
export type Proximity = 'immediate' | 'near' | 'far' | 'unknown'

/** Why an encrypted frame was not accepted (docs/private-broadcast.md). */
export type RejectReason = 'no_key' | 'crc' | 'implausible' | 'serial_mismatch' | 'length'

/** What the private broadcast protocol says about a reading. */
export interface SecureInfo {
  /** The frame was encrypted with a broadcast key. */
  encrypted: boolean
  /** The 2-byte key id of the frame as 4 lower-case hex digits. */
  keyId?: string
  /** Decrypted with a configured key and passed CRC and plausibility checks. */
  verified: boolean
  /** Present when `verified` is false: the first check that failed. */
  rejected?: RejectReason
}

/**
 * Bit field B of the vendor frames. Each member is present only when a frame carried it
 * (a 0x80E7 frame of firmware >= 2.3 carries just `broadcastKeyEnabled`).
 */
export interface BeaconFlags {
  passwordEnabled?: boolean
  broadcastKeyEnabled?: boolean
  energySaving?: boolean
  aliBeacon?: boolean
  backgroundEnhancement?: boolean
  eddystone?: boolean
}

/** Eddystone-UID: 10-byte namespace and 6-byte instance as lower-case hex. */
export interface EddystoneUid {
  namespace: string
  instance: string
  txPowerAt0m: number
}

/** Eddystone-URL, expanded. */
export interface EddystoneUrl {
  url: string
  txPowerAt0m: number
}

/** Eddystone-TLM version 0 (plain). */
export interface EddystonePlainTlm {
  version: 0
  batteryMilliVolts: number
  /** °C; `null` when the beacon reports 0x8000 (not supported). */
  temperature: number | null
  advertisingCount: number
  /** Seconds, 0.1 s resolution. */
  secondsSinceBoot: number
}

/** Eddystone-TLM version 1: encrypted, reported as such and never guessed at. */
export interface EddystoneEncryptedTlm {
  encrypted: true
}

/** Eddystone-EID: the 8-byte ephemeral id as lower-case hex, passed through. */
export interface EddystoneEid {
  ephemeralId: string
  txPowerAt0m: number
}

/** The Eddystone frames heard from one device. */
export interface EddystoneInfo {
  uid?: EddystoneUid
  url?: EddystoneUrl
  tlm?: EddystonePlainTlm | EddystoneEncryptedTlm
  eid?: EddystoneEid
}

/** One decoded advertisement. */
export interface BeaconReading {
  /** Bluetooth address of the sender, lower-case `aa:bb:cc:dd:ee:ff`. */
  address: string
  /** Milliseconds, from the advertisement. */
  timestamp: number
  rssi: number
  frames: FrameKind[]

  serialNumber?: string
  /** Canonical upper-case `8-4-4-4-12`. */
  proximityUUID?: string
  major?: number
  minor?: number
  /** `UUID|major|minor`, the specification's UMM; only when a proximity UUID is known. */
  beaconID?: string

  /** Metres, from RSSI and measured power; -1 when unknown. */
  accuracy?: number
  proximity?: Proximity

  /** °C; `null` when the sensor is switched off. */
  temperature?: number | null
  /** lux; `null` when the sensor is switched off. */
  light?: number | null
  movingState?: MovingState
  /** iOS-style: true for `moving`, false for `still`, absent otherwise. */
  moving?: boolean
  accelerometerCount?: number
  /** Percent, 0–100. */
  batteryLevel?: number

  hardwareModelName?: string
  firmwareVersion?: string
  /** RSSI at 1 m, dBm. */
  measuredPower?: number
  /** Transmit power level 0–11. */
  transmitPower?: number
  /** Transmit power in dBm, where the model's table has the level. */
  transmitPowerDbm?: number
  /** Advertising interval, ms. */
  advertisingInterval?: number

  secure?: SecureInfo
  flags?: BeaconFlags
  eddystone?: EddystoneInfo
  /** Hardware model or firmware byte outside the known set; decoded by layout anyway. */
  unknownModel?: true
  /**
   * The name of the identity resolving key the sender's resolvable private address resolved
   * under (an IRK file's `<name>`): the device is tracked as `irk:<name>` across its addresses.
   */
  irk?: string
}

/** A beacon the scanner tracks: the merged latest reading of one device plus its range state. */
export interface Beacon extends BeaconReading {
  /**
   * Stable identity: `irk:<name>` for an address resolved with an identity resolving key, else
   * serial number, else beaconID, else address (docs/protocol.md, "Merging the frames of one
   * advertisement"; docs/phones.md).
   */
  id: string
  /** False once the beacon has not been heard for the gone timeout. */
  inRange: boolean
  /** ms, clock time of the first advertisement of this visit. */
  firstSeen: number
  /** ms, clock time of the latest advertisement. */
  lastSeen: number
  /**
   * The filtered RSSI that accuracy and proximity are computed from. With several adapters,
   * the best adapter's (the first of {@link Beacon.adapters}).
   */
  smoothedRssi: number
  /**
   * Only when the advertisements name the adapter that heard them (a scanner fed by several
   * adapters, e.g. a `CombinedSource`): the adapters that heard this beacon within the gone
   * timeout, best first. Each smooths its own RSSI; `rssi` above stays the latest packet's.
   */
  adapters?: BeaconAdapter[]
}

/** One adapter hearing a tracked beacon. */
export interface BeaconAdapter {
  /** The adapter's name, e.g. `hci1`. */
  adapter: string
  /** This adapter's smoothed RSSI (dBm, to a tenth, like `smoothedRssi`). */
  rssi: number
  /** ms, clock time this adapter last heard the beacon. */
  lastSeen: number
}

// The account interface's log record (docs/cloud-upload.md): what the uploader sends and the
// durable queue keeps. Checked and built in cloud/records.ts.

/** Sensor values of a beacon log record; absent values are omitted, never invented. */
export interface LogSensor {
  temperature?: number
  light?: number
  /** Battery level, percent. */
  power?: number
  /** Movement counter. */
  accelerometer?: number
}

/** A gateway position. */
export interface GeoLocation {
  lat: number
  lon: number
}

/** A beacon log record plus the `msgId` that makes redelivery de-duplicable. */
export interface BeaconLogRecord {
  /** Unique per record; the server drops a second record with the same id. */
  msgId: string
  /** The beacon's serial number. */
  beaconMac: string
  /** `UUID|major|minor`, when the beacon's proximity UUID is known. */
  beaconUMM?: string
  /** Milliseconds since the Unix epoch: when the reading was heard. */
  updatedTime: number
  location?: GeoLocation
  sensor: LogSensor
  /** Revision counter the server adds. */
  __v?: number
}
