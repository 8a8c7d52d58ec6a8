import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { decodeAckFile, decodeSegment, encodeAckSlot, encodeFrame, encodePayload, MAX_SEGMENT_SEQ, parseSegmentName, segmentName, SEGMENT_NAME } from '../../src/queue/journal.js'
import type { BeaconLogRecord } from '../../src/reading.js'

const recordArb: fc.Arbitrary<BeaconLogRecord> = fc.record({
  msgId: fc.string({ minLength: 1, maxLength: 40 }),
  beaconMac: fc.string({ minLength: 1, maxLength: 12 }),
  updatedTime: fc.integer({ min: 0, max: 2 ** 45 }),
  sensor: fc.record({ temperature: fc.double({ noNaN: true, noDefaultInfinity: true, min: -100, max: 100 }) }, { requiredKeys: [] }),
})

/** Frames with seqs from `first` on. */
function frames(records: BeaconLogRecord[], first = 1): Buffer[] {
  return records.map((r, i) => encodeFrame(first + i, encodePayload(r)))
}
const plain = (records: BeaconLogRecord[]): BeaconLogRecord[] => JSON.parse(JSON.stringify(records)) as BeaconLogRecord[]

describe('journal frames', () => {
  it('decodes exactly what was encoded, each record with its seq', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 20 }), fc.integer({ min: 1, max: 2 ** 40 }), (records, first) => {
        const buf = Buffer.concat(frames(records, first))
        const back = decodeSegment(buf, first)
        expect(back.records.map((r) => r.record)).toEqual(plain(records))
        expect(back.records.map((r) => r.seq)).toEqual(records.map((_, i) => first + i))
        expect(back).toMatchObject({ damagedBytes: 0, tailBytes: 0, salvaged: 0 })
      }),
    )
  })

  it('reads a file cut at any byte as the complete frames before the cut', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 8 }), fc.nat(), (records, cutSeed) => {
        const parts = frames(records)
        const buf = Buffer.concat(parts)
        const cut = cutSeed % (buf.length + 1)
        let whole = 0
        let bytes = 0
        for (const f of parts) {
          if (bytes + f.length > cut) break
          bytes += f.length
          whole++
        }
        const back = decodeSegment(buf.subarray(0, cut), 1)
        expect(back.records.length).toBe(whole)
        expect(back.tailBytes).toBe(cut - bytes)
      }),
    )
  })

  it('steps over a flipped bit: exactly the damaged record is lost, the ones after it are salvaged', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 6 }), fc.nat(), fc.integer({ min: 0, max: 7 }), (records, at, bit) => {
        const parts = frames(records)
        const buf = Buffer.concat(parts)
        const i = at % buf.length
        buf[i] ^= 1 << bit
        let hit = 0
        for (let off = parts[0].length; off <= i; off += parts[hit].length) hit++
        const back = decodeSegment(buf, 1)
        const expected = plain(records)
        expect(back.records.map((r) => r.seq)).toEqual(records.map((_, k) => k + 1).filter((s) => s !== hit + 1))
        expect(back.records.map((r) => r.record)).toEqual(expected.filter((_, k) => k !== hit))
        expect(back.salvaged).toBe(hit === records.length - 1 ? 0 : records.length - 1 - hit)
      }),
    )
  })

  it('resynchronises past a zeroed stretch and refuses seqs that go backwards', () => {
    const records = Array.from({ length: 6 }, (_, i) => ({ msgId: `m${i}`, beaconMac: 'X', updatedTime: i, sensor: {} }))
    const parts = frames(records, 10)
    parts[2] = Buffer.alloc(parts[2].length)
    parts[3] = Buffer.alloc(parts[3].length)
    const back = decodeSegment(Buffer.concat(parts), 10)
    expect(back.records.map((r) => r.seq)).toEqual([10, 11, 14, 15])
    expect(back.damagedBytes).toBe(parts[2].length + parts[3].length)
    expect(back.salvaged).toBe(2)
    // A frame replayed from earlier in the file (seq not rising) is not taken for a record.
    const replayed = decodeSegment(Buffer.concat([...frames(records.slice(0, 3), 1), frames(records.slice(0, 1), 1)[0]]), 1)
    expect(replayed.records.map((r) => r.seq)).toEqual([1, 2, 3])
  })
})

describe('journal ack slots', () => {
  it('takes the higher valid slot and writes next into the other one', () => {
    expect(decodeAckFile(Buffer.concat([encodeAckSlot(5), encodeAckSlot(9)]))).toEqual({ seq: 9, nextSlot: 0, valid: true })
    expect(decodeAckFile(Buffer.concat([encodeAckSlot(12), encodeAckSlot(9)]))).toEqual({ seq: 12, nextSlot: 1, valid: true })
    const torn = Buffer.concat([encodeAckSlot(5), encodeAckSlot(9)])
    torn[16] ^= 0x40
    expect(decodeAckFile(torn)).toEqual({ seq: 5, nextSlot: 1, valid: true })
    // No readable slot: the ack is unknown, which is not the same as 0.
    expect(decodeAckFile(Buffer.alloc(0))).toEqual({ seq: 0, nextSlot: 0, valid: false })
    expect(decodeAckFile(Buffer.concat([encodeAckSlot(0), encodeAckSlot(0)]))).toEqual({ seq: 0, nextSlot: 0, valid: true })
  })

  it('names segments so that they sort by seq', () => {
    expect(segmentName(42)).toBe('0000000000000042.seg')
    expect(SEGMENT_NAME.test(segmentName(1))).toBe(true)
    expect([segmentName(100), segmentName(9)].sort()).toEqual([segmentName(9), segmentName(100)])
  })

  it('accepts segment names only where seq arithmetic stays exact', () => {
    expect(parseSegmentName('0000000000000042.seg')).toBe(42)
    expect(parseSegmentName(segmentName(MAX_SEGMENT_SEQ))).toBe(MAX_SEGMENT_SEQ)
    // 2^53 + 1 is not representable: Number() would round it and corrupt every seq after it.
    expect(parseSegmentName('9007199254740993.seg')).toBeUndefined()
    expect(parseSegmentName(segmentName(MAX_SEGMENT_SEQ + 1))).toBeUndefined()
    expect(parseSegmentName('0000000000000000.seg')).toBeUndefined()
    expect(parseSegmentName('00000000000000001.seg')).toBeUndefined()
  })
})
