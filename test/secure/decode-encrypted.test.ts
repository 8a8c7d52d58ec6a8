/** Encrypted 0x81E7 frames end to end: bytes → decodeAdvertisement / Decoder → reading. */
import { describe, expect, it } from 'vitest'
import type { Advertisement } from '../../src/advertisement.js'
import { decodeAdvertisement } from '../../src/decode/decode.js'
import { Decoder } from '../../src/decode/decoder.js'
import { encodeE781 } from '../../src/frames/e781.js'
import type { E781Fields } from '../../src/frames/e781.js'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { Keyring } from '../../src/secure/keyring.js'
import { randomKeyString, seeded } from './helpers.js'
import { loadVectors } from '../support/vectors.js'

interface Vector {
  mode: string
  key: string
  advertisement: Omit<Advertisement, 'serviceData'> & { serviceData: { uuid: string; data: string }[] }
  expect: Record<string, unknown> & { secure: { keyId: string } }
}
const vendor = loadVectors<{
  encrypted: Vector[]
}>('vendor-examples.json')

function toAdvertisement(v: Vector): Advertisement {
  return {
    ...v.advertisement,
    serviceData: v.advertisement.serviceData.map((s) => ({ uuid: s.uuid, data: Uint8Array.from(Buffer.from(s.data, 'hex')) })),
  }
}

/** Fields that only a decrypted block can supply. */
const DECRYPTED = [
  'serialNumber', 'major', 'minor', 'batteryLevel', 'temperature', 'light', 'movingState', 'moving',
  'accelerometerCount', 'measuredPower', 'transmitPower', 'transmitPowerDbm', 'advertisingInterval', 'flags',
] as const

describe('vendor encrypted examples through decodeAdvertisement', () => {
  it.each(vendor.encrypted.map((v) => [v.mode, v] as const))('mode %s decodes to the expected reading with its key', (_m, v) => {
    const reading = decodeAdvertisement(toAdvertisement(v), { keyring: new Keyring([v.key]) })
    expect(reading).toMatchObject(v.expect)
    expect(reading?.secure).toEqual({ encrypted: true, keyId: v.expect.secure.keyId, verified: true })
  })

  it.each(vendor.encrypted.map((v) => [v.mode, v] as const))('mode %s without the key: encrypted, unverified, no decrypted field', (_m, v) => {
    for (const keyring of [undefined, new Keyring(), new Keyring([randomKeyString(seeded(3), parseInt(v.expect.secure.keyId, 16))])]) {
      const reading = decodeAdvertisement(toAdvertisement(v), { keyring })
      expect(reading).not.toBeNull()
      expect(reading?.secure).toEqual({
        encrypted: true,
        keyId: v.expect.secure.keyId,
        verified: false,
        rejected: keyring?.size === 1 ? expect.stringMatching(/^(crc|implausible)$/) : 'no_key',
      })
      for (const field of DECRYPTED) expect(reading).not.toHaveProperty(field)
      expect(reading).toMatchObject({ hardwareModelName: v.expect.hardwareModelName, firmwareVersion: v.expect.firmwareVersion })
    }
  })
})

describe('encodeE781 with a key → Decoder', () => {
  const rand = seeded(11)
  const key = parseBroadcastKey(randomKeyString(rand, 0x2468))
  const identity: E781Fields = {
    mode: 0x41, hardwareModelName: 'C8', firmwareVersion: '4.1', serialNumber: '0117C5456A36',
    major: 10, minor: 20, batteryLevel: 90, transmitPower: 5, advertisingInterval: 760, measuredPower: -59,
  }
  const sensors: E781Fields = {
    mode: 0x42, hardwareModelName: 'C8', firmwareVersion: '4.1', serialNumber: '0117C5456A36',
    batteryLevel: 90, transmitPower: 5, advertisingInterval: 760, measuredPower: -59,
    temperature: 21, light: null, accelerometerCount: 7, movingState: 'still',
  }
  const adv = (data: Uint8Array, timestamp: number): Advertisement => ({
    address: 'c0:ff:ee:00:00:01', rssi: -60, timestamp, serviceData: [{ uuid: '81e7', data }],
  })

  it('round-trips every encrypted mode with a random key', () => {
    for (const fields of [
      { ...identity, mode: 0x10 as const }, identity,
      { ...sensors, mode: 0x20 as const }, sensors,
    ]) {
      const data = encodeE781(fields, { key, randomCode: 0x5a5a })
      expect(Buffer.from(data.subarray(3, 7)).toString('hex')).toBe('24685a5a')
      const r = decodeAdvertisement(adv(data, 1), { keyring: new Keyring([key]) })
      const { mode: _mode, ...expected } = fields
      expect(r).toMatchObject({ ...expected, secure: { encrypted: true, keyId: '2468', verified: true } })
    }
  })

  it('counts frames in decoder.stats and holds a device to the serial it verified first', () => {
    const decoder = new Decoder({ keyring: new Keyring([key]) })
    expect(decoder.decode(adv(encodeE781(identity, { key, randomCode: 1 }), 1))?.secure?.verified).toBe(true)
    expect(decoder.decode(adv(encodeE781(sensors, { key, randomCode: 2 }), 2))?.secure?.verified).toBe(true)
    const impostor = decoder.decode(adv(encodeE781({ ...sensors, serialNumber: '0117C5000001' }, { key, randomCode: 3 }), 3))
    expect(impostor?.secure).toEqual({ encrypted: true, keyId: '2468', verified: false, rejected: 'serial_mismatch' })
    expect(impostor).not.toHaveProperty('serialNumber')
    const s = decoder.stats.secure
    expect(s.decrypted).toBe(3)
    expect(s.verified).toBe(2)
    expect(s.rejected.serial_mismatch).toBe(1)
  })
})
