/**
 * The public copy of a tracked beacon that the range table hands out (found, gone, changed,
 * the update tick), and what a scanner's copy carries privately: its packet count, its
 * entry's version and slot.
 */
import type { Beacon, FrameKind } from '../reading.js'
import type { BeaconRecord } from './record.js'

/**
 * Built by a constructor rather than an object literal: V8 then sizes the object for the
 * fields added after construction too (slack tracking), so a snapshot is one allocation
 * instead of an object plus a growing property array. That made a 10,000-beacon tick a third
 * cheaper. Enumerable own fields only, so JSON and spreading see a plain beacon.
 */
class BeaconSnapshot {
  id: string
  address: string
  timestamp: number
  rssi: number
  frames: FrameKind[]
  inRange: boolean
  firstSeen: number
  lastSeen: number
  smoothedRssi: number
  accuracy: number
  proximity: Beacon['proximity']
  /** Packets the table took for this beacon so far: private, so no JSON, inspect or equality shows it. */
  readonly #packets: number
  /** The entry's version when copied (see {@link versionOf}); private like #packets. */
  readonly #version: number | undefined
  /** The entry's slot in its table (see {@link slotOf}); private like #packets. */
  readonly #slot: number | undefined

  constructor(
    b: BeaconRecord,
    smoothedRssi: number,
    accuracy: number,
    proximity: Beacon['proximity'],
    inRange: boolean,
    packets: number,
    version: number | undefined,
    slot: number | undefined,
  ) {
    this.#packets = packets
    this.#version = version
    this.#slot = slot
    this.id = b.id
    this.address = b.address
    this.timestamp = b.timestamp
    this.rssi = b.rssi
    this.frames = b.frames
    this.inRange = inRange
    this.firstSeen = b.firstSeen
    this.lastSeen = b.lastSeen
    this.smoothedRssi = smoothedRssi
    this.accuracy = accuracy
    this.proximity = proximity
  }

  /** The packet total of a snapshot (see {@link packetsHeard}). */
  static packetsOf(b: object): number | undefined {
    return #packets in b ? (b as BeaconSnapshot).#packets : undefined
  }

  /** The entry version of a snapshot (see {@link versionOf}). */
  static versionOf(b: object): number | undefined {
    return #version in b ? (b as BeaconSnapshot).#version : undefined
  }

  /** The entry slot of a snapshot (see {@link slotOf}). */
  static slotOf(b: object): number | undefined {
    return #slot in b ? (b as BeaconSnapshot).#slot : undefined
  }
}

/**
 * Packets the range table has taken for this beacon since it started tracking it, when `b` is
 * a scanner's snapshot (undefined for any other object). Lets a consumer of the update tick
 * (the MQTT publisher's RSSI batch) count packets per beacon without a listener per packet.
 */
export function packetsHeard(b: Beacon): number | undefined {
  return BeaconSnapshot.packetsOf(b)
}

/**
 * The version of the tracked beacon `b` was copied from, when `b` is a scanner's snapshot
 * (undefined for any other object, and for a copy made without one). Two snapshots with the same
 * version have the same merged fields (every value but RSSI, time and packet count): versions
 * change on every merge that changes something and are never reused, by any beacon. Lets a consumer
 * of the update tick (the MQTT feed) skip comparing the values of beacons that did not change.
 */
export function versionOf(b: Beacon): number | undefined {
  return BeaconSnapshot.versionOf(b)
}

/**
 * A small integer naming the tracked beacon `b` was copied from, when `b` is a scanner's
 * snapshot (undefined otherwise): the same at every tick while the beacon is tracked, and
 * handed to another beacon once it is gone, so it is a hint to check (by id), not an identity.
 * A tick lists its beacons nearest first, an order that changes every tick; with the slot a
 * consumer (the MQTT feed) finds its record per beacon in an array instead of hashing the id
 * into a map of 10,000.
 */
export function slotOf(b: Beacon): number | undefined {
  return BeaconSnapshot.slotOf(b)
}

/**
 * A public copy of a tracked beacon, the caller's to keep (nested objects are frozen and
 * shared). Written out field by field because V8 copies a 30-property object this way several
 * times faster than with spread syntax, and every tick copies every beacon in range; absent
 * fields stay absent. Not frozen: each copy is fresh, and freezing doubled the tick's cost.
 */
export function snapshotOf(
  b: BeaconRecord,
  smoothedRssi: number,
  accuracy: number,
  proximity: Beacon['proximity'],
  inRange: boolean,
  packets = 0,
  version?: number,
  slot?: number,
): Beacon {
  const o: Beacon = new BeaconSnapshot(b, smoothedRssi, accuracy, proximity, inRange, packets, version, slot)
  if (b.serialNumber !== undefined) o.serialNumber = b.serialNumber
  if (b.proximityUUID !== undefined) o.proximityUUID = b.proximityUUID
  if (b.major !== undefined) o.major = b.major
  if (b.minor !== undefined) o.minor = b.minor
  if (b.beaconID !== undefined) o.beaconID = b.beaconID
  if (b.temperature !== undefined) o.temperature = b.temperature
  if (b.light !== undefined) o.light = b.light
  if (b.movingState !== undefined) o.movingState = b.movingState
  if (b.moving !== undefined) o.moving = b.moving
  if (b.accelerometerCount !== undefined) o.accelerometerCount = b.accelerometerCount
  if (b.batteryLevel !== undefined) o.batteryLevel = b.batteryLevel
  if (b.hardwareModelName !== undefined) o.hardwareModelName = b.hardwareModelName
  if (b.firmwareVersion !== undefined) o.firmwareVersion = b.firmwareVersion
  if (b.measuredPower !== undefined) o.measuredPower = b.measuredPower
  if (b.transmitPower !== undefined) o.transmitPower = b.transmitPower
  if (b.transmitPowerDbm !== undefined) o.transmitPowerDbm = b.transmitPowerDbm
  if (b.advertisingInterval !== undefined) o.advertisingInterval = b.advertisingInterval
  if (b.secure !== undefined) o.secure = b.secure
  if (b.flags !== undefined) o.flags = b.flags
  if (b.eddystone !== undefined) o.eddystone = b.eddystone
  if (b.unknownModel !== undefined) o.unknownModel = b.unknownModel
  if (b.irk !== undefined) o.irk = b.irk
  return o
}
