/**
 * The vendor frames' packed bytes: bit field A (transmit-power level and advertising-interval
 * index), bit field B (flags), and the transmit-power table that turns a level into dBm.
 */
import type { BeaconFlags } from '../reading.js'
import { badField } from './fields.js'

/** Advertising interval in ms by the index in the low nibble of bit field A. */
export const ADVERTISING_INTERVALS_MS: readonly number[] = [
  100, 152.5, 211.25, 318.75, 417.5, 546.25, 760, 852.5, 1022.5, 1285,
]

/** Highest transmit-power level a device can report. */
export const MAX_TX_POWER_LEVEL = 11

/** Transmit power level → dBm, by hardware model (docs/protocol.md, "Values"). */
const TX_POWER_DBM: ReadonlyMap<number, readonly number[]> = new Map([
  [0xa0, [-23, -6, 0]],
  [0xb0, [-30, -20, -16, -12, -8, -4, 0, 4]],
  [0xc0, [-30, -20, -16, -12, -30, -20, -16, -12, -8, -4, 0, 4]],
])

/** dBm of a transmit-power level for a model; undefined where the table has no entry. */
export function transmitPowerDbm(model: number, level: number): number | undefined {
  return TX_POWER_DBM.get(model)?.[level]
}

/**
 * The dBm that goes with a reading's or beacon's level and model, or undefined. Derived in one
 * place from the two values beside it rather than carried from frame to frame: a level merged
 * from one frame must never keep a dBm looked up for another frame's level or model.
 */
export function transmitPowerDbmOf(r: {
  readonly hardwareModelName?: string
  readonly transmitPower?: number
}): number | undefined {
  if (r.transmitPower === undefined || r.hardwareModelName === undefined) return undefined
  // Model names are always modelName()'s two upper-case hex digits.
  return transmitPowerDbm(parseInt(r.hardwareModelName, 16), r.transmitPower)
}

/** The decoded parts of bit field A. */
export interface BitFieldA {
  transmitPower?: number
  advertisingInterval?: number
}

/** Bit field A: high nibble transmit-power level (≤ 11), low nibble interval index (≤ 9). */
export function bitFieldA(v: number): BitFieldA {
  const level = v >> 4
  const index = v & 0x0f
  const out: BitFieldA = {}
  if (level <= MAX_TX_POWER_LEVEL) out.transmitPower = level
  if (index < ADVERTISING_INTERVALS_MS.length) out.advertisingInterval = ADVERTISING_INTERVALS_MS[index]
  return out
}

/** Inverse of {@link bitFieldA}; absent parts are written as out-of-range nibbles (absent again on decode). */
export function bitFieldAByte(transmitPower: number | undefined, advertisingInterval: number | undefined): number {
  let level = 0x0f
  if (transmitPower !== undefined) {
    if (!Number.isInteger(transmitPower) || transmitPower < 0 || transmitPower > MAX_TX_POWER_LEVEL) {
      throw badField('transmitPower', transmitPower, 'an integer level 0–11')
    }
    level = transmitPower
  }
  let index = 0x0f
  if (advertisingInterval !== undefined) {
    index = ADVERTISING_INTERVALS_MS.indexOf(advertisingInterval)
    if (index < 0)
      throw badField('advertisingInterval', advertisingInterval, `one of ${ADVERTISING_INTERVALS_MS.join(', ')} ms`)
  }
  return (level << 4) | index
}

/** Bit field B → flags; all six members present. */
export function bitFieldB(v: number): BeaconFlags {
  return {
    passwordEnabled: (v & 0x80) !== 0,
    broadcastKeyEnabled: (v & 0x40) !== 0,
    energySaving: (v & 0x20) !== 0,
    aliBeacon: (v & 0x10) !== 0,
    backgroundEnhancement: (v & 0x08) !== 0,
    eddystone: (v & 0x04) !== 0,
  }
}

/** Inverse of {@link bitFieldB}; missing members are written as 0. */
export function bitFieldBByte(flags: BeaconFlags | undefined): number {
  if (flags === undefined) return 0
  return (
    (flags.passwordEnabled ? 0x80 : 0) |
    (flags.broadcastKeyEnabled ? 0x40 : 0) |
    (flags.energySaving ? 0x20 : 0) |
    (flags.aliBeacon ? 0x10 : 0) |
    (flags.backgroundEnhancement ? 0x08 : 0) |
    (flags.eddystone ? 0x04 : 0)
  )
}
