import { createCipheriv } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { aes128EncryptWith, aes128KeySchedule } from '../../src/secure/crypto.js'
import { identityHash, identityKeySchedule, parseIdentityKey, rpaFor } from '../../src/secure/identity-key.js'
import { IdentityKeyring } from '../../src/secure/identity-keyring.js'
import { IdentityResolver, resolvableParts } from '../../src/secure/identity-resolver.js'

/** The Core spec's sample data (Vol 3 Part H, Appendix D.7 "ah random address hash function"). */
const SPEC_IRK = 'ec0234a357c8ad05341010a60a397d9b'

/** A key of 16 bytes from a seed, as hex (never all zeros). */
function keyHex(seed: number): string {
  return Array.from({ length: 16 }, (_, i) => ((seed * 131 + i * 29 + 7) & 255).toString(16).padStart(2, '0')).join('')
}

function keyring(n: number): IdentityKeyring {
  return new IdentityKeyring(Array.from({ length: n }, (_, i) => parseIdentityKey(`device-${i}`, keyHex(i + 1))))
}

describe('AES-128 with a key schedule expanded once', () => {
  it('agrees with node:crypto on random keys and blocks', () => {
    const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 })
    fc.assert(
      fc.property(bytes16, bytes16, (key, block) => {
        const c = createCipheriv('aes-128-ecb', key, null)
        c.setAutoPadding(false)
        const want = new Uint8Array(Buffer.concat([c.update(block), c.final()]))
        const out = new Uint8Array(16)
        aes128EncryptWith(aes128KeySchedule(key), block, 0, out, 0)
        expect(out).toEqual(want)
      }),
      { numRuns: 500 },
    )
  })
})

describe('ah(): the random address hash function', () => {
  it("gives the spec's sample: IRK ec0234a3…, prand 708194 → hash 0dfbaa", () => {
    const key = parseIdentityKey('sample', SPEC_IRK)
    expect(identityHash(identityKeySchedule(key), 0x708194)).toBe(0x0dfbaa)
  })

  it("resolves the spec's sample address 70:81:94:0d:fb:aa, and no other hash", () => {
    const resolver = new IdentityResolver([parseIdentityKey('sample', SPEC_IRK)])
    expect(resolver.resolve('70:81:94:0d:fb:aa', 'random')).toBe('sample')
    expect(resolver.resolve('70:81:94:0d:fb:ab', 'random')).toBeUndefined()
  })
})

describe('rpaFor()', () => {
  it('makes resolvable addresses (top bits 01, random part neither all 0 nor all 1) that resolve to their key', () => {
    const key = parseIdentityKey('phone', keyHex(3))
    const resolver = new IdentityResolver([key])
    for (const random of [0, 1, 0x3fffff, 0x123456, 0xffffffff, 987654321]) {
      const address = rpaFor(key, random)
      expect(address).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/)
      expect(parseInt(address.slice(0, 2), 16) >> 6).toBe(0b01)
      expect(resolvableParts(address)).toBeDefined()
      expect(resolver.resolve(address)).toBe('phone')
    }
  })
})

