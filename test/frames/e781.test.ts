// PROTOCOL.md 2.2, every mode, with hand-built payloads; encryption round trips per mode.
import { describe, expect, it } from 'vitest'
import { decodeE781, encodeE781, type E781Fields } from '../../src/frames/e781.js'
import type { ReadingDraft } from '../../src/frames/draft.js'
import { Keyring } from '../../src/secure/keyring.js'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { InvalidOptionError } from '../../src/errors.js'
import { hex } from '../support/vectors.js'
import { transmitPowerDbmOf } from '../../src/frames/bit-fields.js'

/** The frame decoder, plus the dBm that decode.ts derives from the level and model it left. */
function decode(h: string | Uint8Array, keyring?: Keyring): ReadingDraft | null {
  const out: ReadingDraft = {}
  if (!decodeE781(typeof h === 'string' ? hex(h) : h, out, { keyring })) return null
  const dbm = transmitPowerDbmOf(out)
  if (dbm !== undefined) out.transmitPowerDbm = dbm
  return out
}

const flagsNone = { passwordEnabled: false, broadcastKeyEnabled: false, energySaving: false, aliBeacon: false, backgroundEnhancement: false, eddystone: false }

describe('0x81E7 plaintext modes', () => {
  it('mode 0x10 identity: serial 7..9, major 13..14, minor 15..16, battery, bit fields, measured power', () => {
    // model fw mode | key id 0000 | random | serial | 3 spare | major | minor | batt | A | B | mp
    const p = 'b043' + '10' + '0000' + '1234' + '456a36' + '000000' + '0102' + '0304' + '55' + '73' + '44' + 'c5'
    expect(decode(p)).toEqual({
      hardwareModelName: 'B0', firmwareVersion: '4.3', serialNumber: '0117C5456A36', major: 0x0102, minor: 0x0304,
      batteryLevel: 85, transmitPower: 7, transmitPowerDbm: 4, advertisingInterval: 318.75,
      flags: { ...flagsNone, broadcastKeyEnabled: true, eddystone: true }, measuredPower: -59,
    })
  })

  it('mode 0x20 sensors: no major/minor; sensors at 10..19', () => {
    const p = 'c041' + '20' + '0000' + '0000' + '456a36' + '65' + 'b0' + '00' + '1e' + '0009' + '3412' + '00' + 'bf'
    expect(decode(p)).toEqual({
      hardwareModelName: 'C0', firmwareVersion: '4.1', serialNumber: '0117C5456A36',
      transmitPower: 11, transmitPowerDbm: 4, advertisingInterval: 100, flags: flagsNone,
      temperature: 30, light: 0.405, accelerometerCount: 0x1234, movingState: 'still', moving: false, measuredPower: -65,
    })
  })

  it('mode 0x30 full plaintext', () => {
    const p = 'a022' + '30' + '456a36' + '000000' + '0102' + '0304' + '32' + '21' + '80' + '1e' + 'ff00' + '0100' + '02' + 'c0'
    expect(decode(p)).toEqual({
      hardwareModelName: 'A0', firmwareVersion: '2.2', serialNumber: '0117C5456A36', major: 0x0102, minor: 0x0304,
      batteryLevel: 50, transmitPower: 2, transmitPowerDbm: 0, advertisingInterval: 152.5, flags: { ...flagsNone, passwordEnabled: true },
      temperature: 20, light: null, accelerometerCount: 1, movingState: 'unknown', measuredPower: -64,
    })
  })

  it('mode 0x50 Eddystone-only: serial number only, battery absent', () => {
    expect(decode('c846' + '50' + 'c0e483' + 'ff')).toEqual({ hardwareModelName: 'C8', firmwareVersion: '4.6', serialNumber: '0117C5C0E483' })
  })

  it('masks byte 2 with 0x70 (0x96 is mode 0x10, 0xdb is mode 0x50)', () => {
    expect(decode('c823' + '96' + '0000' + '1ad6' + 'e566f5' + 'ecdfd9' + '11ea' + '0b64' + '10' + '02' + 'e0' + 'c6')?.serialNumber).toBe('0117C5E566F5')
    expect(decode('a044' + 'db' + 'c0e483')?.serialNumber).toBe('0117C5C0E483')
  })

  it('needs the length its mode needs: 21, 20, 23, 6', () => {
    const m10 = 'b043' + '10' + '0000' + '1234' + '456a36' + '000000' + '0102' + '0304' + '55' + '73' + '44' + 'c5'
    const m20 = 'c041' + '20' + '0000' + '0000' + '456a36' + '65' + 'b0' + '00' + '1e' + '0009' + '3412' + '00' + 'bf'
    const m30 = 'a022' + '30' + '456a36' + '000000' + '0102' + '0304' + '32' + '21' + '80' + '1e' + 'ff00' + '0100' + '02' + 'c0'
    const m50 = 'c846' + '50' + 'c0e483'
    for (const [p, n] of [[m10, 21], [m20, 20], [m30, 23], [m50, 6]] as const) {
      expect(hex(p).length).toBe(n)
      expect(decode(p)).not.toBeNull()
      expect(decode(p.slice(0, -2))).toBeNull()
    }
    expect(decode('')).toBeNull()
    expect(decode('b0')).toBeNull()
    expect(decode('b043')).toBeNull()
  })

  it('other modes are not decoded', () => {
    const tail = '0000000000000000000000000000000000000000'
    for (const m of ['00', '40', '60', '70', 'c1', 'c2', '0f']) expect(decode('b043' + m + tail), m).toBeNull()
  })

  it('unknown model bytes are flagged, not dropped', () => {
    expect(decode('7723' + '50' + 'c0e483')).toEqual({ hardwareModelName: '77', firmwareVersion: '2.3', serialNumber: '0117C5C0E483', unknownModel: true })
  })
})

