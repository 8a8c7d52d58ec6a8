/**
 * Vendor frame 0x80E7 of legacy firmware (docs/protocol.md, "0x80E7"): exactly 23 bytes of service data.
 * Which fields follow major/minor depends on the model and firmware bytes.
 */
import type { MovingState } from '../reading.js'
import type { ReadingDraft } from './draft.js'
import {
  battery,
  checkInt,
  firmwareByte,
  firmwareName,
  isUnknownModel,
  light,
  lightBytes,
  modelByte,
  modelName,
  movingState,
  setMovingState,
  movingStateByte,
  serial3,
  serial6,
  temperature,
  temperatureByte,
  u16be,
  u16le,
  u24le,
  writeSerial3,
  writeSerial6,
} from './fields.js'

/** The only valid length of a 0x80E7 payload. */
export const E780_LENGTH = 23

const MODEL_A0 = 0xa0
const MODEL_B0 = 0xb0
/** A0 with this firmware carries a 6-byte serial number. */
const A0_SERIAL6_FIRMWARE = 0x10
/** B0 from this firmware on carries sensors. */
const B0_SENSOR_FIRMWARE = 0x20
/** B0 from this firmware on has a 16-bit accelerometer count and a broadcast-key byte. */
const B0_COUNT16_FIRMWARE = 0x23

/** Decodes a 0x80E7 payload into `out`; false (and `out` untouched) when it is not one. */
export function decodeE780(d: Uint8Array, out: ReadingDraft): boolean {
  if (d.length !== E780_LENGTH) return false
  const model = d[0]
  const fw = d[1]
  out.hardwareModelName = modelName(model)
  out.firmwareVersion = firmwareName(fw)
  if (isUnknownModel(model, fw)) out.unknownModel = true
  out.major = u16be(d, 8)
  out.minor = u16be(d, 10)
  if (model === MODEL_A0 && fw === A0_SERIAL6_FIRMWARE) {
    out.serialNumber = serial6(d, 12)
    const b = battery(d[18])
    if (b !== undefined) out.batteryLevel = b
  } else if (model === MODEL_B0 && fw >= B0_SENSOR_FIRMWARE) {
    out.serialNumber = serial3(d, 12)
    const b = battery(d[15])
    if (b !== undefined) out.batteryLevel = b
    out.temperature = temperature(d[16], fw)
    out.light = light(d[17], d[18])
    let moving: MovingState
    if (fw < B0_COUNT16_FIRMWARE) {
      out.accelerometerCount = u24le(d, 19)
      moving = movingState(d[22])
    } else {
      out.accelerometerCount = u16le(d, 19)
      moving = movingState(d[21])
      out.flags = { broadcastKeyEnabled: d[22] !== 0 }
    }
    setMovingState(moving, out)
  }
  return true
}

/** Fields {@link encodeE780} writes; which are used depends on model and firmware, as in the decoder. */
export interface E780Fields {
  hardwareModelName: string
  firmwareVersion: string
  major: number
  minor: number
  /** A0 firmware 1.0: 12 hex digits; B0 firmware ≥ 2.0: "0117C5" + 6 hex digits. */
  serialNumber?: string
  /** 0–100; absent is written as 0xFF. */
  batteryLevel?: number
  temperature?: number | null
  light?: number | null
  accelerometerCount?: number
  movingState?: MovingState
  /** B0 firmware ≥ 2.3: whether a broadcast key is set. */
  broadcastKeyEnabled?: boolean
}

/** Encodes a 0x80E7 payload (service data without its uuid). */
export function encodeE780(f: E780Fields): Uint8Array {
  const out = new Uint8Array(E780_LENGTH)
  const model = modelByte(f.hardwareModelName)
  const fw = firmwareByte(f.firmwareVersion)
  out[0] = model
  out[1] = fw
  const major = checkInt('major', f.major, 0, 0xffff)
  const minor = checkInt('minor', f.minor, 0, 0xffff)
  out[8] = major >> 8
  out[9] = major & 0xff
  out[10] = minor >> 8
  out[11] = minor & 0xff
  const batteryByte = f.batteryLevel === undefined ? 0xff : checkInt('batteryLevel', f.batteryLevel, 0, 100)
  if (model === MODEL_A0 && fw === A0_SERIAL6_FIRMWARE) {
    writeSerial6(out, 12, f.serialNumber ?? '000000000000')
    out[18] = batteryByte
  } else if (model === MODEL_B0 && fw >= B0_SENSOR_FIRMWARE) {
    writeSerial3(out, 12, f.serialNumber ?? '0117C5000000')
    out[15] = batteryByte
    out[16] = temperatureByte(f.temperature ?? null, fw)
    const [hi, lo] = lightBytes(f.light ?? null)
    out[17] = hi
    out[18] = lo
    const moving = movingStateByte(f.movingState ?? 'disabled')
    if (fw < B0_COUNT16_FIRMWARE) {
      const count = checkInt('accelerometerCount', f.accelerometerCount ?? 0, 0, 0xffffff)
      out[19] = count & 0xff
      out[20] = (count >> 8) & 0xff
      out[21] = count >> 16
      out[22] = moving
    } else {
      const count = checkInt('accelerometerCount', f.accelerometerCount ?? 0, 0, 0xffff)
      out[19] = count & 0xff
      out[20] = count >> 8
      out[21] = moving
      out[22] = f.broadcastKeyEnabled ? 1 : 0
    }
  }
  return out
}
