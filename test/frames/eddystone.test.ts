import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeAdvertisement } from '../../src/decode/decode.js'
import { InvalidOptionError } from '../../src/errors.js'
import {
  decodeEddystone,
  eddystoneMeasuredPower,
  encodeEddystoneEid,
  encodeEddystoneTlm,
  encodeEddystoneUid,
  encodeEddystoneUrl,
} from '../../src/frames/eddystone.js'
import { accuracy } from '../../src/decode/distance.js'
import type { EddystoneEid, EddystoneInfo, EddystonePlainTlm, EddystoneUid } from '../../src/reading.js'
import { loadVectors } from '../support/vectors.js'

interface FrameVector {
  serviceData: { uuid: string; data: string }[]
  expect: Record<string, unknown>
  note?: string
}

const vectors = loadVectors<{ eddystone: FrameVector[]; not_vendor: { serviceData: { uuid: string; data: string }[] }[] }>('external.json')

const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'))
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

function thrown(fn: () => unknown): InvalidOptionError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect((error as InvalidOptionError).code).toBe('invalid_option')
    return error as InvalidOptionError
  }
  throw new Error('expected an InvalidOptionError')
}

describe('external.json eddystone vectors', () => {
  const [uidVector, urlVector, tlmVector, v1Vector] = vectors.eddystone as [
    FrameVector,
    FrameVector,
    FrameVector,
    FrameVector,
  ]
  const payload = (v: FrameVector): Uint8Array => bytes((v.serviceData[0] as { data: string }).data)

  it('UID without the reserved bytes', () => {
    const { frame: _frame, ...uid } = uidVector.expect
    expect(decodeEddystone(payload(uidVector))).toEqual({ uid })
  })

  it('URL', () => {
    const { frame: _frame, ...url } = urlVector.expect
    expect(decodeEddystone(payload(urlVector))).toEqual({ url })
  })

  it('TLM version 0', () => {
    const { frame: _frame, ...tlm } = tlmVector.expect
    expect(decodeEddystone(payload(tlmVector))).toEqual({ tlm })
  })

  it('a 14-byte version-1 TLM yields no telemetry at all', () => {
    expect(decodeEddystone(payload(v1Vector))).toBeNull()
  })

  it('the not_vendor payloads are Eddystone: a UID, and the 14-byte version-1 TLM again', () => {
    const [uid, tlm] = vectors.not_vendor.map((v) => decodeEddystone(bytes((v.serviceData[0] as { data: string }).data)))
    expect(uid?.uid?.namespace).toBe('00010203040506070809')
    expect(tlm).toBeNull()
  })
})

describe('decodeEddystone, hand-written frames', () => {
  it('UID with the two reserved bytes, signed tx power', () => {
    const info = decodeEddystone(bytes('00bfaabbccddeeff001122334455667788990000'))
    expect(info).toEqual({
      uid: { namespace: 'aabbccddeeff00112233', instance: '445566778899', txPowerAt0m: -65 },
    })
  })

  it('UID ignores whatever the reserved bytes hold', () => {
    expect(decodeEddystone(bytes('000a00010203040506070809010203040506ffff'))?.uid?.instance).toBe('010203040506')
  })

  it('positive tx power', () => {
    expect(decodeEddystone(bytes('101403676f6f2e676c2f6162'))).toEqual({
      url: { url: 'https://goo.gl/ab', txPowerAt0m: 20 },
    })
  })

  it('TLM: negative temperature, 0x8000, extreme counters', () => {
    expect(decodeEddystone(bytes('20000c80ff80ffffffffffffffff'))?.tlm).toEqual({
      version: 0,
      batteryMilliVolts: 3200,
      temperature: -0.5,
      advertisingCount: 4294967295,
      secondsSinceBoot: 429496729.5,
    })
    expect(decodeEddystone(bytes('2000000080000000000000000000'))?.tlm).toEqual({
      version: 0,
      batteryMilliVolts: 0,
      temperature: null,
      advertisingCount: 0,
      secondsSinceBoot: 0,
    })
    expect(decodeEddystone(bytes('20000bb81980000000010000000b'))?.tlm).toMatchObject({
      temperature: 25.5,
      secondsSinceBoot: 1.1,
    })
  })

  it('encrypted TLM (version 1, 18 bytes) is reported as encrypted and nothing more', () => {
    expect(decodeEddystone(bytes('2001000102030405060708090a0b12345678'))).toEqual({ tlm: { encrypted: true } })
  })

  it('EID passes the ephemeral id through', () => {
    expect(decodeEddystone(bytes('30f60123456789abcdef'))).toEqual({
      eid: { ephemeralId: '0123456789abcdef', txPowerAt0m: -10 },
    })
  })

  it('decodes a payload that is a view into a larger buffer', () => {
    const big = Buffer.from('ffff30f60123456789abcdefffff', 'hex')
    expect(decodeEddystone(big.subarray(2, 12))?.eid?.ephemeralId).toBe('0123456789abcdef')
  })
})