describe('IdentityResolver', () => {
  it('picks the right name among 50 keys for generated addresses', () => {
    const ring = keyring(50)
    const resolver = new IdentityResolver(ring)
    for (const i of [0, 17, 49]) {
      const address = rpaFor(ring.get(`device-${i}`)!, 1000 + i)
      expect(resolver.resolve(address, 'random')).toBe(`device-${i}`)
    }
    expect(resolver.stats).toMatchObject({ resolved: 3, unresolved: 0 })
  })

  it('never resolves a public, static random or non-resolvable address, nor an address under an unknown key', () => {
    const ring = keyring(5)
    const resolver = new IdentityResolver(ring)
    const mine = rpaFor(ring.get('device-2')!, 77)
    // The very bits of a resolvable address, but declared public: a public address is never resolvable.
    expect(resolver.resolve(mine, 'public')).toBeUndefined()
    // Static random (top bits 11) and non-resolvable (00) addresses, with a matching hash.
    const tail = mine.slice(8)
    const prand = parseInt(mine.slice(0, 2), 16)
    const staticRandom = `${(prand | 0xc0).toString(16)}${mine.slice(2, 8)}${tail}`
    const nonResolvable = `${(prand & 0x3f).toString(16).padStart(2, '0')}${mine.slice(2, 8)}${tail}`
    expect(resolver.resolve(staticRandom, 'random')).toBeUndefined()
    expect(resolver.resolve(nonResolvable, 'random')).toBeUndefined()
    const stranger = rpaFor(parseIdentityKey('stranger', keyHex(99)), 5)
    expect(resolver.resolve(stranger, 'random')).toBeUndefined()
    for (const junk of ['', 'not an address', '70:81:94:0d:fb', '70-81-94-0d-fb-aa', 'x'.repeat(100_000)])
      expect(resolver.resolve(junk)).toBeUndefined()
    expect(resolver.stats).toMatchObject({ resolved: 0, unresolved: 1, cached: 1 })
  })

  it('answers a repeated address from its cache, resolved or not, with one pass over the keys per new address', () => {
    const ring = keyring(10)
    const resolver = new IdentityResolver(ring)
    const mine = rpaFor(ring.get('device-4')!, 4242)
    const stranger = rpaFor(parseIdentityKey('stranger', keyHex(200)), 4242)
    for (let i = 0; i < 5; i++) {
      expect(resolver.resolve(mine)).toBe('device-4')
      expect(resolver.resolve(stranger)).toBeUndefined()
    }
    expect(resolver.stats).toEqual({
      resolved: 1,
      unresolved: 1,
      cacheHits: 8,
      evictions: 0,
      notResolvable: 0,
      cached: 2,
      keys: 10,
    })
  })

  it('stays within its cache bound under 20,000 new addresses, keeping the recently used', () => {
    const ring = keyring(3)
    const resolver = new IdentityResolver(ring, { cacheSize: 1000 })
    const phone = rpaFor(ring.get('device-0')!, 1)
    const stranger = parseIdentityKey('stranger', keyHex(123))
    expect(resolver.resolve(phone)).toBe('device-0')
    for (let i = 0; i < 20_000; i++) {
      resolver.resolve(rpaFor(stranger, i + 10))
      // The phone is heard now and then, so it stays among the recently used.
      if (i % 500 === 0) expect(resolver.resolve(phone)).toBe('device-0')
      expect(resolver.stats.cached).toBeLessThanOrEqual(1000)
    }
    const stats = resolver.stats
    // Two generations of 500: between half the bound and the bound after the last swap.
    expect(stats.cached).toBeGreaterThanOrEqual(500)
    expect(stats.evictions).toBe(stats.resolved + stats.unresolved - stats.cached)
    expect(stats.resolved).toBe(1)
    expect(stats.cacheHits).toBe(40)
  })

  it('refuses a cache size that is not a positive integer', () => {
    expect(() => new IdentityResolver(keyring(1), { cacheSize: 1 })).toThrow(/cacheSize/)
    expect(() => new IdentityResolver(keyring(1), { cacheSize: 1.5 })).toThrow(/cacheSize/)
  })

  it('holds no key in JSON or util.inspect', async () => {
    const { inspect } = await import('node:util')
    const resolver = new IdentityResolver([parseIdentityKey('sample', SPEC_IRK)])
    resolver.resolve('70:81:94:0d:fb:aa')
    for (const text of [
      JSON.stringify(resolver),
      inspect(resolver, { depth: 10, showHidden: true }),
      String(resolver),
    ]) {
      expect(text.toLowerCase()).not.toContain(SPEC_IRK)
      expect(text).not.toContain('70:81:94:0d:fb:aa')
    }
  })
})