describe('0x81E7 encrypted modes', () => {
  const key = parseBroadcastKey('7b4b5ff594fdaf8f9fc7f2b494e400016f461205')
  const keyring = new Keyring([key])
  const identity: E781Fields = {
    mode: 0x10, hardwareModelName: 'C0', firmwareVersion: '4.5', serialNumber: '0117C5ABCDEF', major: 7, minor: 9,
    batteryLevel: 77, transmitPower: 5, advertisingInterval: 760, flags: { ...flagsNone, broadcastKeyEnabled: true }, measuredPower: -61,
  }
  const sensors: E781Fields = {
    mode: 0x20, hardwareModelName: 'B0', firmwareVersion: '3.1', serialNumber: '0117C5ABCDEF', batteryLevel: 12,
    transmitPower: 3, advertisingInterval: 100, flags: { ...flagsNone, broadcastKeyEnabled: true }, temperature: -5, light: 1831.68,
    accelerometerCount: 65535, movingState: 'moving', measuredPower: -70,
  }

  for (const [name, fields] of [['0x10', identity], ['0x41', { ...identity, mode: 0x41 }], ['0x20', sensors], ['0x42', { ...sensors, mode: 0x42 }]] as const) {
    it(`mode ${name} round-trips through encryption with the key id and random code in the header`, () => {
      const payload = encodeE781(fields as E781Fields, { key, randomCode: 0xbeef })
      expect(payload.length).toBe(23)
      expect(Buffer.from(payload.subarray(3, 7)).toString('hex')).toBe('0001beef')
      const out = decode(payload, keyring)
      const { mode: _mode, ...expected } = fields as E781Fields
      expect(out).toMatchObject(expected)
      expect(out?.secure).toEqual({ encrypted: true, keyId: '0001', verified: true })
      // Without the keyring the same frame yields only the header.
      expect(decode(payload)).toEqual({
        hardwareModelName: fields.hardwareModelName, firmwareVersion: fields.firmwareVersion,
        secure: { encrypted: true, keyId: '0001', verified: false, rejected: 'no_key' },
      })
    })
  }

  it('a short encrypted payload is reported with reason "length"', () => {
    const payload = encodeE781(identity, { key, randomCode: 1 }).subarray(0, 20)
    expect(decode(payload, keyring)?.secure).toEqual({ encrypted: true, keyId: '0001', verified: false, rejected: 'length' })
  })

  it('split modes need a key to encode', () => {
    expect(() => encodeE781({ ...identity, mode: 0x41 })).toThrow(InvalidOptionError)
  })
})
