// PROTOCOL.md 1 and the external iBeacon vectors.
import { describe, expect, it } from 'vitest'
import { decodeIBeacon, encodeIBeacon, VENDOR_DEFAULT_UUID } from '../../src/frames/ibeacon.js'
import { decodeAdvertisement } from '../../src/decode/decode.js'
import { InvalidOptionError } from '../../src/errors.js'
import { hex, loadVectors } from '../support/vectors.js'

interface External {
  ibeacon: { manufacturerData: string; expect: Record<string, unknown> }[]
  not_ibeacon: { manufacturerData: string; why: string }[]
}
const external = loadVectors<External>('external.json')

describe('iBeacon', () => {
  for (const v of external.ibeacon) {
    it(`decodes the external vector ${v.manufacturerData.slice(0, 12)}…`, () => {
      const r = decodeAdvertisement({ address: 'aa:bb:cc:dd:ee:ff', rssi: -60, timestamp: 0, manufacturerData: hex(v.manufacturerData) })
      expect(r).toMatchObject(v.expect)
      expect(r?.frames).toEqual(['ibeacon'])
    })
  }
  for (const v of external.not_ibeacon) {
    it(`rejects: ${v.why}`, () => {
      expect(decodeIBeacon(hex(v.manufacturerData))).toBeNull()
      expect(decodeAdvertisement({ address: 'aa:bb:cc:dd:ee:ff', rssi: -60, timestamp: 0, manufacturerData: hex(v.manufacturerData) })).toBeNull()
    })
  }

  it('reads UUID, major, minor and signed measured power at their offsets, ignoring trailing bytes', () => {
    const md = hex('4c000215' + '23a01af0232a45189c0e323fb773f5ef' + '0102' + 'fffe' + 'c5' + 'deadbeef')
    expect(decodeIBeacon(md)).toEqual({ proximityUUID: VENDOR_DEFAULT_UUID, major: 0x0102, minor: 0xfffe, measuredPower: -59 })
  })

  it('needs the exact 4c 00 02 15 header', () => {
    const good = '23a01af0232a45189c0e323fb773f5ef00010002c5'
    expect(decodeIBeacon(hex('4c000216' + good))).toBeNull()
    expect(decodeIBeacon(hex('4c000115' + good))).toBeNull()
    expect(decodeIBeacon(hex('4c010215' + good))).toBeNull()
  })

  it('encodes what it decodes', () => {
    const frame = { proximityUUID: '27EDD37F-DFBA-8C31-9E7C-CA8A9D6816DD', major: 13876, minor: 53381, measuredPower: -46 }
    expect(Buffer.from(encodeIBeacon(frame)).toString('hex')).toBe('4c00021527edd37fdfba8c319e7cca8a9d6816dd3634d085d2')
    expect(decodeIBeacon(encodeIBeacon(frame))).toEqual(frame)
  })

  it('refuses values a frame cannot carry', () => {
    expect(() => encodeIBeacon({ proximityUUID: 'nope', major: 1, minor: 1, measuredPower: -59 })).toThrow(InvalidOptionError)
    expect(() => encodeIBeacon({ proximityUUID: VENDOR_DEFAULT_UUID, major: 70000, minor: 1, measuredPower: -59 })).toThrow(/major/)
  })
})
