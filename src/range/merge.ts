/**
 * Merging the readings of one device into one tracked beacon (PROTOCOL.md 2.5): every field
 * keeps its latest value from any frame, except where one frame kind outranks another.
 */
import type { Beacon, BeaconReading, EddystoneInfo, FrameKind } from '../reading.js'

/**
 * What the advertisement itself said in its iBeacon frame, so the merge can tell whether a
 * reading's major/minor/measured power came from the iBeacon bytes or from a vendor frame
 * (a decoded reading no longer says which).
 */
export interface IBeaconHint {
  major: number
  minor: number
  measuredPower: number
}

/** Which sources a beacon's contested fields came from. */
export interface MergeState {
  /** major/minor came from a vendor frame: iBeacon values must not override them. */
  vendorMajorMinor: boolean
  /** measured power came from a vendor frame. */
  vendorPower: boolean
  /** battery/temperature came from a vendor frame: Eddystone TLM must not override them. */
  vendorSensors: boolean
}

/** The values whose changes are reported by the `changed` event (the iOS SDK's per-value callbacks). */
export const CHANGE_FIELDS = ['rssi', 'temperature', 'light', 'accelerometerCount', 'movingState', 'batteryLevel'] as const

/** One of the values `changed` reports. */
export type ChangeField = (typeof CHANGE_FIELDS)[number]

/** Old and new value of each value that changed; `rssi` is the smoothed RSSI rounded to whole dBm. */
export type BeaconChanges = { [K in ChangeField]?: { old: Beacon[K]; new: Beacon[K] } }

const EMPTY_FRAMES: readonly FrameKind[] = Object.freeze([])

/** A fresh, empty tracked beacon for identity `id`. */
export function emptyBeacon(id: string, reading: BeaconReading, now: number): Beacon {
  return {
    id,
    address: reading.address,
    timestamp: reading.timestamp,
    rssi: reading.rssi,
    frames: EMPTY_FRAMES as FrameKind[],
    inRange: true,
    firstSeen: now,
    lastSeen: now,
    smoothedRssi: reading.rssi,
  }
}

function hasVendorFrame(frames: readonly FrameKind[]): boolean {
  for (const f of frames) if (f === 'e780' || f === 'e781') return true
  return false
}

function onlyEddystone(frames: readonly FrameKind[]): boolean {
  for (const f of frames) if (f !== 'eddystone') return false
  return frames.length > 0
}

function unionFrames(old: readonly FrameKind[], add: readonly FrameKind[]): FrameKind[] | undefined {
  let out: FrameKind[] | undefined
  for (const f of add) {
    if (!old.includes(f) && !(out?.includes(f) ?? false)) (out ??= [...old]).push(f)
  }
  // Nested objects are replaced, never mutated, so a snapshot may share them safely.
  return out === undefined ? undefined : (Object.freeze(out) as FrameKind[])
}

function mergeEddystone(old: EddystoneInfo | undefined, add: EddystoneInfo): EddystoneInfo {
  return Object.freeze({ ...old, ...add })
}

/**
 * Merges `r` into `b` in place. Nested values (frames, flags, eddystone, secure) are replaced
 * by fresh frozen objects rather than mutated. `rssi` and `timestamp` come from the packet
 * when the reading is a cached one shared by repeats of the same bytes.
 */