describe('decodeEddystone, bad input: no throw, nothing invented', () => {
  const valid = {
    uid18: '00e700010203040506070809010203040506',
    uid20: '00e7000102030405060708090102030405060000',
    url: '10e702676f6f676c6500',
    tlm: '20000bb8190000000064000003e8',
    etlm: '2001000102030405060708090a0b12345678',
    eid: '30f60123456789abcdef',
  }

  it('empty and one-byte payloads', () => {
    expect(decodeEddystone(new Uint8Array(0))).toBeNull()
    for (const t of [0x00, 0x10, 0x20, 0x30]) expect(decodeEddystone(Uint8Array.of(t))).toBeNull()
  })

  it('every truncation of every fixed-length frame', () => {
    for (const hex of [valid.uid18, valid.tlm, valid.etlm, valid.eid]) {
      const full = bytes(hex)
      for (let n = 0; n < full.length; n++) expect(decodeEddystone(full.subarray(0, n)), `${hex} cut to ${n}`).toBeNull()
    }
    const uid = bytes(valid.uid20)
    expect(decodeEddystone(uid.subarray(0, 19))).toBeNull()
  })

  it('URL truncated before its scheme byte', () => {
    expect(decodeEddystone(bytes('10e7'))).toBeNull()
    expect(decodeEddystone(bytes('10e702'))).toEqual({ url: { url: 'http://', txPowerAt0m: -25 } })
  })

  it('overlong frames are rejected', () => {
    for (const hex of [valid.uid20, valid.tlm, valid.etlm, valid.eid]) {
      expect(decodeEddystone(bytes(`${hex}00`)), hex).toBeNull()
    }
    expect(decodeEddystone(bytes(`${valid.uid18}00`))).toBeNull()
    const url17 = `10e703${'61'.repeat(17)}`
    expect(decodeEddystone(bytes(url17))?.url?.url).toBe(`https://${'a'.repeat(17)}`)
    expect(decodeEddystone(bytes(`${url17}61`))).toBeNull()
  })

  it('unknown frame types, including the reserved 0x40 and non-zero low nibbles', () => {
    for (let t = 0; t <= 0xff; t++) {
      if (t === 0x00 || t === 0x10 || t === 0x20 || t === 0x30) continue
      expect(decodeEddystone(bytes(`${t.toString(16).padStart(2, '0')}${valid.uid20.slice(2)}`))).toBeNull()
    }
  })

  it('unknown TLM versions and plain TLM of the wrong length', () => {
    for (let v = 2; v <= 0xff; v++) {
      expect(decodeEddystone(bytes(`20${v.toString(16).padStart(2, '0')}${valid.tlm.slice(4)}`))).toBeNull()
    }
    expect(decodeEddystone(bytes(valid.etlm.replace(/^2001/, '2000')))).toBeNull()
  })

  it('URL with a reserved byte or scheme', () => {
    expect(decodeEddystone(bytes('10e702676f0e6f'))).toBeNull()
    expect(decodeEddystone(bytes('10e70220'))).toBeNull()
    expect(decodeEddystone(bytes('10e7027f'))).toBeNull()
    expect(decodeEddystone(bytes('10e704676f6f'))).toBeNull()
  })

  it('non-Uint8Array input from untyped callers', () => {
    for (const junk of [undefined, null, 'feaa', 42, [0x10, 0, 2], {}]) {
      expect(decodeEddystone(junk as unknown as Uint8Array)).toBeNull()
    }
  })

  it('any bytes: never throws, at most one well-formed member, never NaN', () => {
    const frame = fc.oneof(
      fc.uint8Array({ maxLength: 24 }),
      fc.tuple(fc.constantFrom(0x00, 0x10, 0x20, 0x30), fc.uint8Array({ maxLength: 22 })).map(([t, rest]) =>
        Uint8Array.of(t, ...rest),
      ),
      fc.tuple(fc.constantFrom(0, 1), fc.uint8Array({ minLength: 12, maxLength: 16 })).map(([v, rest]) =>
        Uint8Array.of(0x20, v, ...rest),
      ),
    )
    fc.assert(
      fc.property(frame, (data) => {
        const info = decodeEddystone(data)
        if (info === null) return
        expect(Object.keys(info)).toHaveLength(1)
        assertWellFormed(info)
      }),
      { numRuns: 2000 },
    )
  })
})

