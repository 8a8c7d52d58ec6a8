/**
 * Vendor frame 0x81E7 of current firmware (docs/protocol.md, "0x81E7"): a header (model, firmware, mode,
 * key id, random code) and either plaintext fields or one AES block (section 3).
 *
 * The identity and sensor layouts are the same whether plain or encrypted: the plaintext
 * fields start at payload offset 7, the decrypted block at 0. One reader serves both.
 */
import type { BeaconFlags, MovingState } from '../reading.js'
import type { ReadingDraft } from './draft.js'
import type { Keyring } from '../secure/keyring.js'
import type { BroadcastKey } from '../secure/broadcast-key.js'
import { openE781Block, sealE781Block, type BlockLayout, type SecureStats } from '../secure/open.js'
import { InvalidOptionError } from '../errors.js'
import { HEX_LOWER } from '../util/hex.js'
import {
  battery,
  checkInt,
  firmwareByte,
  firmwareName,
  isUnknownModel,
  light,
  lightBytes,
  measuredPower,
  modelByte,
  modelName,
  movingState,
  setMovingState,
  movingStateByte,
  serial3,
  temperature,
  temperatureByte,
  u16be,
  u16le,
  writeSerial3,
} from './fields.js'
import { bitFieldA, bitFieldAByte, bitFieldB, bitFieldBByte } from './bit-fields.js'

/** Modes of byte 2 (after masking with 0x70, except the exact split-mode bytes). */
export const E781_MODE = {
  identity: 0x10,
  sensors: 0x20,
  full: 0x30,
  identityEncrypted: 0x41,
  sensorsEncrypted: 0x42,
  eddystoneOnly: 0x50,
} as const

/** One of the 0x81E7 modes. */
export type E781Mode = (typeof E781_MODE)[keyof typeof E781_MODE]

/** Offset of the plaintext fields (and of the AES block) in the payload. */
const BODY = 7
/** Length of a payload carrying an AES block. */
export const E781_ENCRYPTED_LENGTH = BODY + 16
const MIN_LENGTH: Readonly<Record<number, number>> = { 0x10: 21, 0x20: 20, 0x30: 23, 0x50: 6 }

/** What the encrypted path needs; all optional so plaintext decoding needs nothing. */
export interface E781Context {
  keyring?: Keyring
  /** The serial number already verified for this address, when there is one. */
  expectedSerial?: string
  stats?: SecureStats
}

/** Mode of a payload's byte 2. */
export function e781Mode(modeByte: number): number {
  return modeByte === 0x41 || modeByte === 0x42 ? modeByte : modeByte & 0x70
}

/**
 * Decodes a 0x81E7 payload into `out`. Returns false (and leaves `out` untouched) when the mode
 * is unknown or the payload too short for it. An encrypted frame that does not verify still
 * decodes: it yields the header and `secure` with the reason, and no decrypted field at all.
 */
export function decodeE781(d: Uint8Array, out: ReadingDraft, ctx: E781Context = {}): boolean {
  if (d.length < 3) return false
  const model = d[0]
  const fw = d[1]
  const mode = e781Mode(d[2])
  const split = mode === 0x41 || mode === 0x42
  const encrypted = split || ((mode === 0x10 || mode === 0x20) && d.length >= 5 && (d[3] | d[4]) !== 0)
  if (!encrypted) {
    const min = MIN_LENGTH[mode]
    if (min === undefined || d.length < min) return false
  } else if (d.length < 5) {
    return false
  }
  out.hardwareModelName = modelName(model)
  out.firmwareVersion = firmwareName(fw)
  if (isUnknownModel(model, fw)) out.unknownModel = true

  if (encrypted) {
    const layout: BlockLayout = mode === 0x10 || mode === 0x41 ? 'identity' : 'sensors'
    const opened = openE781Block(ctx.keyring, d, layout, { expectedSerial: ctx.expectedSerial, stats: ctx.stats })
    if (!opened.verified) {
      out.secure = { encrypted: true, keyId: opened.keyId, verified: false, rejected: opened.reason }
      return true
    }
    out.secure = { encrypted: true, keyId: opened.keyId, verified: true }
    if (layout === 'identity') readIdentity(opened.block, 0, out)
    else readSensors(opened.block, 0, fw, out)
    return true
  }
  switch (mode) {
    case 0x10:
      readIdentity(d, BODY, out)
      break
    case 0x20:
      readSensors(d, BODY, fw, out)
      break
    case 0x30:
      readFull(d, fw, out)
      break
    default:
      // 0x50: an Eddystone-only device announces just its serial number; its battery byte is
      // the vendor's 255 placeholder, so battery stays absent.
      out.serialNumber = serial3(d, 3)
  }
  return true
}