export function mergeReading(b: Beacon, r: Readonly<BeaconReading>, st: MergeState, hint: IBeaconHint | undefined, rssi = r.rssi, timestamp = r.timestamp): void {
  b.address = r.address
  b.timestamp = timestamp
  b.rssi = rssi
  const frames = unionFrames(b.frames, r.frames)
  if (frames !== undefined) b.frames = frames
  const vendor = hasVendorFrame(r.frames)

  if (r.serialNumber !== undefined) b.serialNumber = r.serialNumber
  if (r.proximityUUID !== undefined) b.proximityUUID = r.proximityUUID
  if (r.major !== undefined || r.minor !== undefined) {
    const fromIBeacon = hint !== undefined && r.major === hint.major && r.minor === hint.minor
    if (!fromIBeacon || !st.vendorMajorMinor) {
      if (r.major !== undefined) b.major = r.major
      if (r.minor !== undefined) b.minor = r.minor
      if (!fromIBeacon && vendor) st.vendorMajorMinor = true
    }
  }
  if (r.measuredPower !== undefined) {
    const fromIBeacon = hint !== undefined && r.measuredPower === hint.measuredPower
    if (!fromIBeacon || !st.vendorPower) {
      b.measuredPower = r.measuredPower
      if (vendor && !fromIBeacon) st.vendorPower = true
    }
  }
  const tlmOnly = onlyEddystone(r.frames)
  if (!(tlmOnly && st.vendorSensors)) {
    if (r.temperature !== undefined) b.temperature = r.temperature
    if (r.batteryLevel !== undefined) b.batteryLevel = r.batteryLevel
    if (vendor && (r.temperature !== undefined || r.batteryLevel !== undefined)) st.vendorSensors = true
  }
  if (r.light !== undefined) b.light = r.light
  if (r.movingState !== undefined) b.movingState = r.movingState
  if (r.moving !== undefined) b.moving = r.moving
  else if (r.movingState !== undefined) delete b.moving
  if (r.accelerometerCount !== undefined) b.accelerometerCount = r.accelerometerCount
  if (r.hardwareModelName !== undefined) b.hardwareModelName = r.hardwareModelName
  if (r.firmwareVersion !== undefined) b.firmwareVersion = r.firmwareVersion
  if (r.transmitPower !== undefined) b.transmitPower = r.transmitPower
  if (r.transmitPowerDbm !== undefined) b.transmitPowerDbm = r.transmitPowerDbm
  if (r.advertisingInterval !== undefined) b.advertisingInterval = r.advertisingInterval
  if (r.unknownModel !== undefined) b.unknownModel = r.unknownModel
  if (r.flags !== undefined) b.flags = Object.freeze({ ...b.flags, ...r.flags })
  if (r.eddystone !== undefined) b.eddystone = mergeEddystone(b.eddystone, r.eddystone)
  if (r.secure !== undefined) b.secure = Object.freeze({ ...r.secure })

  if (b.proximityUUID !== undefined && b.major !== undefined && b.minor !== undefined) {
    b.beaconID = `${b.proximityUUID}|${b.major}|${b.minor}`
  }
}

/**
 * A frozen public copy of a tracked beacon. Written out field by field because V8 copies a
 * 30-property object this way several times faster than with spread syntax, and the tick
 * copies every changed beacon; absent fields stay absent.
 */
export function snapshotOf(b: Beacon, smoothedRssi: number, accuracy: number, proximity: Beacon['proximity'], inRange: boolean): Beacon {
  const o: Beacon = {
    id: b.id,
    address: b.address,
    timestamp: b.timestamp,
    rssi: b.rssi,
    frames: b.frames,
    inRange,
    firstSeen: b.firstSeen,
    lastSeen: b.lastSeen,
    smoothedRssi,
    accuracy,
    proximity,
  }
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
  return Object.freeze(o)
}

/** The `changed` values of a beacon, captured before a merge. */
export interface ChangeValues {
  rssi: number
  temperature: Beacon['temperature']
  light: Beacon['light']
  accelerometerCount: Beacon['accelerometerCount']
  movingState: Beacon['movingState']
  batteryLevel: Beacon['batteryLevel']
}

/** Captures the values `changed` compares. */
export function changeValues(b: Beacon, roundedRssi: number): ChangeValues {
  return {
    rssi: roundedRssi,
    temperature: b.temperature,
    light: b.light,
    accelerometerCount: b.accelerometerCount,
    movingState: b.movingState,
    batteryLevel: b.batteryLevel,
  }
}

/** Differences between two captures, or undefined when nothing changed. */
export function diffValues(before: ChangeValues, after: ChangeValues): BeaconChanges | undefined {
  let out: BeaconChanges | undefined
  for (const k of CHANGE_FIELDS) {
    const o = before[k]
    const n = after[k]
    if (o !== n) {
      // The mapped type cannot be indexed by a union key; each pair is of the same field.
      const rec = (out ??= {}) as Record<ChangeField, { old: unknown; new: unknown }>
      rec[k] = { old: o, new: n }
    }
  }
  return out
}