function assertWellFormed(info: EddystoneInfo): void {
  const tx = info.uid?.txPowerAt0m ?? info.url?.txPowerAt0m ?? info.eid?.txPowerAt0m
  if (tx !== undefined) {
    expect(Number.isInteger(tx)).toBe(true)
    expect(tx).toBeGreaterThanOrEqual(-128)
    expect(tx).toBeLessThanOrEqual(127)
  }
  if (info.uid) {
    expect(info.uid.namespace).toMatch(/^[0-9a-f]{20}$/)
    expect(info.uid.instance).toMatch(/^[0-9a-f]{12}$/)
  }
  if (info.eid) expect(info.eid.ephemeralId).toMatch(/^[0-9a-f]{16}$/)
  if (info.url) expect(info.url.url).toMatch(/^https?:\/\/[\x21-\x7e]*$/)
  if (info.tlm && 'version' in info.tlm) {
    for (const n of [info.tlm.batteryMilliVolts, info.tlm.advertisingCount, info.tlm.secondsSinceBoot]) {
      expect(Number.isFinite(n)).toBe(true)
      expect(n).toBeGreaterThanOrEqual(0)
    }
    if (info.tlm.temperature !== null) expect(Number.isFinite(info.tlm.temperature)).toBe(true)
  }
}

