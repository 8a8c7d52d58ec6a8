/**
 * An iBeacon advertisement rebuilt from decoded fields (uuid, major, minor, measured power), for
 * foreign nodes that publish those instead of the bytes: ESPresense's `iBeacon:` ids and
 * OpenMQTTGateway's decoded iBeacons. Rebuilt as on the air (Apple's company id 0x004C
 * little-endian, type 0x02, length 0x15), so beaconkit's own decoder yields the same `beaconID`
 * a Pi's adapter would, and the fleet sees one beacon whichever node heard it.
 */

import { encodeIBeacon } from '../frames/ibeacon.js'

const UUID_HEX = /^[0-9a-f]{32}$/

/** A uuid with or without dashes as 32 lower-case hex digits, or undefined. */
export function uuidHex(text: string): string | undefined {
  const hex = text.replace(/-/g, '').toLowerCase()
  if (!UUID_HEX.test(hex)) return undefined
  // Dashes only where 8-4-4-4-12 puts them.
  if (text.includes('-') && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text))
    return undefined
  return hex
}

/** A whole number in 0..65535 (major, minor), or undefined. */
export function uint16(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffff ? n : undefined
}

/** The measured power byte: an int8 dBm (−128..127), rounded; else the iBeacon default −59. */
function measuredPower(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= -128 && value <= 127 ? Math.round(value) : -59
}

/**
 * The manufacturer data of an iBeacon frame (frames/ibeacon.ts's encoder): 4C 00 02 15, uuid,
 * major and minor big-endian, measured power. The caller has checked uuid, major and minor.
 */
export function ibeaconManufacturerData(uuid32: string, major: number, minor: number, power: unknown): Uint8Array {
  return encodeIBeacon({ proximityUUID: uuid32, major, minor, measuredPower: measuredPower(power) })
}
