import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import type { BroadcastKey } from '../../src/secure/broadcast-key.js'
import { aes128EncryptBlock, crc8Maxim, keyWords } from '../../src/secure/crypto.js'
import { Keyring } from '../../src/secure/keyring.js'
import { createSecureStats, openE781Block, sealE781Block } from '../../src/secure/open.js'
import type { BlockLayout } from '../../src/secure/open.js'
import { e781Payload, hex, randomBytes, randomKeyString, rawKeyString, seeded } from './helpers.js'

const MODES: [number, BlockLayout][] = [
  [0x10, 'identity'],
  [0x20, 'sensors'],
  [0x41, 'identity'],
  [0x42, 'sensors'],
]

/** A plausible plaintext block for a layout (byte 15 is left for the CRC). */
function plainBlock(layout: BlockLayout, serial = [0x45, 0x6a, 0x36]): Uint8Array {
  const b = new Uint8Array(16)
  b.set(serial, 0)
  if (layout === 'identity') {
    b.set([0x00, 0x01, 0x00, 0x02], 6) // major 1, minor 2
    b[10] = 87 // battery
    b[11] = 0x75 // tx level 7, interval index 5
    b[12] = 0x44
    b[13] = 0xc5 // -59 dBm
  } else {
    b[3] = 87
    b[4] = 0xb9 // tx 11, interval 9
    b[5] = 0x40
    b[6] = 21
    b.set([0x52, 0x13], 7)
    b.set([0x34, 0x12], 9)
    b[11] = 1
    b[12] = 0xc5
  }
  return b
}

function keyIdOf(key: BroadcastKey): number {
  return parseInt(key.keyId, 16)
}

describe('openE781Block / sealE781Block round trips', () => {
  it('every mode round-trips under random keys, random codes and random plausible fields', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 14, maxLength: 14 }),
        fc.integer({ min: 1, max: 0xffff }),
        fc.integer({ min: 0, max: 0xffff }),
        fc.constantFrom(...MODES),
        fc.uint8Array({ minLength: 3, maxLength: 3 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: -110, max: -20 }),
        (key14, keyId, rc, [mode, layout], serial, battery, mp) => {
          const key = parseBroadcastKey(rawKeyString(key14, keyId))
          const plain = plainBlock(layout, [...serial])
          plain[layout === 'identity' ? 10 : 3] = battery
          plain[layout === 'identity' ? 13 : 12] = mp & 0xff
          const sealed = sealE781Block(key, rc, plain)
          expect(hex(sealed)).not.toBe(hex(plain))
          const payload = e781Payload(mode, keyId, rc, sealed)
          const serialText = '0117C5' + hex(serial).toUpperCase()
          const r = openE781Block(new Keyring([key]), payload, layout, { expectedSerial: serialText })
          expect(r).toEqual({
            verified: true,
            keyId: keyId.toString(16).padStart(4, '0'),
            block: Uint8Array.from([...plain.subarray(0, 15), crc8Maxim(plain, 0, 3)]),
          })
        },
      ),
      { numRuns: 400 },
    )
  })

  it('leaves the caller’s plaintext alone and hands out a fresh block each time', () => {
    const key = parseBroadcastKey(randomKeyString(seeded(1), 0x0a0b))
    const plain = plainBlock('sensors')
    const before = hex(plain)
    const payload = e781Payload(0x42, 0x0a0b, 0x1234, sealE781Block(key, 0x1234, plain))
    expect(hex(plain)).toBe(before)
    const ring = new Keyring([key])
    const a = openE781Block(ring, payload, 'sensors')
    const b = openE781Block(ring, payload, 'sensors')
    if (!a.verified || !b.verified) throw new Error('expected verified')
    a.block.fill(0)
    expect(b.block[3]).toBe(87)
    expect(a.block).not.toBe(b.block)
  })

  it('refuses a bad block size or random code with a typed error', () => {
    const key = parseBroadcastKey(randomKeyString(seeded(2), 5))
    expect(() => sealE781Block(key, 1, new Uint8Array(15))).toThrow(expect.objectContaining({ code: 'invalid_option' }))
    expect(() => sealE781Block(key, 0x10000, new Uint8Array(16))).toThrow(expect.objectContaining({ code: 'invalid_option' }))
  })
})