describe('encoders', () => {
  const hexArb = (n: number): fc.Arbitrary<string> => fc.uint8Array({ minLength: n, maxLength: n }).map(toHex)
  const tx = fc.integer({ min: -128, max: 127 })

  it('UID round-trips, with and without the reserved bytes; accepts upper-case hex', () => {
    fc.assert(
      fc.property(hexArb(10), hexArb(6), tx, fc.boolean(), (namespace, instance, txPowerAt0m, withReserved) => {
        const uid = { namespace, instance, txPowerAt0m }
        const encoded = encodeEddystoneUid({ ...uid, namespace: namespace.toUpperCase() }, { withReserved })
        expect(encoded.length).toBe(withReserved ? 20 : 18)
        expect(decodeEddystone(encoded)).toEqual({ uid })
      }),
    )
  })

  it('UID vector re-encodes byte for byte', () => {
    const payload = '00e700010203040506070809010203040506'
    const info = decodeEddystone(bytes(payload))
    expect(toHex(encodeEddystoneUid(info?.uid as never, { withReserved: false }))).toBe(payload)
  })

  it('URL vector re-encodes byte for byte', () => {
    expect(toHex(encodeEddystoneUrl({ url: 'http://google.com/', txPowerAt0m: -25 }))).toBe('10e702676f6f676c6500')
  })

  it('plain TLM round-trips every representable value exactly', () => {
    const tlm = fc.record({
      version: fc.constant(0 as const),
      batteryMilliVolts: fc.integer({ min: 0, max: 0xffff }),
      temperature: fc.option(fc.integer({ min: -32767, max: 32767 }).map((r) => r / 256), { nil: null }),
      advertisingCount: fc.integer({ min: 0, max: 0xffffffff }),
      secondsSinceBoot: fc.integer({ min: 0, max: 0xffffffff }).map((r) => r / 10),
    })
    fc.assert(
      fc.property(tlm, (t: EddystonePlainTlm) => {
        const encoded = encodeEddystoneTlm(t)
        expect(encoded.length).toBe(14)
        expect(decodeEddystone(encoded)).toEqual({ tlm: t })
        expect(encodeEddystoneTlm(decodeEddystone(encoded)?.tlm as EddystonePlainTlm)).toEqual(encoded)
      }),
    )
  })

  it('plain TLM vector re-encodes byte for byte', () => {
    const t = { version: 0, batteryMilliVolts: 3000, temperature: 25, advertisingCount: 100, secondsSinceBoot: 100 }
    expect(toHex(encodeEddystoneTlm(t as EddystonePlainTlm))).toBe('20000bb8190000000064000003e8')
  })

  it('plain TLM rounds temperature to 1/256 °C and seconds to 0.1 s', () => {
    const t = encodeEddystoneTlm({
      version: 0,
      batteryMilliVolts: 1,
      temperature: 21.3,
      advertisingCount: 1,
      secondsSinceBoot: 12.34,
    })
    const back = decodeEddystone(t)?.tlm as EddystonePlainTlm
    expect(back.temperature).toBe(Math.round(21.3 * 256) / 256)
    expect(back.secondsSinceBoot).toBe(12.3)
  })

  it('encrypted TLM encodes to 18 bytes and decodes as encrypted', () => {
    const etlm = Uint8Array.from({ length: 12 }, (_, i) => i)
    const encoded = encodeEddystoneTlm({ version: 1, etlm, salt: 0x1234, mic: 0xabcd })
    expect(toHex(encoded)).toBe('2001000102030405060708090a0b1234abcd')
    expect(decodeEddystone(encoded)).toEqual({ tlm: { encrypted: true } })
  })

  it('EID round-trips', () => {
    fc.assert(
      fc.property(hexArb(8), tx, (ephemeralId, txPowerAt0m) => {
        expect(decodeEddystone(encodeEddystoneEid({ ephemeralId, txPowerAt0m }))).toEqual({
          eid: { ephemeralId, txPowerAt0m },
        })
      }),
    )
  })

  it('refuse values a frame cannot carry, naming the option', () => {
    const uid = { namespace: '00'.repeat(10), instance: '00'.repeat(6), txPowerAt0m: 0 }
    expect(thrown(() => encodeEddystoneUid({ ...uid, namespace: 'xyz' })).option).toBe('namespace')
    expect(thrown(() => encodeEddystoneUid({ ...uid, instance: '00'.repeat(7) })).option).toBe('instance')
    expect(thrown(() => encodeEddystoneUid({ ...uid, txPowerAt0m: 128 })).option).toBe('txPowerAt0m')
    expect(thrown(() => encodeEddystoneUid({ ...uid, txPowerAt0m: 1.5 })).option).toBe('txPowerAt0m')
    expect(thrown(() => encodeEddystoneEid({ ephemeralId: '0g'.repeat(8), txPowerAt0m: 0 })).option).toBe(
      'ephemeralId',
    )
    expect(thrown(() => encodeEddystoneUrl({ url: 'gopher://x', txPowerAt0m: 0 })).option).toBe('url')

    const tlm: EddystonePlainTlm = {
      version: 0,
      batteryMilliVolts: 3000,
      temperature: 20,
      advertisingCount: 0,
      secondsSinceBoot: 0,
    }
    expect(thrown(() => encodeEddystoneTlm({ ...tlm, batteryMilliVolts: 70000 })).option).toBe('batteryMilliVolts')
    expect(thrown(() => encodeEddystoneTlm({ ...tlm, temperature: -128 })).option).toBe('temperature')
    expect(thrown(() => encodeEddystoneTlm({ ...tlm, temperature: Number.NaN })).option).toBe('temperature')
    expect(thrown(() => encodeEddystoneTlm({ ...tlm, temperature: 128 })).option).toBe('temperature')
    expect(thrown(() => encodeEddystoneTlm({ ...tlm, advertisingCount: -1 })).option).toBe('advertisingCount')
    expect(thrown(() => encodeEddystoneTlm({ ...tlm, secondsSinceBoot: Infinity })).option).toBe('secondsSinceBoot')
    expect(thrown(() => encodeEddystoneTlm({ version: 1, etlm: new Uint8Array(11), salt: 0, mic: 0 })).option).toBe(
      'etlm',
    )
    expect(thrown(() => encodeEddystoneTlm({ version: 1, etlm: new Uint8Array(12), salt: 0x10000, mic: 0 })).option).toBe(
      'salt',
    )
    expect(thrown(() => encodeEddystoneUid(undefined as unknown as EddystoneUid)).option).toBe('uid')
    expect(thrown(() => encodeEddystoneEid(null as unknown as EddystoneEid)).option).toBe('eid')
    expect(thrown(() => encodeEddystoneTlm({ ...tlm, version: 2 } as unknown as EddystonePlainTlm)).option).toBe(
      'version',
    )
  })
})

