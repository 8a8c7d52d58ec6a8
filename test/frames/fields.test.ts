// PROTOCOL.md 2.3 and 2.4, row by row, on the field codecs.
import { describe, expect, it } from 'vitest'
import {
  battery, firmwareByte, firmwareName, isUnknownModel, light, lightBytes, measuredPower, modelName, movingState,
  serial3, serial6, temperature, temperatureByte,
} from '../../src/frames/fields.js'
import {
  ADVERTISING_INTERVALS_MS, bitFieldA, bitFieldAByte, bitFieldB, bitFieldBByte, transmitPowerDbm,
} from '../../src/frames/bit-fields.js'
import { InvalidOptionError } from '../../src/errors.js'

describe('model and firmware strings', () => {
  it('renders the model as two upper-case hex digits', () => {
    expect(modelName(0xa0)).toBe('A0')
    expect(modelName(0xc8)).toBe('C8')
    expect(modelName(0x0b)).toBe('0B')
  })
  it('renders firmware as high nibble, dot, low nibble', () => {
    expect(firmwareName(0x23)).toBe('2.3')
    expect(firmwareName(0x41)).toBe('4.1')
    expect(firmwareName(0x10)).toBe('1.0')
    expect(firmwareName(0x4a)).toBe('4.A')
    expect(firmwareByte('4.A')).toBe(0x4a)
  })
  it('flags models and firmware outside the shipped sets', () => {
    for (const m of [0xa0, 0xb0, 0xc0, 0xc1, 0xc8]) {
      for (const f of [0x10, 0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46]) {
        expect(isUnknownModel(m, f)).toBe(false)
      }
    }
    expect(isUnknownModel(0xd0, 0x23)).toBe(true)
    expect(isUnknownModel(0xa0, 0x24)).toBe(true)
    expect(isUnknownModel(0xa0, 0x47)).toBe(true)
  })
  it('refuses malformed model and firmware strings in encoders', () => {
    expect(() => firmwareByte('41')).toThrow(InvalidOptionError)
  })
})

describe('serial numbers', () => {
  it('prefixes 3 bytes with 0117C5', () => {
    expect(serial3(Uint8Array.of(0x45, 0x6a, 0x36), 0)).toBe('0117C5456A36')
  })
  it('renders 6 bytes as 12 upper-case hex digits', () => {
    expect(serial6(Uint8Array.of(0, 0xab, 0x8f, 0xe1, 0x13, 0xf2, 0x08), 1)).toBe('AB8FE113F208')
  })
})

describe('battery', () => {
  it('passes 0–100 and reports anything above as absent', () => {
    expect(battery(0)).toBe(0)
    expect(battery(100)).toBe(100)
    expect(battery(101)).toBeUndefined()
    expect(battery(255)).toBeUndefined()
  })
})

describe('temperature', () => {
  it('is null for 0xFF, which the vendor SDK never detects (fix)', () => {
    expect(temperature(0xff, 0x23)).toBeNull()
    expect(temperature(0xff, 0x43)).toBeNull()
  })
  it('subtracts 10 below firmware 4.1 and not from 4.1 on', () => {
    expect(temperature(30, 0x40)).toBe(20)
    expect(temperature(30, 0x41)).toBe(30)
    expect(temperature(0x80, 0x23)).toBe(-138)
    expect(temperature(0x80, 0x41)).toBe(-128)
    expect(temperature(0xfe, 0x41)).toBe(-2)
  })
  it('encodes back, refusing values whose byte would read as "off"', () => {
    expect(temperatureByte(20, 0x40)).toBe(30)
    expect(temperatureByte(null, 0x40)).toBe(0xff)
    expect(() => temperatureByte(-1, 0x41)).toThrow(InvalidOptionError)
    expect(() => temperatureByte(200, 0x41)).toThrow(InvalidOptionError)
  })
})