describe('openE781Block rejections', () => {
  const rand = seeded(42)
  const keyString = randomKeyString(rand, 0x6016)
  const key = parseBroadcastKey(keyString)
  const ring = new Keyring([key])

  function sealedPayload(layout: BlockLayout, plain = plainBlock(layout), rc = 0xbeef): Uint8Array {
    return e781Payload(layout === 'identity' ? 0x41 : 0x42, 0x6016, rc, sealE781Block(key, rc, plain))
  }

  /** Encrypts a block as is (no CRC written), for a deliberately wrong CRC. */
  function encryptRaw(plain: Uint8Array, rc: number): Uint8Array {
    const m = Buffer.concat([Buffer.from(keyString.slice(0, 28), 'hex'), Buffer.from([rc >> 8, rc & 0xff])])
    const [a, b, c, d] = keyWords(m)
    const out = new Uint8Array(16)
    aes128EncryptBlock(a, b, c, d, plain, 0, out, 0)
    return out
  }

  it('a frame under a key id the keyring lacks, or with no keyring, is no_key', () => {
    const p = sealedPayload('identity')
    expect(openE781Block(new Keyring([randomKeyString(rand, 0x6017)]), p, 'identity')).toEqual({ verified: false, keyId: '6016', reason: 'no_key' })
    expect(openE781Block(undefined, p, 'identity')).toEqual({ verified: false, keyId: '6016', reason: 'no_key' })
    const zero = Uint8Array.from(p)
    zero[3] = 0
    zero[4] = 0
    expect(openE781Block(ring, zero, 'identity')).toMatchObject({ verified: false, reason: 'no_key' })
  })

  it('a different key with the same key id fails verification', () => {
    // Seeded keys, so the outcome is fixed: both layouts are caught by the CRC.
    for (const layout of ['identity', 'sensors'] as const) {
      const impostor = new Keyring([randomKeyString(seeded(1234), 0x6016)])
      expect(openE781Block(impostor, sealedPayload(layout), layout)).toEqual({ verified: false, keyId: '6016', reason: 'crc' })
    }
  })

  it('a tampered block fails verification (any single flipped bit, every position)', () => {
    for (const layout of ['identity', 'sensors'] as const) {
      const p = sealedPayload(layout)
      let rejected = 0
      for (let bit = 0; bit < 128; bit++) {
        const t = Uint8Array.from(p)
        t[7 + (bit >> 3)] ^= 1 << (bit & 7)
        const r = openE781Block(ring, t, layout)
        if (!r.verified) {
          expect(['crc', 'implausible']).toContain(r.reason)
          rejected++
        }
      }
      // a flipped bit scrambles the whole block; expect nearly all 128 to be caught
      expect(rejected).toBeGreaterThanOrEqual(120)
      // a changed random code is a different AES key: same effect
      const t = Uint8Array.from(p)
      t[6] ^= 1
      expect(openE781Block(ring, t, layout).verified).toBe(false)
    }
  })

  it('a wrong CRC is crc', () => {
    for (const layout of ['identity', 'sensors'] as const) {
      const plain = plainBlock(layout)
      plain[15] = crc8Maxim(plain, 0, 3) ^ 0x01
      const p = e781Payload(0x10, 0x6016, 0x0102, encryptRaw(plain, 0x0102))
      expect(openE781Block(ring, p, layout)).toEqual({ verified: false, keyId: '6016', reason: 'crc' })
    }
  })

  it.each([
    ['identity', 10, 101, 'battery above 100'],
    ['identity', 11, 0xc5, 'transmit level 12'],
    ['identity', 11, 0x7a, 'interval index 10'],
    ['identity', 13, 0xed, 'measured power -19'],
    ['identity', 13, 0x91, 'measured power -111'],
    ['identity', 13, 0, 'measured power 0'],
    ['sensors', 3, 0xff, 'battery 255'],
    ['sensors', 4, 0xc0, 'transmit level 12'],
    ['sensors', 12, 0x10, 'measured power +16'],
    ['sensors', 11, 2, 'moving state 2'],
  ] as const)('an implausible %s block (byte %i = %i: %s) is implausible', (layout, offset, value, _why) => {
    const plain = plainBlock(layout)
    plain[offset] = value
    expect(openE781Block(ring, sealedPayload(layout, plain), layout)).toEqual({ verified: false, keyId: '6016', reason: 'implausible' })
  })

  it('accepts the edges of the plausible ranges', () => {
    const id = plainBlock('identity')
    id[10] = 100
    id[11] = 0xb9
    id[13] = 0x92 // -110
    expect(openE781Block(ring, sealedPayload('identity', id), 'identity').verified).toBe(true)
    id[13] = 0xec // -20
    expect(openE781Block(ring, sealedPayload('identity', id), 'identity').verified).toBe(true)
    const s = plainBlock('sensors')
    for (const m of [0, 1, 0xff]) {
      s[11] = m
      expect(openE781Block(ring, sealedPayload('sensors', s), 'sensors').verified).toBe(true)
    }
  })

  it('a serial other than the expected one is serial_mismatch; the expected one passes in any case', () => {
    const p = sealedPayload('identity', plainBlock('identity', [0x45, 0x6a, 0x36]))
    expect(openE781Block(ring, p, 'identity', { expectedSerial: '0117C5456A36' }).verified).toBe(true)
    expect(openE781Block(ring, p, 'identity', { expectedSerial: '0117c5456a36' }).verified).toBe(true)
    for (const other of ['0117C5456A37', '0117C6456A36', '0117C5456A3', 'A0B1C2D3E4F5', '']) {
      expect(openE781Block(ring, p, 'identity', { expectedSerial: other })).toEqual({ verified: false, keyId: '6016', reason: 'serial_mismatch' })
    }
  })

  it('a payload shorter than 23 bytes is length, never a throw', () => {
    const p = sealedPayload('sensors')
    for (let n = 0; n < 23; n++) {
      const r = openE781Block(ring, p.subarray(0, n), 'sensors')
      expect(r).toMatchObject({ verified: false, reason: 'length' })
    }
    expect(openE781Block(ring, p.subarray(0, 22), 'sensors').keyId).toBe('6016')
  })

  it('counts decrypted, verified and rejected frames by reason', () => {
    const stats = createSecureStats()
    const good = sealedPayload('sensors')
    openE781Block(ring, good, 'sensors', { stats })
    openE781Block(ring, good, 'sensors', { stats })
    openE781Block(ring, good.subarray(0, 10), 'sensors', { stats })
    openE781Block(undefined, good, 'sensors', { stats })
    openE781Block(ring, good, 'sensors', { stats, expectedSerial: '0117C5000000' })
    const implausible = plainBlock('sensors')
    implausible[11] = 7
    openE781Block(ring, sealedPayload('sensors', implausible), 'sensors', { stats })
    const wrongCrc = plainBlock('sensors')
    wrongCrc[15] = crc8Maxim(wrongCrc, 0, 3) ^ 0xff
    openE781Block(ring, e781Payload(0x42, 0x6016, 7, encryptRaw(wrongCrc, 7)), 'sensors', { stats })
    expect(stats).toEqual({
      decrypted: 5,
      verified: 2,
      rejected: { no_key: 1, crc: 1, implausible: 1, serial_mismatch: 1, length: 1 },
    })
  })
})

