// The decoder's cache answers a packet from memory only when its payload is byte-for-byte the
// one fingerprinted. The fingerprint packs bytes into words with zero padding, so lengths that
// differ only by trailing zero bytes are the classic way to get this wrong: checked here against
// a plain reference comparison.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { matchesPayloadKey, payloadKey } from '../../src/decode/payload-key.js'
import type { Advertisement, ServiceData } from '../../src/advertisement.js'

const envelope = { address: 'c0:00:00:00:00:01', rssi: -60, timestamp: 0 }

function samePayload(a: Advertisement, b: Advertisement): boolean {
  const bytes = (x: Uint8Array | undefined, y: Uint8Array | undefined) =>
    x === undefined || y === undefined ? x === y : x.length === y.length && x.every((v, i) => v === y[i])
  if (!bytes(a.manufacturerData, b.manufacturerData)) return false
  if (a.serviceData === undefined || b.serviceData === undefined) return a.serviceData === b.serviceData
  return a.serviceData.length === b.serviceData.length &&
    a.serviceData.every((e, i) => e.uuid === b.serviceData?.[i].uuid && bytes(e.data, b.serviceData[i].data))
}

function matches(key: Advertisement, adv: Advertisement): boolean {
  const k = payloadKey(key)
  if (k === null) throw new Error('no fingerprint')
  return matchesPayloadKey(k.words, k.uuids, adv)
}

// Short arrays of few distinct byte values, so equal and nearly equal payloads come up often.
const bytes = fc.array(fc.constantFrom(0, 1, 0x80, 0xff), { maxLength: 9 }).map((a) => Uint8Array.from(a))
const service: fc.Arbitrary<ServiceData> = fc.record({ uuid: fc.constantFrom('81e7', '80e7', 'feaa'), data: bytes })
const advert: fc.Arbitrary<Advertisement> = fc.record(
  { manufacturerData: bytes, serviceData: fc.array(service, { maxLength: 2 }) },
  { requiredKeys: [] },
).map((p) => ({ ...envelope, ...p }))

describe('payload fingerprint', () => {
  it('matches exactly the advertisements with the same payload bytes', () => {
    fc.assert(fc.property(advert, advert, (a, b) => {
      expect(matches(a, b)).toBe(samePayload(a, b))
      expect(matches(a, a)).toBe(true)
    }), { numRuns: 20_000 })
  })

  it('tells a trailing zero byte from its absence, and absent data from empty data', () => {
    const md = (...b: number[]) => ({ ...envelope, manufacturerData: Uint8Array.from(b) })
    expect(matches(md(1, 2, 3), md(1, 2, 3, 0))).toBe(false)
    expect(matches(md(1, 2, 3, 0), md(1, 2, 3))).toBe(false)
    expect(matches(md(1, 2, 3, 4), md(1, 2, 3, 4, 0))).toBe(false)
    expect(matches(md(), envelope)).toBe(false)
    expect(matches(envelope, md())).toBe(false)
    expect(matches({ ...envelope, serviceData: [] }, envelope)).toBe(false)
  })

  it('compares the service uuids, and treats malformed service entries as their own value', () => {
    const data = Uint8Array.of(9, 9)
    const sd = (uuid: string) => ({ ...envelope, serviceData: [{ uuid, data }] })
    expect(matches(sd('81e7'), sd('80e7'))).toBe(false)
    expect(matches(sd('81e7'), sd('81e7'))).toBe(true)
    const broken = { ...envelope, serviceData: [null] } as unknown as Advertisement
    expect(matches(broken, broken)).toBe(true)
    expect(matches(broken, sd(''))).toBe(false)
  })

  it('keeps uuid lists apart that would print alike (empty list vs one malformed entry)', () => {
    const none = { ...envelope, serviceData: [] }
    const broken = { ...envelope, serviceData: [null] } as unknown as Advertisement
    expect(matches(none, none)).toBe(true)
    expect(matches(broken, broken)).toBe(true)
    expect(matches(none, broken)).toBe(false)
    expect(matches(broken, none)).toBe(false)
  })

  it('does not fingerprint an absurdly long payload', () => {
    expect(payloadKey({ ...envelope, manufacturerData: new Uint8Array(0x10000) })).toBeNull()
  })
})
