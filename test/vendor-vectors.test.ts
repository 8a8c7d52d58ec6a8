// The shared vendor and external vectors, decoded end to end through the public decoder.
import { describe, expect, it } from 'vitest'
import { decodeAdvertisement } from '../src/decode/decode.js'
import { Decoder } from '../src/decode/decoder.js'
import { Keyring } from '../src/secure/keyring.js'
import { accuracy, proximity } from '../src/decode/distance.js'
import type { BeaconReading } from '../src/reading.js'
import { loadVectors, toAdvertisement, type JsonAdvertisement } from './support/vectors.js'

interface VendorVector {
  kind?: string
  mode?: string
  key?: string
  advertisement: JsonAdvertisement
  expect: Record<string, unknown> | null
}
interface VendorFile {
  about: string
  plaintext: VendorVector[]
  encrypted: VendorVector[]
}

const vendor = loadVectors<VendorFile>('vendor-examples.json')

/** The fields whose absence the vector file also asserts. */
const CHECKED = [
  'serialNumber', 'proximityUUID', 'major', 'minor', 'beaconID', 'batteryLevel', 'temperature', 'light',
  'movingState', 'moving', 'accelerometerCount', 'hardwareModelName', 'firmwareVersion', 'measuredPower',
  'transmitPower', 'transmitPowerDbm', 'advertisingInterval',
] as const

function checkAgainst(reading: BeaconReading | null, v: VendorVector): void {
  if (v.expect === null) {
    expect(reading).toBeNull()
    return
  }
  expect(reading).not.toBeNull()
  const r = reading as BeaconReading
  const record = r as unknown as Record<string, unknown>
  for (const field of CHECKED) {
    if (field in v.expect) expect(record[field], field).toEqual(v.expect[field])
    else expect(field in record, `${field} must be absent`).toBe(false)
  }
  expect([...r.frames].sort()).toEqual([...(v.expect.frames as string[])].sort())
  if ('secure' in v.expect) expect(r.secure).toEqual(v.expect.secure)
  expect(r.address).toBe(v.advertisement.address)
  expect(r.rssi).toBe(v.advertisement.rssi)
  expect(r.timestamp).toBe(v.advertisement.timestamp)
  expect(r.accuracy).toBe(accuracy(r.rssi, r.measuredPower))
  expect(r.proximity).toBe(proximity(r.accuracy ?? -1))
}

describe('vendor plaintext vectors', () => {
  for (const [i, v] of vendor.plaintext.entries()) {
    it(`${i}: ${v.kind}`, () => {
      checkAgainst(decodeAdvertisement(toAdvertisement(v.advertisement)), v)
      // The caching decoder gives the same answer, first time and repeated.
      const decoder = new Decoder()
      const adv = toAdvertisement(v.advertisement)
      checkAgainst(decoder.decode(adv), v)
      checkAgainst(decoder.decode(toAdvertisement(v.advertisement)), v)
    })
  }
})

describe('vendor encrypted vectors', () => {
  for (const [i, v] of vendor.encrypted.entries()) {
    it(`${i}: mode ${v.mode} decrypts and verifies with its key`, () => {
      const keyring = new Keyring([v.key as string])
      checkAgainst(decodeAdvertisement(toAdvertisement(v.advertisement), { keyring }), v)
      const decoder = new Decoder({ keyring })
      checkAgainst(decoder.decode(toAdvertisement(v.advertisement)), v)
      checkAgainst(decoder.decode(toAdvertisement(v.advertisement)), v)
      expect(decoder.stats.secure.verified).toBe(2)
    })

    it(`${i}: mode ${v.mode} without the key is encrypted, unverified and carries no decrypted field`, () => {
      const r = decodeAdvertisement(toAdvertisement(v.advertisement))
      expect(r).not.toBeNull()
      const expected = v.expect as Record<string, unknown>
      expect(r?.secure).toEqual({ encrypted: true, keyId: (expected.secure as { keyId: string }).keyId, verified: false, rejected: 'no_key' })
      for (const field of ['serialNumber', 'major', 'minor', 'batteryLevel', 'temperature', 'light', 'movingState', 'accelerometerCount', 'measuredPower', 'transmitPower', 'advertisingInterval', 'flags']) {
        expect(r !== null && field in r, field).toBe(false)
      }
      expect(r?.hardwareModelName).toBe(expected.hardwareModelName)
      expect(r?.firmwareVersion).toBe(expected.firmwareVersion)
    })
  }
})

describe('external vectors that are not vendor frames', () => {
  const external = loadVectors<{ not_vendor: { serviceData: { uuid: string; data: string }[]; why: string }[] }>('external.json')
  for (const v of external.not_vendor) {
    it(`${v.why}: no vendor frame, no vendor field`, () => {
      const r = decodeAdvertisement(toAdvertisement({ serviceData: v.serviceData }))
      expect(r?.frames.filter((f) => f === 'e780' || f === 'e781') ?? []).toEqual([])
      for (const field of ['serialNumber', 'hardwareModelName', 'firmwareVersion', 'batteryLevel', 'major', 'minor']) {
        expect(r !== null && field in r, field).toBe(false)
      }
    })
  }
})