function readIdentity(b: Uint8Array, o: number, out: ReadingDraft): void {
  out.serialNumber = serial3(b, o)
  out.major = u16be(b, o + 6)
  out.minor = u16be(b, o + 8)
  setCommon(b[o + 10], b[o + 11], b[o + 12], b[o + 13], out)
}

function readSensors(b: Uint8Array, o: number, fw: number, out: ReadingDraft): void {
  out.serialNumber = serial3(b, o)
  setCommon(b[o + 3], b[o + 4], b[o + 5], b[o + 12], out)
  setSensors(b[o + 6], b[o + 7], b[o + 8], u16le(b, o + 9), b[o + 11], fw, out)
}

function readFull(d: Uint8Array, fw: number, out: ReadingDraft): void {
  out.serialNumber = serial3(d, 3)
  out.major = u16be(d, 9)
  out.minor = u16be(d, 11)
  setCommon(d[13], d[14], d[15], d[22], out)
  setSensors(d[16], d[17], d[18], u16le(d, 19), d[21], fw, out)
}

function setCommon(batteryByte: number, a: number, b: number, power: number, out: ReadingDraft): void {
  const level = battery(batteryByte)
  if (level !== undefined) out.batteryLevel = level
  const fieldA = bitFieldA(a)
  // The dBm is derived once the whole advertisement is decoded (transmitPowerDbmOf in decode.ts).
  if (fieldA.transmitPower !== undefined) out.transmitPower = fieldA.transmitPower
  if (fieldA.advertisingInterval !== undefined) out.advertisingInterval = fieldA.advertisingInterval
  out.flags = bitFieldB(b)
  const mp = measuredPower(power)
  if (mp !== undefined) out.measuredPower = mp
}

function setSensors(
  temp: number,
  lightHi: number,
  lightLo: number,
  count: number,
  moving: number,
  fw: number,
  out: ReadingDraft,
): void {
  out.temperature = temperature(temp, fw)
  out.light = light(lightHi, lightLo)
  out.accelerometerCount = count
  const state: MovingState = movingState(moving)
  setMovingState(state, out)
}

/** Fields {@link encodeE781} writes; which are used depends on the mode, as in the decoder. */
export interface E781Fields {
  mode: E781Mode
  hardwareModelName: string
  firmwareVersion: string
  /** "0117C5" followed by 6 hex digits. */
  serialNumber: string
  major?: number
  minor?: number
  /** 0–100; absent is written as 0xFF. */
  batteryLevel?: number
  transmitPower?: number
  advertisingInterval?: number
  flags?: BeaconFlags
  temperature?: number | null
  light?: number | null
  accelerometerCount?: number
  movingState?: MovingState
  /** dBm; absent is written as 0. */
  measuredPower?: number
}

/** How {@link encodeE781} builds the header and whether it encrypts. */
export interface E781EncodeOptions {
  /** Encrypts modes 0x10, 0x20, 0x41 and 0x42 with this key (required for 0x41/0x42). */
  key?: BroadcastKey
  /** The 2-byte random code of an encrypted frame; defaults to a random value. */
  randomCode?: number
  /** The exact byte 2 to write (the mode sits in bits 4–6); defaults to the mode. */
  modeByte?: number
}

