import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { decodeAckFile, decodeFrames, encodeAckSlot, encodeFrame, segmentName, SEGMENT_NAME } from '../../src/cloud/journal.js'
import type { BeaconLogRecord } from '../../src/cloud/records.js'

const recordArb: fc.Arbitrary<BeaconLogRecord> = fc.record({
  msgId: fc.string({ minLength: 1, maxLength: 40 }),
  beaconMac: fc.string({ minLength: 1, maxLength: 12 }),
  updatedTime: fc.integer({ min: 0, max: 2 ** 45 }),
  sensor: fc.record({ temperature: fc.double({ noNaN: true, noDefaultInfinity: true, min: -100, max: 100 }) }, { requiredKeys: [] }),
})

describe('journal frames', () => {
  it('decodes exactly what was encoded', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 20 }), (records) => {
        const buf = Buffer.concat(records.map(encodeFrame))
        const { records: back, validBytes } = decodeFrames(buf)
        expect(back).toEqual(JSON.parse(JSON.stringify(records)))
        expect(validBytes).toBe(buf.length)
      }),
    )
  })

  it('reads a file cut at any byte as the complete frames before the cut', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 8 }), fc.nat(), (records, cutSeed) => {
        const frames = records.map(encodeFrame)
        const buf = Buffer.concat(frames)
        const cut = cutSeed % (buf.length + 1)
        let whole = 0
        let bytes = 0
        for (const f of frames) {
          if (bytes + f.length > cut) break
          bytes += f.length
          whole++
        }
        const { records: back, validBytes } = decodeFrames(buf.subarray(0, cut))
        expect(back.length).toBe(whole)
        expect(validBytes).toBe(bytes)
      }),
    )
  })

  it('stops at a flipped bit instead of returning a changed record', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 5 }), fc.nat(), fc.integer({ min: 0, max: 7 }), (records, at, bit) => {
        const buf = Buffer.concat(records.map(encodeFrame))
        const i = at % buf.length
        buf[i] ^= 1 << bit
        const { records: back } = decodeFrames(buf)
        const expected = JSON.parse(JSON.stringify(records)) as BeaconLogRecord[]
        // Every record returned is one that was written, in order; nothing altered slips through.
        expect(back).toEqual(expected.slice(0, back.length))
        expect(back.length).toBeLessThan(records.length)
      }),
    )
  })

  it('honours the record limit', () => {
    const buf = Buffer.concat([1, 2, 3].map((i) => encodeFrame({ msgId: `m${i}`, beaconMac: 'X', updatedTime: i, sensor: {} })))
    expect(decodeFrames(buf, 2).records.map((r) => r.msgId)).toEqual(['m1', 'm2'])
  })
})

describe('journal ack slots', () => {
  it('takes the higher valid slot and writes next into the other one', () => {
    expect(decodeAckFile(Buffer.concat([encodeAckSlot(5), encodeAckSlot(9)]))).toEqual({ seq: 9, nextSlot: 0 })
    expect(decodeAckFile(Buffer.concat([encodeAckSlot(12), encodeAckSlot(9)]))).toEqual({ seq: 12, nextSlot: 1 })
    const torn = Buffer.concat([encodeAckSlot(5), encodeAckSlot(9)])
    torn[16] ^= 0x40
    expect(decodeAckFile(torn)).toEqual({ seq: 5, nextSlot: 1 })
    expect(decodeAckFile(Buffer.alloc(0))).toEqual({ seq: 0, nextSlot: 0 })
  })

  it('names segments so that they sort by seq', () => {
    expect(segmentName(42)).toBe('0000000000000042.seg')
    expect(SEGMENT_NAME.test(segmentName(1))).toBe(true)
    expect([segmentName(100), segmentName(9)].sort()).toEqual([segmentName(9), segmentName(100)])
  })
})