describe('eddystoneMeasuredPower', () => {
  it('eddystoneMeasuredPower is the 0 m tx power minus 41 dB, absent without one', () => {
    expect(eddystoneMeasuredPower({ uid: { namespace: '', instance: '', txPowerAt0m: -25 } })).toBe(-66)
    expect(eddystoneMeasuredPower({ url: { url: 'http://', txPowerAt0m: 0 } })).toBe(-41)
    expect(eddystoneMeasuredPower({ tlm: { encrypted: true } })).toBeUndefined()
  })
})

describe('through decodeAdvertisement (the wiring in decode.ts)', () => {
  const adv = (hex: string, uuid = 'feaa') => ({
    address: 'c0:ff:ee:00:00:01',
    rssi: -70,
    timestamp: 1000,
    serviceData: [{ uuid, data: bytes(hex) }],
  })

  it('every external.json eddystone vector gives an eddystone-only reading, or none', () => {
    for (const v of vectors.eddystone) {
      const s = v.serviceData[0] as { uuid: string; data: string }
      const reading = decodeAdvertisement(adv(s.data, s.uuid))
      const direct = decodeEddystone(bytes(s.data))
      if (direct === null) {
        expect(reading).toBeNull()
        continue
      }
      expect(reading?.frames).toEqual(['eddystone'])
      expect(reading?.eddystone).toEqual(direct)
      expect(reading?.serialNumber).toBeUndefined()
    }
  })

  it('accuracy uses the 0 m tx power minus 41 dB as the 1 m reference', () => {
    const reading = decodeAdvertisement(adv('00e700010203040506070809010203040506'))
    expect(reading?.accuracy).toBe(accuracy(-70, -25 - 41))
    expect(reading?.accuracy).toBeGreaterThan(0)
  })

  it('a TLM alone supplies temperature, but not when it reports 0x8000, and no distance', () => {
    const tlm = decodeAdvertisement(adv('20000bb8190000000064000003e8', 'FEAA'))
    expect(tlm?.temperature).toBe(25)
    expect(tlm?.accuracy).toBe(-1)
    const unsupported = decodeAdvertisement(adv('2000000080000000000000000000'))
    expect(unsupported?.eddystone?.tlm).toMatchObject({ temperature: null })
    expect(unsupported !== null && 'temperature' in unsupported).toBe(false)
  })

  it('a broken Eddystone frame beside a good one does not hide the good one', () => {
    const reading = decodeAdvertisement({
      ...adv(''),
      serviceData: [
        { uuid: 'feaa', data: bytes('10e702676f0e') },
        { uuid: 'feaa', data: bytes('30f60123456789abcdef') },
      ],
    })
    expect(reading?.eddystone).toEqual({ eid: { ephemeralId: '0123456789abcdef', txPowerAt0m: -10 } })
  })
})
