import { describe, expect, it } from 'vitest'
import { parseAdStructures } from '../../../src/frames/ad-structures.js'
import { addressText, fromParsed, fromRaw } from '../../../src/inputs/esphome/advertisements.js'
import { decodeRawBatch, encodeRawBatch, MAX_BATCH } from '../../../src/inputs/esphome/ble-messages.js'
import { FrameError, FrameReader, MAX_FRAME, noiseFrame, plainFrame } from '../../../src/inputs/esphome/framing.js'
import {
  decodeDeviceInfoResponse,
  decodeHelloResponse,
  encodeHelloRequest,
} from '../../../src/inputs/esphome/messages.js'
import { ProtoError, ProtoReader, ProtoWriter } from '../../../src/inputs/esphome/protobuf.js'

describe('protobuf codec', () => {
  it('writes and reads varints, zigzag sint32, fixed32 and strings', () => {
    const b = new ProtoWriter()
      .uint(1, 300)
      .sint32(2, -61)
      .sint32(3, 20)
      .fixed32(4, 1_700_000_000)
      .string(5, 'hé')
      .finish()
    // 300 = ac 02, -61 zigzag = 121, 20 zigzag = 40 (protobuf encoding guide).
    expect(Buffer.from(b).toString('hex')).toBe('08ac021079182825' + '00f15365' + '2a0368c3a9')
    const r = new ProtoReader(b)
    const got: unknown[] = []
    while (r.more()) {
      const { field, wire } = r.tag()
      if (field === 1) got.push(r.varint())
      else if (field === 2 || field === 3) got.push(r.sint32())
      else if (field === 4) got.push(r.fixed32())
      else if (field === 5 && wire === 2) got.push(r.string())
    }
    expect(got).toEqual([300, -61, 20, 1_700_000_000, 'hé'])
  })

  it('skips unknown fields of every wire type and refuses truncated or endless input', () => {
    const hello = Buffer.concat([
      Buffer.from('0801', 'hex'), // api_version_major 1
      Buffer.from('f901' + '00'.repeat(8), 'hex'), // field 31, 64-bit: unknown
      Buffer.from('fd0100000000', 'hex'), // field 31, 32-bit: unknown
      Buffer.from('1a0474657374', 'hex'), // server_info "test"
      Buffer.from('100a', 'hex'), // api_version_minor 10
    ])
    expect(decodeHelloResponse(hello)).toMatchObject({ apiVersionMajor: 1, apiVersionMinor: 10, serverInfo: 'test' })
    expect(() => decodeHelloResponse(Buffer.from('1aff01', 'hex'))).toThrow(ProtoError)
    expect(() => decodeHelloResponse(Buffer.from('08' + 'ff'.repeat(11), 'hex'))).toThrow(/10 bytes/)
    expect(() => decodeDeviceInfoResponse(Buffer.from('0b', 'hex'))).toThrow(/wire type 3/)
  })

  it('keeps at most MAX_BATCH advertisements of a batch and drops oversized payloads', () => {
    const many = Array.from({ length: MAX_BATCH + 5 }, (_, i) => ({
      address: i,
      rssi: -50,
      addressType: 0,
      data: Buffer.alloc(3),
    }))
    many[0] = { ...many[0], data: Buffer.alloc(300) }
    const batch = decodeRawBatch(encodeRawBatch(many))
    expect(batch.advertisements).toHaveLength(MAX_BATCH)
    expect(batch.dropped).toBe(5)
  })
})

