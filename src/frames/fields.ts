/**
 * Field codecs shared by the vendor frames (docs/protocol.md, "Values"): pure functions on
 * bytes, each decoder with its encoder beside it. Decoders return `undefined` for "absent"
 * and `null` only for a sensor the device reports as switched off.
 */
import type { MovingState } from '../reading.js'
import { InvalidOptionError } from '../errors.js'
import { HEX_UPPER } from '../util/hex.js'

/**
 * A flat copy of a string. Strings built with `+` or template literals past 12 characters are
 * ropes of cons strings (32 bytes a node, plus the pieces); a string kept as long as a beacon
 * is remembered is worth copying into one sequential string (a 48-character beaconID: ~150 →
 * ~64 bytes).
 */
export function flatString(s: string): string {
  // Meant for identifiers of a few dozen characters; spreading a huge array would overflow the stack.
  if (s.length > 1024) return s
  const codes: number[] = []
  for (let i = 0; i < s.length; i++) codes.push(s.charCodeAt(i))
  return String.fromCharCode(...codes)
}

/** Prefix the vendor puts before a 3-byte serial number. */
export const SERIAL_PREFIX = '0117C5'

/** Hardware model bytes the vendor has shipped. */
const KNOWN_MODELS = new Set([0xa0, 0xb0, 0xc0, 0xc1, 0xc8])
/** Firmware bytes the vendor has shipped. */
const KNOWN_FIRMWARE = new Set([0x10, 0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46])

/** True when the model or firmware byte is outside what the vendor is known to ship. */
export function isUnknownModel(model: number, firmware: number): boolean {
  return !KNOWN_MODELS.has(model) || !KNOWN_FIRMWARE.has(firmware)
}

/** Model byte → "A0", "B0", … */
export function modelName(model: number): string {
  return HEX_UPPER[model]
}

/** "high.low" for every firmware byte, built once: readings then share the strings. */
const FIRMWARE_NAMES: readonly string[] = HEX_UPPER.map((h) => `${h[0]}.${h[1]}`)

/** Firmware byte → "high.low" in hex digits (0x23 → "2.3", 0x4a → "4.A"). */
export function firmwareName(firmware: number): string {
  return FIRMWARE_NAMES[firmware]
}

/** Inverse of {@link modelName}. */
export function modelByte(name: string): number {
  if (!/^[0-9A-Fa-f]{2}$/.test(name)) throw badField('hardwareModelName', name, 'two hex digits such as "B0"')
  return parseInt(name, 16)
}

/** Inverse of {@link firmwareName}. */
export function firmwareByte(version: string): number {
  const m = /^([0-9A-Fa-f])\.([0-9A-Fa-f])$/.exec(version)
  if (m === null) throw badField('firmwareVersion', version, 'a hex digit, a dot and a hex digit such as "4.1"')
  return parseInt(m[1] + m[2], 16)
}

/** Big-endian u16 at `o`. */
export function u16be(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1]
}

/** Little-endian u16 at `o`. */
export function u16le(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8)
}

/** Little-endian u24 at `o`. */
export function u24le(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16)
}

/** Signed byte. */
export function i8(v: number): number {
  return v > 127 ? v - 256 : v
}

/** 3-byte serial → "0117C5" + 6 upper-case hex digits. */
export function serial3(b: Uint8Array, o: number): string {
  return SERIAL_PREFIX + HEX_UPPER[b[o]] + HEX_UPPER[b[o + 1]] + HEX_UPPER[b[o + 2]]
}

/** 6-byte serial → 12 upper-case hex digits. */
export function serial6(b: Uint8Array, o: number): string {
  return (
    HEX_UPPER[b[o]] +
    HEX_UPPER[b[o + 1]] +
    HEX_UPPER[b[o + 2]] +
    HEX_UPPER[b[o + 3]] +
    HEX_UPPER[b[o + 4]] +
    HEX_UPPER[b[o + 5]]
  )
}