/** Encodes a 0x81E7 payload (service data without its uuid). */
export function encodeE781(f: E781Fields, opts: E781EncodeOptions = {}): Uint8Array {
  const model = modelByte(f.hardwareModelName)
  const fw = firmwareByte(f.firmwareVersion)
  const modeByte = opts.modeByte ?? f.mode
  if (e781Mode(modeByte) !== f.mode) {
    throw new InvalidOptionError(
      'invalid_option',
      `modeByte 0x${HEX_LOWER[modeByte & 0xff]} does not select mode 0x${HEX_LOWER[f.mode]}.`,
      {
        option: 'modeByte',
      },
    )
  }
  const split = f.mode === 0x41 || f.mode === 0x42
  if (split && opts.key === undefined) {
    throw new InvalidOptionError(
      'invalid_option',
      `Mode 0x${HEX_LOWER[f.mode]} is always encrypted: pass a broadcast key.`,
      { option: 'key' },
    )
  }
  const encrypt = opts.key !== undefined && (split || f.mode === 0x10 || f.mode === 0x20)
  const out = new Uint8Array(f.mode === 0x50 ? 6 : E781_ENCRYPTED_LENGTH)
  out[0] = model
  out[1] = fw
  out[2] = checkInt('modeByte', modeByte, 0, 0xff)
  if (f.mode === 0x30 || f.mode === 0x50) {
    writeSerial3(out, 3, f.serialNumber)
    if (f.mode === 0x30) {
      writeIdentityNumbers(out, 9, f)
      writeCommon(out, 13, 14, 15, 22, f)
      writeSensors(out, 16, 19, 21, f, fw)
    }
    return out
  }
  const body = encrypt ? new Uint8Array(16) : out.subarray(BODY)
  writeSerial3(body, 0, f.serialNumber)
  if (f.mode === 0x10 || f.mode === 0x41) {
    writeIdentityNumbers(body, 6, f)
    writeCommon(body, 10, 11, 12, 13, f)
  } else {
    writeCommon(body, 3, 4, 5, 12, f)
    writeSensors(body, 6, 9, 11, f, fw)
  }
  if (encrypt && opts.key !== undefined) {
    const code = checkInt('randomCode', opts.randomCode ?? 1 + Math.floor(Math.random() * 0xfffe), 0, 0xffff)
    const keyId = parseInt(opts.key.keyId, 16)
    out[3] = keyId >> 8
    out[4] = keyId & 0xff
    out[5] = code >> 8
    out[6] = code & 0xff
    out.set(sealE781Block(opts.key, code, body), BODY)
  }
  return out
}

function writeIdentityNumbers(b: Uint8Array, o: number, f: E781Fields): void {
  const major = checkInt('major', f.major ?? 0, 0, 0xffff)
  const minor = checkInt('minor', f.minor ?? 0, 0, 0xffff)
  b[o] = major >> 8
  b[o + 1] = major & 0xff
  b[o + 2] = minor >> 8
  b[o + 3] = minor & 0xff
}

function writeCommon(b: Uint8Array, batteryAt: number, aAt: number, bAt: number, powerAt: number, f: E781Fields): void {
  b[batteryAt] = f.batteryLevel === undefined ? 0xff : checkInt('batteryLevel', f.batteryLevel, 0, 100)
  b[aAt] = bitFieldAByte(f.transmitPower, f.advertisingInterval)
  b[bAt] = bitFieldBByte(f.flags)
  b[powerAt] = f.measuredPower === undefined ? 0 : checkInt('measuredPower', f.measuredPower, -128, 127) & 0xff
}

function writeSensors(
  b: Uint8Array,
  tempAt: number,
  countAt: number,
  movingAt: number,
  f: E781Fields,
  fw: number,
): void {
  b[tempAt] = temperatureByte(f.temperature ?? null, fw)
  const [hi, lo] = lightBytes(f.light ?? null)
  b[tempAt + 1] = hi
  b[tempAt + 2] = lo
  const count = checkInt('accelerometerCount', f.accelerometerCount ?? 0, 0, 0xffff)
  b[countAt] = count & 0xff
  b[countAt + 1] = count >> 8
  b[movingAt] = movingStateByte(f.movingState ?? 'disabled')
}