describe('frames', () => {
  it('cuts plaintext and Noise frames out of any chunking', () => {
    const bytes = Buffer.concat([plainFrame(1, encodeHelloRequest('x', 1, 10)), plainFrame(7, new Uint8Array(0))])
    const reader = new FrameReader('plaintext')
    const frames = []
    for (const byte of bytes) {
      reader.push(Buffer.from([byte]))
      for (let f = reader.next(); f !== undefined; f = reader.next()) frames.push(f.type)
    }
    expect(frames).toEqual([1, 7])
    const noise = new FrameReader('noise')
    noise.push(Buffer.concat([noiseFrame(Buffer.from('ab')), noiseFrame(Buffer.alloc(0))]))
    expect(noise.next()?.payload.toString()).toBe('ab')
    expect(noise.next()?.payload.length).toBe(0)
  })

  it('refuses a 16 MB claim from its header, before the body arrives', () => {
    const reader = new FrameReader('plaintext')
    reader.push(Buffer.from([0x00, 0x80, 0x80, 0x80, 0x08]))
    expect(() => reader.next()).toThrow(FrameError)
    expect(reader.pending).toBe(5)
    const atLimit = new FrameReader('plaintext')
    atLimit.push(Buffer.from([0x00, 0xff, 0xff, 0x03, 0x01]))
    expect(atLimit.next()).toBeUndefined() // 65535 bytes claimed: allowed, waiting for them
    expect(MAX_FRAME).toBe(65535)
  })

  it('tells the other framing and foreign bytes apart', () => {
    const codes = ['plaintext', 'noise', 'plaintext'].map((mode, i) => {
      const r = new FrameReader(mode as 'plaintext' | 'noise')
      r.push(Buffer.from([[0x01, 0x00, 0x48][i], 0, 0]))
      try {
        r.next()
      } catch (e) {
        return (e as FrameError).code
      }
    })
    expect(codes).toEqual(['encryption_mismatch', 'encryption_mismatch', 'protocol'])
  })
})

describe('advertisements', () => {
  it('reads AD structures as noble reports them', () => {
    const ad = Buffer.from(
      '020106' + '0303aafe' + '0516aafe1020' + '0aff4c0001020304050607' + '020af4' + '0408616263' + '00ff',
      'hex',
    )
    const f = parseAdStructures(ad)
    expect(f.localName).toBe('abc')
    expect(f.txPowerLevel).toBe(-12)
    expect(Buffer.from(f.manufacturerData as Uint8Array).toString('hex')).toBe('4c0001020304050607')
    expect(f.serviceData).toEqual([{ uuid: 'feaa', data: Uint8Array.from([0x10, 0x20]) }])
    // A structure running past the end ends the payload.
    expect(parseAdStructures(Buffer.from('0909616263', 'hex'))).toEqual({})
  })

  it('turns raw and parsed proxy advertisements into the same shape', () => {
    expect(addressText(0xc01122334455)).toBe('c0:11:22:33:44:55')
    const raw = fromRaw(
      { address: 0xc01122334455, rssi: -70, addressType: 1, data: Buffer.from('0aff4c0001020304050607', 'hex') },
      5,
    )
    const parsed = fromParsed(
      {
        address: 0xc01122334455,
        rssi: -70,
        addressType: 1,
        name: new Uint8Array(0),
        serviceData: [],
        manufacturerData: [{ uuid: '0x004C', data: Buffer.from('01020304050607', 'hex') }],
      },
      5,
    )
    expect(parsed).toEqual(raw)
    expect(fromRaw({ address: 1, rssi: 90, addressType: 0, data: new Uint8Array(0) }, 5)).toBeUndefined()
  })
})

describe('hostile bytes', () => {
  /** A small deterministic generator (xorshift32), so a failure is reproducible. */
  function bytes(seed: number, n: number): Buffer {
    let x = seed || 1
    const out = Buffer.alloc(n)
    for (let i = 0; i < n; i++) {
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      out[i] = x & 0xff
    }
    return out
  }

  it('decoders return or throw ProtoError, never anything else; the AD reader never throws', () => {
    const decoders = [decodeRawBatch, decodeHelloResponse, decodeDeviceInfoResponse]
    for (let seed = 1; seed <= 2000; seed++) {
      const b = bytes(seed, seed % 97)
      for (const decode of decoders) {
        try {
          decode(b)
        } catch (e) {
          expect(e).toBeInstanceOf(ProtoError)
        }
      }
      expect(() => parseAdStructures(b)).not.toThrow()
    }
  })

  it('the frame reader holds no more than one frame of bytes and throws only FrameError', () => {
    for (let seed = 1; seed <= 500; seed++) {
      for (const mode of ['plaintext', 'noise'] as const) {
        const reader = new FrameReader(mode, 1024)
        const b = Buffer.concat([Buffer.from([mode === 'plaintext' ? 0 : 1]), bytes(seed, 300)])
        try {
          for (let i = 0; i < b.length; i += 7) {
            reader.push(b.subarray(i, i + 7))
            while (reader.next() !== undefined);
            expect(reader.pending).toBeLessThanOrEqual(1024 + 11)
          }
        } catch (e) {
          expect(e).toBeInstanceOf(FrameError)
        }
      }
    }
  })
})
