/**
 * Eddystone frames (service data of uuid 0xFEAA) per the public Eddystone specification:
 * UID 0x00, URL 0x10, TLM 0x20 (version 0 plain, version 1 encrypted), EID 0x30.
 * Decoders are pure and never throw: a frame that is truncated, overlong, of an unknown type
 * or carrying reserved codes yields `null` — nothing is guessed. Encoders sit beside them.
 */
import { InvalidOptionError } from '../errors.js'
import type { EddystoneEid, EddystoneInfo, EddystonePlainTlm, EddystoneUid, EddystoneUrl } from '../reading.js'
import { MAX_ENCODED_URL_BYTES, compressUrl, expandUrl } from './eddystone-url.js'
import { checkInt, writeHexBytes } from './fields.js'
import { HEX_LOWER } from '../util/hex.js'

/** Frame type bytes. Other values (0x40 is reserved for future use) are not decoded. */
const UID_FRAME = 0x00
const URL_FRAME = 0x10
const TLM_FRAME = 0x20
const EID_FRAME = 0x30

/** 0x8000 in TLM TEMP is the specification's "temperature not supported". */
const TEMPERATURE_UNSUPPORTED = 0x8000
/** The encrypted TLM: type, version, 12 bytes ETLM, 2 bytes salt, 2 bytes MIC. */
const ENCRYPTED_TLM_LENGTH = 18
const PLAIN_TLM_LENGTH = 14
const EID_LENGTH = 10

function hex(data: Uint8Array, start: number, end: number): string {
  let s = ''
  for (let i = start; i < end; i++) s += HEX_LOWER[data[i] as number]
  return s
}

/** The byte as a signed 8-bit integer. */
function i8(b: number): number {
  return (b << 24) >> 24
}

function u16(data: Uint8Array, at: number): number {
  return ((data[at] as number) << 8) | (data[at + 1] as number)
}

function u32(data: Uint8Array, at: number): number {
  // `>>> 0` keeps values ≥ 2^31 positive.
  return (((data[at] as number) << 24) | ((data[at + 1] as number) << 16) | u16(data, at + 2)) >>> 0
}

/**
 * UID is 20 bytes with two reserved trailing bytes, which some beacons omit (18 bytes).
 * Longer frames are rejected: bytes we cannot place are not silently dropped. The reserved
 * bytes are ignored whatever they hold, as the specification reserves them for future use.
 */
function decodeUid(data: Uint8Array): EddystoneUid | null {
  if (data.length !== 18 && data.length !== 20) return null
  return { namespace: hex(data, 2, 12), instance: hex(data, 12, 18), txPowerAt0m: i8(data[1] as number) }
}

/** URL: type, tx power, scheme byte, then 0–17 encoded bytes. */
function decodeUrl(data: Uint8Array): EddystoneUrl | null {
  if (data.length < 3 || data.length > 3 + MAX_ENCODED_URL_BYTES) return null
  const url = expandUrl(data, 2, data.length)
  return url === null ? null : { url, txPowerAt0m: i8(data[1] as number) }
}

function decodeTlm(data: Uint8Array): EddystoneInfo['tlm'] | null {
  if (data.length < 2) return null
  const version = data[1]
  if (version === 0x01) return data.length === ENCRYPTED_TLM_LENGTH ? { encrypted: true } : null
  if (version !== 0x00 || data.length !== PLAIN_TLM_LENGTH) return null
  const rawTemp = u16(data, 4)
  return {
    version: 0,
    batteryMilliVolts: u16(data, 2),
    // Signed 8.8 fixed point: the int16 divided by 256 is exact in a double.
    temperature: rawTemp === TEMPERATURE_UNSUPPORTED ? null : ((rawTemp << 16) >> 16) / 256,
    advertisingCount: u32(data, 6),
    secondsSinceBoot: u32(data, 10) / 10,
  }
}

function decodeEid(data: Uint8Array): EddystoneEid | null {
  if (data.length !== EID_LENGTH) return null
  return { ephemeralId: hex(data, 2, 10), txPowerAt0m: i8(data[1] as number) }
}

/**
 * Decodes ONE Eddystone service-data payload (the bytes after the 0xFEAA uuid).
 *
 * @returns an `EddystoneInfo` with exactly one member (`uid`, `url`, `tlm` or `eid`), or `null`
 * when the payload is not a valid frame of a known type. Never throws.
 */
export function decodeEddystone(data: Uint8Array): EddystoneInfo | null {
  if (!(data instanceof Uint8Array) || data.length < 2) return null
  switch (data[0]) {
    case UID_FRAME: {
      const uid = decodeUid(data)
      return uid === null ? null : { uid }
    }
    case URL_FRAME: {
      const url = decodeUrl(data)
      return url === null ? null : { url }
    }
    case TLM_FRAME: {
      const tlm = decodeTlm(data)
      return tlm === null ? null : { tlm }
    }
    case EID_FRAME: {
      const eid = decodeEid(data)
      return eid === null ? null : { eid }
    }
    default:
      return null
  }
}

/**
 * The RSSI at 1 m implied by an Eddystone frame: the 0 m tx power minus the specification's
 * 41 dB path loss over the first metre. From UID, else URL, else EID; `undefined` if none.
 */
export function eddystoneMeasuredPower(info: EddystoneInfo): number | undefined {
  const at0m = info.uid?.txPowerAt0m ?? info.url?.txPowerAt0m ?? info.eid?.txPowerAt0m
  return at0m === undefined ? undefined : at0m - 41
}

// ---- encoders ----------------------------------------------------------------------------

function invalid(option: string, message: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', message, { option })
}