/** Writes validated hex digits as bytes at `o` (every encoder's hex fields go through here). */
export function writeHexBytes(out: Uint8Array, o: number, hex: string): void {
  for (let i = 0; i < hex.length >> 1; i++) out[o + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
}

/** Writes a serial number in its 3-byte form (needs the 0117C5 prefix) at `o`. */
export function writeSerial3(out: Uint8Array, o: number, serial: string): void {
  if (!/^0117C5[0-9A-F]{6}$/i.test(serial)) {
    throw badField('serialNumber', serial, '"0117C5" followed by 6 hex digits for this frame')
  }
  writeHexBytes(out, o, serial.slice(6))
}

/** Writes a serial number in its 6-byte form at `o`. */
export function writeSerial6(out: Uint8Array, o: number, serial: string): void {
  if (!/^[0-9A-F]{12}$/i.test(serial)) throw badField('serialNumber', serial, '12 hex digits')
  writeHexBytes(out, o, serial)
}

/** Battery percent; above 100 is implausible and reported absent. */
export function battery(v: number): number | undefined {
  return v <= 100 ? v : undefined
}

/** Firmware byte from which the vendor stopped subtracting 10 °C. */
const TEMPERATURE_OFFSET_DROPPED = 0x41

/**
 * Temperature in °C. 0xFF means the sensor is off (fix: the vendor compares a signed byte with
 * 255, so its null never fires). Firmware below 4.1 reports the value 10 °C high.
 */
export function temperature(raw: number, firmware: number): number | null {
  if (raw === 0xff) return null
  return firmware < TEMPERATURE_OFFSET_DROPPED ? i8(raw) - 10 : i8(raw)
}

/** Inverse of {@link temperature}; `null` writes the sensor-off byte. */
export function temperatureByte(celsius: number | null, firmware: number): number {
  if (celsius === null) return 0xff
  const raw = firmware < TEMPERATURE_OFFSET_DROPPED ? celsius + 10 : celsius
  if (!Number.isInteger(raw) || raw < -128 || raw > 127 || raw === -1) {
    throw badField(
      'temperature',
      celsius,
      `an integer whose raw byte fits −128…127 and is not −1 (firmware ${firmwareName(firmware)})`,
    )
  }
  return raw & 0xff
}

/**
 * Light in lux: 2^(hi >> 4) × ((hi & 0x0F) × 16 + (lo & 0x0F)) × 0.045. The product of an
 * integer and 45/1000 has at most 3 decimals, so dividing the exact integer by 1000 yields
 * the nearest double to the exact value (the "rounded half-up to 3 decimals" of the protocol).
 */
export function light(hi: number, lo: number): number | null {
  if (hi === 0xff) return null
  const mantissa = (hi & 0x0f) * 16 + (lo & 0x0f)
  return (mantissa * 2 ** (hi >> 4) * 45) / 1000
}

/** Inverse of {@link light}: the smallest exponent that represents `lux` exactly. */
export function lightBytes(lux: number | null): [number, number] {
  if (lux === null) return [0xff, 0]
  const units = Math.round((lux * 1000) / 45)
  if (!(lux >= 0) || Math.abs((units * 45) / 1000 - lux) > 1e-9 * Math.max(1, lux)) {
    throw badField('light', lux, 'a value the light encoding represents exactly (2^e × m × 0.045)')
  }
  for (let e = 0; e < 16; e++) {
    const m = units / 2 ** e
    if (Number.isInteger(m) && m <= 255) {
      const hi = (e << 4) | (m >> 4)
      if (hi === 0xff) break
      return [hi, m & 0x0f]
    }
  }
  throw badField('light', lux, 'a value the light encoding represents exactly (2^e × m × 0.045)')
}

/** Moving-state byte → Android vocabulary. */
export function movingState(v: number): MovingState {
  return v === 0 ? 'still' : v === 1 ? 'moving' : v === 0xff ? 'disabled' : 'unknown'
}

/**
 * Writes a moving state and its iOS-style `moving` together: both come from one byte, so a
 * later frame's `unknown` or `disabled` must also take away an earlier frame's `moving`
 * (deleted, so absent stays absent; that happens only when one advertisement carries two
 * sensor frames, so the object's shape rarely suffers for it).
 */
export function setMovingState(state: MovingState, out: { movingState?: MovingState; moving?: boolean }): void {
  out.movingState = state
  if (state === 'moving') out.moving = true
  else if (state === 'still') out.moving = false
  else if (out.moving !== undefined) delete out.moving
}

/** Inverse of {@link movingState} (`unknown` is written as 2). */
export function movingStateByte(state: MovingState): number {
  return state === 'still' ? 0 : state === 'moving' ? 1 : state === 'disabled' ? 0xff : 2
}

/** Vendor measured power: i8 dBm; 0 means "not set" and is reported absent. */
export function measuredPower(v: number): number | undefined {
  return v === 0 ? undefined : i8(v)
}

/** Checks an integer field before an encoder writes it. */
export function checkInt(field: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw badField(field, v, `an integer ${min}–${max}`)
  return v
}

/** The error an encoder throws for a field value it cannot write. */
export function badField(field: string, value: unknown, expected: string): InvalidOptionError {
  return new InvalidOptionError(
    'invalid_option',
    `${field} ${JSON.stringify(value)} cannot be encoded: expected ${expected}.`,
    {
      option: field,
    },
  )
}
