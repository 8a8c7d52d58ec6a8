// PROTOCOL.md 2.5 (merging frames of one advertisement), absent-means-absent, bad envelopes.
import { describe, expect, it } from 'vitest'
import { decodeAdvertisement, serviceKind } from '../../src/decode/decode.js'
import { Decoder } from '../../src/decode/decoder.js'
import { encodeIBeacon, VENDOR_DEFAULT_UUID } from '../../src/frames/ibeacon.js'
import { encodeE780 } from '../../src/frames/e780.js'
import { encodeE781 } from '../../src/frames/e781.js'
import type { Advertisement } from '../../src/advertisement.js'
import { hex } from '../support/vectors.js'

const base = { address: 'c0:53:75:30:c0:7c', rssi: -70, timestamp: 1_000 }
const ibeacon = encodeIBeacon({ proximityUUID: VENDOR_DEFAULT_UUID, major: 1, minor: 2, measuredPower: -59 })
const identity = encodeE781({ mode: 0x10, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', major: 10, minor: 20, batteryLevel: 90, measuredPower: -65 })
const sensors = encodeE781({ mode: 0x20, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', batteryLevel: 90, temperature: 21, light: 0.405, accelerometerCount: 3, movingState: 'still' })
const legacy = encodeE780({ hardwareModelName: 'B0', firmwareVersion: '2.3', major: 30, minor: 40, serialNumber: '0117C5000002', batteryLevel: 50, temperature: 5, light: null, accelerometerCount: 1, movingState: 'moving' })

describe('merging the frames of one advertisement', () => {
  it('vendor major/minor override the iBeacon ones; beaconID uses the result', () => {
    const r = decodeAdvertisement({ ...base, manufacturerData: ibeacon, serviceData: [{ uuid: '81e7', data: identity }] })
    expect(r).toMatchObject({ proximityUUID: VENDOR_DEFAULT_UUID, major: 10, minor: 20, beaconID: `${VENDOR_DEFAULT_UUID}|10|20`, serialNumber: '0117C5000001' })
    expect(new Set(r?.frames)).toEqual(new Set(['ibeacon', 'e781']))
  })

  it('iBeacon fills what the vendor frame lacks (sensor mode has no major/minor)', () => {
    const r = decodeAdvertisement({ ...base, manufacturerData: ibeacon, serviceData: [{ uuid: '81E7', data: sensors }] })
    expect(r).toMatchObject({ major: 1, minor: 2, beaconID: `${VENDOR_DEFAULT_UUID}|1|2`, temperature: 21, measuredPower: -59 })
  })

  it('the vendor measured power wins when non-zero; a zero leaves the iBeacon value', () => {
    expect(decodeAdvertisement({ ...base, manufacturerData: ibeacon, serviceData: [{ uuid: '81e7', data: identity }] })?.measuredPower).toBe(-65)
    const zero = encodeE781({ mode: 0x10, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', major: 10, minor: 20 })
    expect(decodeAdvertisement({ ...base, manufacturerData: ibeacon, serviceData: [{ uuid: '81e7', data: zero }] })?.measuredPower).toBe(-59)
  })

  it('beaconID exists only when a proximity UUID is known', () => {
    const r = decodeAdvertisement({ ...base, serviceData: [{ uuid: '80e7', data: legacy }] })
    expect(r).toMatchObject({ major: 30, minor: 40 })
    expect(r && 'beaconID' in r).toBe(false)
    expect(r && 'proximityUUID' in r).toBe(false)
  })

  it('a truncated frame yields nothing while the other frames still decode', () => {
    const r = decodeAdvertisement({ ...base, manufacturerData: ibeacon, serviceData: [{ uuid: '81e7', data: identity.subarray(0, 12) }, { uuid: '80e7', data: legacy.subarray(0, 22) }] })
    expect(r?.frames).toEqual(['ibeacon'])
    expect(r && 'serialNumber' in r).toBe(false)
  })

  it('absent means absent: no key for a field the frames did not carry, no nulls invented', () => {
    const r = decodeAdvertisement({ ...base, manufacturerData: ibeacon })
    expect(Object.keys(r ?? {}).sort()).toEqual(
      ['accuracy', 'address', 'beaconID', 'frames', 'major', 'measuredPower', 'minor', 'proximity', 'proximityUUID', 'rssi', 'timestamp'],
    )
  })

  it('computes accuracy and proximity from RSSI and the measured power, with configurable zones', () => {
    const r = decodeAdvertisement({ ...base, rssi: -59, manufacturerData: ibeacon })
    expect(r?.accuracy).toBe(1.0108)
    expect(r?.proximity).toBe('near')
    expect(decodeAdvertisement({ ...base, rssi: -59, manufacturerData: ibeacon }, { proximityThresholds: { immediate: 2, near: 3 } })?.proximity).toBe('immediate')
    const noPower = decodeAdvertisement({ ...base, serviceData: [{ uuid: '80e7', data: legacy }] })
    expect(noPower?.accuracy).toBe(-1)
    expect(noPower?.proximity).toBe('unknown')
  })
})

describe('service uuids', () => {
  it('accepts noble\'s form in any case and the 128-bit base form; E781 is another uuid', () => {
    expect(serviceKind('81e7')).toBe('e781')
    expect(serviceKind('81E7')).toBe('e781')
    expect(serviceKind('80E7')).toBe('e780')
    expect(serviceKind('FEAA')).toBe('eddystone')
    expect(serviceKind('000081e7-0000-1000-8000-00805f9b34fb')).toBe('e781')
    expect(serviceKind('000081E7-0000-1000-8000-00805F9B34FB')).toBe('e781')
    expect(serviceKind('e781')).toBeNull()
    expect(serviceKind('e780')).toBeNull()
    expect(serviceKind('123481e7-0000-1000-8000-00805f9b34fb')).toBeNull()
    expect(serviceKind(undefined)).toBeNull()
  })
})

describe('bad envelopes and hand-made objects', () => {
  it('returns null, never throws', () => {
    const bad: unknown[] = [
      null, undefined, 42, 'adv', {}, { address: 'x', rssi: Number.NaN, timestamp: 0 }, { address: '', rssi: -50, timestamp: 0 },
      { address: 'x', rssi: 127, timestamp: 0, manufacturerData: ibeacon }, { address: 'x', rssi: -50, timestamp: Infinity, manufacturerData: ibeacon },
      { ...base, manufacturerData: 'not bytes' }, { ...base, serviceData: 'nope' }, { ...base, serviceData: [null, 1, { uuid: 5, data: identity }, { uuid: '81e7', data: [1, 2] }] },
    ]
    for (const b of bad) {
      expect(() => decodeAdvertisement(b as Advertisement)).not.toThrow()
      expect(decodeAdvertisement(b as Advertisement)).toBeNull()
      expect(new Decoder().decode(b as Advertisement)).toBeNull()
    }
  })

  it('counts what it skipped', () => {
    const d = new Decoder()
    d.decode({ ...base, rssi: 300 } as Advertisement)
    d.decode({ ...base, manufacturerData: hex('590001') })
    d.decode({ ...base, manufacturerData: ibeacon })
    d.decode({ ...base, manufacturerData: ibeacon })
    expect(d.stats).toMatchObject({ advertisements: 4, malformed: 1, ignored: 1, decoded: 2, cacheHits: 1 })
  })
})

describe('the caching decoder', () => {
  it('answers a repeated payload from the cache with the new RSSI and time', () => {
    const d = new Decoder()
    const first = d.decode({ ...base, manufacturerData: ibeacon, serviceData: [{ uuid: '81e7', data: identity }] })
    const again = d.decode({ ...base, rssi: -80, timestamp: 2_000, manufacturerData: ibeacon.slice(), serviceData: [{ uuid: '81e7', data: identity.slice() }] })
    expect(d.stats.cacheHits).toBe(1)
    expect(again).toEqual({ ...first, rssi: -80, timestamp: 2_000, accuracy: again?.accuracy, proximity: again?.proximity })
    expect(again?.accuracy).not.toBe(first?.accuracy)
    expect(again).toEqual(decodeAdvertisement({ ...base, rssi: -80, timestamp: 2_000, manufacturerData: ibeacon, serviceData: [{ uuid: '81e7', data: identity }] }))
  })

  it('decodes anew when a byte changes', () => {
    const d = new Decoder()
    d.decode({ ...base, serviceData: [{ uuid: '80e7', data: legacy }] })
    const changed = legacy.slice()
    changed[15] = 20
    expect(d.decode({ ...base, serviceData: [{ uuid: '80e7', data: changed }] })?.batteryLevel).toBe(20)
    expect(d.stats.cacheHits).toBe(0)
  })

  it('keeps readings independent: changing one does not change the next', () => {
    const d = new Decoder()
    const a = d.decode({ ...base, manufacturerData: ibeacon })
    if (a) a.major = 999
    expect(d.decode({ ...base, manufacturerData: ibeacon })?.major).toBe(1)
    expect(() => (a?.frames as string[]).push('x')).toThrow()
  })

  it('stays bounded: old addresses fall out a generation at a time', () => {
    const d = new Decoder({ cacheSize: 10 })
    for (let i = 0; i < 1000; i++) d.decode({ ...base, address: `aa:00:00:00:${(i >> 8).toString(16)}:${(i & 255).toString(16)}`, manufacturerData: ibeacon })
    d.decode({ ...base, address: 'aa:00:00:00:0:0', manufacturerData: ibeacon })
    expect(d.stats.cacheHits).toBe(0)
    expect(() => new Decoder({ cacheSize: 0 })).toThrow(/cacheSize/)
  })
})

describe('the caching decoder and a changing keyring', () => {
  it('a key added at run time takes effect for a device repeating the same frame', async () => {
    const { Keyring } = await import('../../src/secure/keyring.js')
    const { parseBroadcastKey } = await import('../../src/secure/broadcast-key.js')
    const key = parseBroadcastKey('7b4b5ff594fdaf8f9fc7f2b494e400016f461205')
    const frame = encodeE781(
      { mode: 0x41, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000009', major: 1, minor: 2, batteryLevel: 50, transmitPower: 2, advertisingInterval: 100, measuredPower: -60 },
      { key, randomCode: 99 },
    )
    const keyring = new Keyring()
    const d = new Decoder({ keyring })
    const adv = { ...base, serviceData: [{ uuid: '81e7', data: frame }] }
    expect(d.decode(adv)?.secure).toMatchObject({ verified: false, rejected: 'no_key' })
    keyring.add(key)
    expect(d.decode(adv)?.secure).toEqual({ encrypted: true, keyId: '0001', verified: true })
    keyring.remove('0001')
    expect(d.decode(adv)?.secure).toMatchObject({ verified: false, rejected: 'no_key' })
  })
})

describe('the caching decoder under active scanning', () => {
  it('keeps both halves of an advertisement / scan-response pair cached', () => {
    const d = new Decoder()
    const adv = { ...base, manufacturerData: ibeacon }
    const rsp = { ...base, serviceData: [{ uuid: '81e7', data: identity }] }
    for (let i = 0; i < 5; i++) {
      expect(d.decode({ ...adv, manufacturerData: ibeacon.slice() })?.frames).toEqual(['ibeacon'])
      expect(d.decode({ ...rsp, serviceData: [{ uuid: '81e7', data: identity.slice() }] })?.frames).toEqual(['e781'])
    }
    expect(d.stats.cacheHits).toBe(8)
    // A third payload pushes out the oldest; the two latest stay.
    d.decode({ ...base, serviceData: [{ uuid: '80e7', data: legacy }] })
    d.decode({ ...rsp, serviceData: [{ uuid: '81e7', data: identity.slice() }] })
    expect(d.stats.cacheHits).toBe(9)
  })

  it('tells payloads apart by uuid, element count and absence, not only bytes', () => {
    const d = new Decoder()
    d.decode({ ...base, serviceData: [{ uuid: '80e7', data: legacy }] })
    expect(d.decode({ ...base, serviceData: [{ uuid: '81e7', data: legacy }] })).toBeNull()
    expect(d.decode({ ...base, serviceData: [{ uuid: '80e7', data: legacy }, { uuid: 'feaa', data: new Uint8Array(0) }] })?.frames).toEqual(['e780'])
    expect(d.decode({ ...base, manufacturerData: new Uint8Array(0), serviceData: [{ uuid: '80e7', data: legacy }] })?.frames).toEqual(['e780'])
    expect(d.stats.cacheHits).toBe(0)
  })

  it('forgets an address on request', () => {
    const d = new Decoder()
    d.decode({ ...base, manufacturerData: ibeacon })
    d.forget(base.address)
    d.decode({ ...base, manufacturerData: ibeacon })
    expect(d.stats.cacheHits).toBe(0)
  })
})

describe('shared frame and flag sets in the cache', () => {
  it('gives every payload its own flag values even though equal sets are shared', () => {
    const d = new Decoder()
    const all = [0, 1, 2, 3].map((i) => {
      const flags = { passwordEnabled: i === 1, broadcastKeyEnabled: i === 2, energySaving: false, aliBeacon: false, backgroundEnhancement: false, eddystone: i === 3 }
      const data = encodeE781({ mode: 0x30, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C500000' + i, major: 1, minor: 2, flags })
      return [flags, d.decode({ ...base, address: `aa:00:00:00:00:0${i}`, serviceData: [{ uuid: '81e7', data }] })] as const
    })
    for (const [flags, reading] of all) expect(reading?.flags).toEqual(flags)
    const again = d.decode({ ...base, address: 'aa:00:00:00:00:09', serviceData: [{ uuid: '81e7', data: encodeE781({ mode: 0x30, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000009', major: 1, minor: 2 }) }] })
    expect(again?.flags).toBe(all[0][1]?.flags)
    expect(Object.isFrozen(again?.flags)).toBe(true)
  })
})
