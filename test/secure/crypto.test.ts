import { createCipheriv, createDecipheriv } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { aes128DecryptBlock, aes128EncryptBlock, crc8Maxim, keyWords } from '../../src/secure/crypto.js'

function nodeEcb(mode: 'enc' | 'dec', key: Uint8Array, block: Uint8Array): Uint8Array {
  const c = mode === 'enc' ? createCipheriv('aes-128-ecb', key, null) : createDecipheriv('aes-128-ecb', key, null)
  c.setAutoPadding(false)
  return new Uint8Array(Buffer.concat([c.update(block), c.final()]))
}

function ours(mode: 'enc' | 'dec', key: Uint8Array, block: Uint8Array): Uint8Array {
  const [a, b, c, d] = keyWords(key)
  const out = new Uint8Array(16)
  ;(mode === 'enc' ? aes128EncryptBlock : aes128DecryptBlock)(a, b, c, d, block, 0, out, 0)
  return out
}

describe('AES-128 one block', () => {
  it('matches the FIPS-197 appendix C.1 example both ways', () => {
    const key = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')
    const plain = Buffer.from('00112233445566778899aabbccddeeff', 'hex')
    const cipher = ours('enc', key, plain)
    expect(Buffer.from(cipher).toString('hex')).toBe('69c4e0d86a7b0430d8cdb78070b4c55a')
    expect(Buffer.from(ours('dec', key, cipher)).toString('hex')).toBe('00112233445566778899aabbccddeeff')
  })

  it('agrees with node:crypto on random keys and blocks, both directions', () => {
    const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 })
    fc.assert(
      fc.property(bytes16, bytes16, (key, block) => {
        expect(ours('enc', key, block)).toEqual(nodeEcb('enc', key, block))
        expect(ours('dec', key, block)).toEqual(nodeEcb('dec', key, block))
      }),
      { numRuns: 2000 },
    )
  })

  it('works in place and at offsets inside a larger buffer', () => {
    const key = Uint8Array.from({ length: 16 }, (_, i) => i * 7)
    const [a, b, c, d] = keyWords(key)
    const buf = Uint8Array.from({ length: 23 }, (_, i) => i * 11)
    const expected = nodeEcb('dec', key, buf.subarray(7, 23))
    aes128DecryptBlock(a, b, c, d, buf, 7, buf, 7)
    expect(buf.subarray(7)).toEqual(expected)
    expect([...buf.subarray(0, 7)]).toEqual([0, 11, 22, 33, 44, 55, 66])
  })

  it('refuses a key of the wrong size', () => {
    expect(() => keyWords(new Uint8Array(14))).toThrow(RangeError)
  })
})

describe('CRC-8/MAXIM', () => {
  it('has the catalogue check value 0xA1 for "123456789"', () => {
    expect(crc8Maxim(Buffer.from('123456789', 'ascii'))).toBe(0xa1)
  })

  it('is 0 for no bytes and honours start/end', () => {
    expect(crc8Maxim(new Uint8Array(0))).toBe(0)
    const data = Buffer.from('xx123456789yy', 'ascii')
    expect(crc8Maxim(data, 2, 11)).toBe(0xa1)
  })

  it('equals the bit-by-bit definition on random input', () => {
    const reference = (data: Uint8Array): number => {
      let crc = 0
      for (const byte of data) {
        crc ^= byte
        for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x8c : crc >>> 1
      }
      return crc
    }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 32 }), (d) => crc8Maxim(d) === reference(d)))
  })
})