// Untyped callers may pass anything; they get the typed error, not a TypeError.
function requireObject(option: string, value: unknown): void {
  if (typeof value !== 'object' || value === null) throw invalid(option, `Eddystone ${option} must be an object.`)
}

function writeHex(out: Uint8Array, at: number, option: string, text: string, bytes: number): void {
  if (typeof text !== 'string' || text.length !== bytes * 2 || !/^[0-9a-f]*$/i.test(text)) {
    throw invalid(option, `Eddystone ${option} must be ${bytes * 2} hex digits.`)
  }
  writeHexBytes(out, at, text)
}

function txPowerByte(value: number): number {
  return checkInt('txPowerAt0m', value, -128, 127) & 0xff
}

/**
 * Encodes an Eddystone-UID payload (without the 0xFEAA uuid): 20 bytes, or 18 when
 * `withReserved` is false. Namespace 20 and instance 12 hex digits, any case.
 * Throws `InvalidOptionError` for values a frame cannot carry.
 */
export function encodeEddystoneUid(uid: EddystoneUid, options: { withReserved?: boolean } = {}): Uint8Array {
  requireObject('uid', uid)
  const out = new Uint8Array(options.withReserved === false ? 18 : 20)
  out[0] = UID_FRAME
  out[1] = txPowerByte(uid.txPowerAt0m)
  writeHex(out, 2, 'namespace', uid.namespace, 10)
  writeHex(out, 12, 'instance', uid.instance, 6)
  return out
}

/**
 * Encodes an Eddystone-URL payload, compressing the URL with the shortest scheme and
 * expansion codes. Throws `InvalidOptionError` when the URL cannot be broadcast.
 */
export function encodeEddystoneUrl(url: EddystoneUrl): Uint8Array {
  requireObject('url', url)
  const tx = txPowerByte(url.txPowerAt0m)
  const compressed = compressUrl(url.url)
  const out = new Uint8Array(2 + compressed.length)
  out[0] = URL_FRAME
  out[1] = tx
  out.set(compressed, 2)
  return out
}

/**
 * An encrypted TLM (version 1) to encode: the beacon's 12 bytes of ciphertext, its salt
 * and its message integrity check, passed through as they are.
 */
export interface EddystoneSealedTlm {
  version: 1
  /** 12 bytes of encrypted telemetry. */
  etlm: Uint8Array
  /** 16-bit salt. */
  salt: number
  /** 16-bit message integrity check. */
  mic: number
}

function encodePlainTlm(tlm: EddystonePlainTlm): Uint8Array {
  const out = new Uint8Array(PLAIN_TLM_LENGTH)
  const view = new DataView(out.buffer)
  let temp = TEMPERATURE_UNSUPPORTED
  if (tlm.temperature !== null) {
    // Rounds to the nearest 1/256 °C; -128 °C itself would read back as "not supported".
    const raw = Number.isFinite(tlm.temperature) ? Math.round(tlm.temperature * 256) : Number.NaN
    if (!(raw > -32768 && raw <= 32767)) {
      throw invalid('temperature', 'Eddystone temperature must be null or a number above -128 and below 128 °C.')
    }
    temp = raw & 0xffff
  }
  const secs = Number.isFinite(tlm.secondsSinceBoot) ? Math.round(tlm.secondsSinceBoot * 10) : Number.NaN
  if (!(secs >= 0 && secs <= 0xffffffff)) {
    throw invalid('secondsSinceBoot', 'Eddystone secondsSinceBoot must be from 0 to 429496729.5 (0.1 s steps).')
  }
  out[0] = TLM_FRAME
  out[1] = 0x00
  view.setUint16(2, checkInt('batteryMilliVolts', tlm.batteryMilliVolts, 0, 0xffff))
  view.setUint16(4, temp)
  view.setUint32(6, checkInt('advertisingCount', tlm.advertisingCount, 0, 0xffffffff))
  view.setUint32(10, secs)
  return out
}

/**
 * Encodes an Eddystone-TLM payload: version 0 (plain, 14 bytes; temperature rounded to
 * 1/256 °C, seconds to 0.1 s) or version 1 (encrypted, 18 bytes).
 * Throws `InvalidOptionError` for values a frame cannot carry.
 */
export function encodeEddystoneTlm(tlm: EddystonePlainTlm | EddystoneSealedTlm): Uint8Array {
  requireObject('tlm', tlm)
  if (tlm.version === 0) return encodePlainTlm(tlm)
  if (tlm.version !== 1) throw invalid('version', 'Eddystone TLM version must be 0 (plain) or 1 (encrypted).')
  if (!(tlm.etlm instanceof Uint8Array) || tlm.etlm.length !== 12) {
    throw invalid('etlm', 'Eddystone encrypted TLM needs exactly 12 bytes of ciphertext.')
  }
  const out = new Uint8Array(ENCRYPTED_TLM_LENGTH)
  const view = new DataView(out.buffer)
  out[0] = TLM_FRAME
  out[1] = 0x01
  out.set(tlm.etlm, 2)
  view.setUint16(14, checkInt('salt', tlm.salt, 0, 0xffff))
  view.setUint16(16, checkInt('mic', tlm.mic, 0, 0xffff))
  return out
}

/**
 * Encodes an Eddystone-EID payload (10 bytes): the 8-byte ephemeral id as 16 hex digits.
 * Throws `InvalidOptionError` for values a frame cannot carry.
 */
export function encodeEddystoneEid(eid: EddystoneEid): Uint8Array {
  requireObject('eid', eid)
  const out = new Uint8Array(EID_LENGTH)
  out[0] = EID_FRAME
  out[1] = txPowerByte(eid.txPowerAt0m)
  writeHex(out, 2, 'ephemeralId', eid.ephemeralId, 8)
  return out
}
