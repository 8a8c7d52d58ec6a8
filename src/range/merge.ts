/**
 * Merging the readings of one device into one tracked beacon (docs/protocol.md, "Merging the
 * frames of one advertisement"): every field keeps its latest value from any frame, except where
 * one frame kind outranks another.
 */
import type { Beacon, BeaconReading, EddystoneInfo, FrameKind } from '../reading.js'
import { beaconIdOf, isIBeacon } from '../frames/ibeacon.js'
import { flatString } from '../frames/fields.js'
import { transmitPowerDbmOf } from '../frames/bit-fields.js'
import { internFrames } from '../decode/intern.js'
import type { BeaconRecord, MergeState } from './record.js'

/**
 * The advertisement's own manufacturer data, so the merge can tell whether a reading's
 * major/minor/measured power came from the iBeacon bytes or from a vendor frame (a decoded
 * reading no longer says which). Read only when a contested field is present.
 */
export type IBeaconHint = Uint8Array | undefined

/** The values whose changes are reported by the `changed` event (the iOS SDK's per-value callbacks). */
export const CHANGE_FIELDS = [
  'rssi',
  'temperature',
  'light',
  'accelerometerCount',
  'movingState',
  'batteryLevel',
] as const

/** One of the values `changed` reports. */
export type ChangeField = (typeof CHANGE_FIELDS)[number]

/** Old and new value of each value that changed; `rssi` is the smoothed RSSI rounded to whole dBm. */
export type BeaconChanges = { [K in ChangeField]?: { old: Beacon[K]; new: Beacon[K] } }

function hasVendorFrame(frames: readonly FrameKind[]): boolean {
  for (const f of frames) if (f === 'e780' || f === 'e781') return true
  return false
}

function onlyEddystone(frames: readonly FrameKind[]): boolean {
  for (const f of frames) if (f !== 'eddystone') return false
  return frames.length > 0
}

function unionFrames(old: readonly FrameKind[], add: readonly FrameKind[]): FrameKind[] | undefined {
  if (old.length === 0 && add.length > 0 && Object.isFrozen(add)) return add as FrameKind[]
  let out: FrameKind[] | undefined
  for (const f of add) {
    if (!old.includes(f) && !(out?.includes(f) ?? false)) (out ??= [...old]).push(f)
  }
  // Shared and frozen: nested objects are replaced, never mutated, so snapshots share them.
  return out === undefined ? undefined : internFrames(out)
}

function mergeEddystone(old: EddystoneInfo | undefined, add: EddystoneInfo): EddystoneInfo {
  return Object.freeze({ ...old, ...add })
}

/**
 * Merges `r` into `b` in place and says whether any field (or `st`) changed; merging the same
 * reading again right after changes nothing. Nested values (frames,
 * flags, eddystone, secure) are replaced by fresh frozen objects rather than mutated. The
 * packet's `rssi` and `timestamp` are not merged here: readings are cached templates shared
 * by repeats of the same bytes.
 */