describe('light', () => {
  it('is null when the high byte is 0xFF', () => {
    expect(light(0xff, 0x00)).toBeNull()
    expect(light(0xff, 0x0f)).toBeNull()
  })
  it('follows 2^(hi>>4) × ((hi&15)×16 + (lo&15)) × 0.045 with 3 decimals', () => {
    expect(light(0x00, 0x00)).toBe(0)
    expect(light(0x00, 0x09)).toBe(0.405)
    expect(light(0xf4, 0x4c)).toBe(112066.56)
    expect(light(0x12, 0x05)).toBe(2 * (2 * 16 + 5) * 0.045)
    // The high nibble of the low byte is ignored.
    expect(light(0x12, 0xf5)).toBe(light(0x12, 0x05))
  })
  it('encodes a representable value back to bytes that decode to it', () => {
    for (const [hi, lo] of [[0x00, 0x09], [0xf4, 0x0c], [0x37, 0x0a], [0xe0, 0x01]]) {
      const lux = light(hi, lo) as number
      const [h2, l2] = lightBytes(lux)
      expect(light(h2, l2)).toBe(lux)
    }
    expect(lightBytes(null)).toEqual([0xff, 0])
    expect(() => lightBytes(0.001)).toThrow(InvalidOptionError)
    expect(() => lightBytes(-1)).toThrow(InvalidOptionError)
  })
})

describe('moving state', () => {
  it('maps 0, 1, 0xFF and anything else', () => {
    expect(movingState(0)).toBe('still')
    expect(movingState(1)).toBe('moving')
    expect(movingState(0xff)).toBe('disabled')
    expect(movingState(2)).toBe('unknown')
    expect(movingState(0x80)).toBe('unknown')
  })
})

describe('bit field A', () => {
  it('splits transmit-power level and interval index', () => {
    expect(bitFieldA(0x00)).toEqual({ transmitPower: 0, advertisingInterval: 100 })
    expect(bitFieldA(0xb9)).toEqual({ transmitPower: 11, advertisingInterval: 1285 })
    expect(bitFieldA(0x72)).toEqual({ transmitPower: 7, advertisingInterval: 211.25 })
  })
  it('reports a level above 11 or an index above 9 as absent', () => {
    expect(bitFieldA(0xc0)).toEqual({ advertisingInterval: 100 })
    expect(bitFieldA(0x0a)).toEqual({ transmitPower: 0 })
    expect(bitFieldA(0xff)).toEqual({})
  })
  it('has the ten intervals of the protocol', () => {
    expect(ADVERTISING_INTERVALS_MS).toEqual([100, 152.5, 211.25, 318.75, 417.5, 546.25, 760, 852.5, 1022.5, 1285])
    for (let i = 0; i < 10; i++) expect(bitFieldA(bitFieldAByte(3, ADVERTISING_INTERVALS_MS[i])).advertisingInterval).toBe(ADVERTISING_INTERVALS_MS[i])
  })
})

describe('transmit power in dBm by model', () => {
  it('follows the A0, B0 and C0 columns and is absent elsewhere', () => {
    expect([0, 1, 2].map((l) => transmitPowerDbm(0xa0, l))).toEqual([-23, -6, 0])
    expect(transmitPowerDbm(0xa0, 3)).toBeUndefined()
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((l) => transmitPowerDbm(0xb0, l))).toEqual([-30, -20, -16, -12, -8, -4, 0, 4])
    expect(transmitPowerDbm(0xb0, 8)).toBeUndefined()
    expect(Array.from({ length: 12 }, (_, l) => transmitPowerDbm(0xc0, l))).toEqual([-30, -20, -16, -12, -30, -20, -16, -12, -8, -4, 0, 4])
    expect(transmitPowerDbm(0xc1, 0)).toBeUndefined()
    expect(transmitPowerDbm(0xc8, 5)).toBeUndefined()
  })
})

describe('bit field B', () => {
  it('reads every flag', () => {
    expect(bitFieldB(0x80).passwordEnabled).toBe(true)
    expect(bitFieldB(0x40).broadcastKeyEnabled).toBe(true)
    expect(bitFieldB(0x20).energySaving).toBe(true)
    expect(bitFieldB(0x10).aliBeacon).toBe(true)
    expect(bitFieldB(0x08).backgroundEnhancement).toBe(true)
    expect(bitFieldB(0x04).eddystone).toBe(true)
    expect(bitFieldB(0x00)).toEqual({
      passwordEnabled: false, broadcastKeyEnabled: false, energySaving: false, aliBeacon: false, backgroundEnhancement: false, eddystone: false,
    })
    for (let v = 0; v < 256; v += 4) expect(bitFieldBByte(bitFieldB(v))).toBe(v & 0xfc)
  })
})

describe('measured power', () => {
  it('is a signed byte, and 0 counts as absent', () => {
    expect(measuredPower(0)).toBeUndefined()
    expect(measuredPower(0xc5)).toBe(-59)
    expect(measuredPower(0x48)).toBe(72)
  })
})