describe('repeat cache', () => {
  it('does not serve one keyring’s result to another, nor survive a key change', () => {
    const rand = seeded(5)
    const a = parseBroadcastKey(randomKeyString(rand, 0x0042))
    const b = randomKeyString(rand, 0x0042)
    const payload = e781Payload(0x20, 0x0042, 9, sealE781Block(a, 9, plainBlock('sensors')))
    const ringA = new Keyring([a])
    const ringB = new Keyring([b])
    expect(openE781Block(ringA, payload, 'sensors').verified).toBe(true)
    expect(openE781Block(ringB, payload, 'sensors').verified).toBe(false)
    expect(openE781Block(ringA, payload, 'sensors').verified).toBe(true)
    ringA.remove('0042')
    ringA.add(b)
    expect(openE781Block(ringA, payload, 'sensors').verified).toBe(false)
    ringA.remove('0042')
    ringA.add(a)
    expect(openE781Block(ringA, payload, 'sensors').verified).toBe(true)
  })

  it('gives the same answers with the cache as without, over many interleaved frames', () => {
    const rand = seeded(6)
    const keys = Array.from({ length: 8 }, (_, i) => parseBroadcastKey(randomKeyString(rand, 0x100 + i)))
    const ring = new Keyring(keys)
    const frames = Array.from({ length: 1500 }, (_, i) => {
      const k = keys[i % keys.length]
      const layout: BlockLayout = i % 2 ? 'identity' : 'sensors'
      const plain = i % 3 ? plainBlock(layout, [i & 255, 1, 2]) : randomBytes(rand, 16)
      const rc = Math.floor(rand() * 0x10000)
      return { layout, payload: e781Payload(0x10, keyIdOf(k), rc, sealE781Block(k, rc, plain)) }
    })
    const first = frames.map((f) => openE781Block(new Keyring(keys), f.payload, f.layout))
    for (let round = 0; round < 3; round++) {
      frames.forEach((f, i) => expect(openE781Block(ring, f.payload, f.layout)).toEqual(first[i]))
    }
    expect(first.filter((r) => r.verified).length).toBeGreaterThan(950)
  })
})