export function mergeReading(b: BeaconRecord, r: Readonly<BeaconReading>, st: MergeState, hint: IBeaconHint): boolean {
  let changed = false
  if (b.address !== r.address) {
    b.address = r.address
    changed = true
  }
  const frames = unionFrames(b.frames, r.frames)
  if (frames !== undefined) {
    b.frames = frames
    changed = true
  }
  const vendor = hasVendorFrame(r.frames)
  const md = hint !== undefined && isIBeacon(hint) ? hint : undefined

  if (r.serialNumber !== undefined && b.serialNumber !== r.serialNumber) {
    b.serialNumber = r.serialNumber
    changed = true
  }
  if (r.proximityUUID !== undefined && b.proximityUUID !== r.proximityUUID) {
    b.proximityUUID = r.proximityUUID
    changed = true
  }
  if (r.major !== undefined || r.minor !== undefined) {
    const fromIBeacon = md !== undefined && r.major === ((md[20] << 8) | md[21]) && r.minor === ((md[22] << 8) | md[23])
    if (!fromIBeacon || !st.vendorMajorMinor) {
      if (r.major !== undefined && b.major !== r.major) {
        b.major = r.major
        changed = true
      }
      if (r.minor !== undefined && b.minor !== r.minor) {
        b.minor = r.minor
        changed = true
      }
      if (!fromIBeacon && vendor && !st.vendorMajorMinor) {
        // Counts as a change: how later iBeacon frames merge depends on it.
        st.vendorMajorMinor = true
        changed = true
      }
    }
  }
  if (r.measuredPower !== undefined) {
    const fromIBeacon = md !== undefined && r.measuredPower === (md[24] << 24) >> 24
    if ((!fromIBeacon || !st.vendorPower) && b.measuredPower !== r.measuredPower) {
      b.measuredPower = r.measuredPower
      changed = true
    }
    if (vendor && !fromIBeacon && !st.vendorPower) {
      st.vendorPower = true
      changed = true
    }
  }
  if (!(onlyEddystone(r.frames) && st.vendorSensors)) {
    if (r.temperature !== undefined && b.temperature !== r.temperature) {
      b.temperature = r.temperature
      changed = true
    }
    if (r.batteryLevel !== undefined && b.batteryLevel !== r.batteryLevel) {
      b.batteryLevel = r.batteryLevel
      changed = true
    }
    if (vendor && (r.temperature !== undefined || r.batteryLevel !== undefined) && !st.vendorSensors) {
      st.vendorSensors = true
      changed = true
    }
  }
  if (r.light !== undefined && b.light !== r.light) {
    b.light = r.light
    changed = true
  }
  // movingState and moving come from one byte: a reading that carries the one decides both.
  if (r.movingState !== undefined && (b.movingState !== r.movingState || b.moving !== r.moving)) {
    b.movingState = r.movingState
    b.moving = r.moving
    changed = true
  }
  if (r.accelerometerCount !== undefined && b.accelerometerCount !== r.accelerometerCount) {
    b.accelerometerCount = r.accelerometerCount
    changed = true
  }
  let powerOrModel = false
  if (r.hardwareModelName !== undefined && b.hardwareModelName !== r.hardwareModelName) {
    b.hardwareModelName = r.hardwareModelName
    powerOrModel = true
  }
  if (r.firmwareVersion !== undefined && b.firmwareVersion !== r.firmwareVersion) {
    b.firmwareVersion = r.firmwareVersion
    changed = true
  }
  if (r.transmitPower !== undefined && b.transmitPower !== r.transmitPower) {
    b.transmitPower = r.transmitPower
    powerOrModel = true
  }
  if (powerOrModel) {
    // The dBm is the table entry of the beacon's own level and model, never carried over from
    // a frame whose level or model differed.
    b.transmitPowerDbm = transmitPowerDbmOf(b)
    changed = true
  }
  if (r.advertisingInterval !== undefined && b.advertisingInterval !== r.advertisingInterval) {
    b.advertisingInterval = r.advertisingInterval
    changed = true
  }
  if (r.irk !== undefined && b.irk !== r.irk) {
    b.irk = r.irk
    changed = true
  }
  if (r.unknownModel !== undefined && b.unknownModel !== r.unknownModel) {
    b.unknownModel = r.unknownModel
    changed = true
  }
  // The decoder's readings are shared templates whose nested objects are frozen: those are
  // taken by reference (10,000 beacons need not hold 10,000 copies of the same flags).
  if (r.flags !== undefined && !sameMembers(b.flags, r.flags)) {
    b.flags = b.flags === undefined && Object.isFrozen(r.flags) ? r.flags : Object.freeze({ ...b.flags, ...r.flags })
    changed = true
  }
  if (r.eddystone !== undefined && !sameMembers(b.eddystone, r.eddystone)) {
    b.eddystone =
      b.eddystone === undefined && Object.isFrozen(r.eddystone) ? r.eddystone : mergeEddystone(b.eddystone, r.eddystone)
    changed = true
  }
  if (r.secure !== undefined && !sameSecure(b.secure, r.secure)) {
    b.secure = Object.isFrozen(r.secure) ? r.secure : Object.freeze({ ...r.secure })
    changed = true
  }
  if (changed && b.proximityUUID !== undefined && b.major !== undefined && b.minor !== undefined) {
    const id = beaconIdOf(b.proximityUUID, b.major, b.minor)
    // Usually the reading's own (flat, shared) beaconID; a template literal is a rope of cons
    // strings, ~90 bytes more for as long as the beacon is tracked.
    if (id !== b.beaconID) b.beaconID = id === r.beaconID ? r.beaconID : flatString(id)
  }
  return changed
}

/** Whether every member of `add` is already in `old` with the same value (sub-objects by reference). */
function sameMembers<T extends object>(old: T | undefined, add: T): boolean {
  if (old === undefined) return false
  for (const k in add) if (old[k] !== add[k]) return false
  return true
}

function sameSecure(a: BeaconReading['secure'], b: NonNullable<BeaconReading['secure']>): boolean {
  return (
    a !== undefined &&
    a.encrypted === b.encrypted &&
    a.keyId === b.keyId &&
    a.verified === b.verified &&
    a.rejected === b.rejected
  )
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
export function changeValues(b: BeaconRecord, roundedRssi: number): ChangeValues {
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
