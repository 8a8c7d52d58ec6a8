import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { compressUrl, expandUrl } from '../../src/frames/eddystone-url.js'
import { loadVectors } from '../support/vectors.js'

interface UrlVector {
  url: string
  encoded: string
}

const vectors = loadVectors<{ url_compression: UrlVector[] }>('external.json')

const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'))
const expandAll = (b: Uint8Array): string | null => expandUrl(b, 0, b.length)

describe('Eddystone URL compression vectors (external.json url_compression)', () => {
  it.each(vectors.url_compression)('$url', ({ url, encoded }) => {
    expect(Buffer.from(compressUrl(url)).toString('hex')).toBe(encoded)
    expect(expandAll(bytes(encoded))).toBe(url)
  })
})

describe('expandUrl', () => {
  it('expands every scheme prefix', () => {
    expect(expandAll(bytes('00'))).toBe('http://www.')
    expect(expandAll(bytes('01'))).toBe('https://www.')
    expect(expandAll(bytes('02'))).toBe('http://')
    expect(expandAll(bytes('03'))).toBe('https://')
  })

  it('expands all fourteen expansion codes', () => {
    const expected = [
      '.com/', '.org/', '.edu/', '.net/', '.info/', '.biz/', '.gov/',
      '.com', '.org', '.edu', '.net', '.info', '.biz', '.gov',
    ]
    for (let code = 0; code <= 0x0d; code++) {
      expect(expandAll(Uint8Array.of(0x03, 0x61, code))).toBe(`https://a${expected[code]}`)
    }
  })

  it('rejects reserved scheme bytes 0x04-0xff', () => {
    for (let scheme = 0x04; scheme <= 0xff; scheme++) {
      expect(expandAll(Uint8Array.of(scheme, 0x61))).toBeNull()
    }
  })

  it('rejects every reserved byte 0x0e-0x20 and 0x7f-0xff anywhere in the URL', () => {
    for (let b = 0; b <= 0xff; b++) {
      const reserved = (b >= 0x0e && b <= 0x20) || b >= 0x7f
      const result = expandAll(Uint8Array.of(0x02, 0x61, b, 0x62))
      if (reserved) expect(result, `byte 0x${b.toString(16)}`).toBeNull()
      else expect(result, `byte 0x${b.toString(16)}`).not.toBeNull()
    }
  })

  it('reads only the given range of a larger buffer', () => {
    const buf = bytes('ff02676f6f676c6500ff')
    expect(expandUrl(buf, 1, 9)).toBe('http://google.com/')
  })
})

describe('compressUrl', () => {
  it('prefers the scheme that yields the shorter encoding', () => {
    // "http://www." + "info/" is 5 bytes; "http://" + "www" + ".info/" is 4.
    expect(Buffer.from(compressUrl('http://www.info/')).toString('hex')).toBe('0277777704')
    expect(Buffer.from(compressUrl('https://www.example.com')).toString('hex')).toBe('016578616d706c6507')
  })

  it('accepts an empty remainder and exactly 17 encoded bytes', () => {
    expect(compressUrl('https://')).toEqual(Uint8Array.of(0x03))
    expect(compressUrl(`https://${'a'.repeat(17)}`).length).toBe(18)
  })

  it('throws a typed error for an URL that cannot be broadcast', () => {
    const bad = [
      'ftp://example.com',
      'HTTP://example.com',
      'example.com',
      'https://exa mple.com',
      'https://exämple.com',
      `https://${'a'.repeat(18)}`,
    ]
    for (const url of bad) {
      let caught: unknown
      try {
        compressUrl(url)
      } catch (error) {
        caught = error
      }
      expect(caught, url).toBeInstanceOf(InvalidOptionError)
      expect((caught as InvalidOptionError).code).toBe('invalid_option')
      expect((caught as InvalidOptionError).option).toBe('url')
    }
  })

  it('round-trips any valid encoding, never longer than the original', () => {
    const piece = fc.oneof(fc.integer({ min: 0x00, max: 0x0d }), fc.integer({ min: 0x21, max: 0x7e }))
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.array(piece, { maxLength: 17 }), (scheme, rest) => {
        const original = Uint8Array.of(scheme, ...rest)
        const url = expandAll(original)
        expect(url).not.toBeNull()
        const again = compressUrl(url as string)
        expect(again.length).toBeLessThanOrEqual(original.length)
        expect(expandAll(again)).toBe(url)
      }),
      { numRuns: 500 },
    )
  })
})
