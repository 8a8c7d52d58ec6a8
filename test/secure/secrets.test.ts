/** Key material must not leak through the objects that hold keys: decoder, scanner, errors. */
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { Decoder } from '../../src/decode/decoder.js'
import { BroadcastKeyError } from '../../src/errors.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { Keyring } from '../../src/secure/keyring.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { randomKeyString, secretFragments, seeded } from './helpers.js'

const rand = seeded(77)
const KEYS = [randomKeyString(rand, 0x0101), randomKeyString(rand, 0x0202)]

function expectClean(text: string): void {
  for (const k of KEYS) for (const f of secretFragments(k)) expect(text).not.toContain(f)
}

function safeJson(value: unknown): string {
  const seen = new WeakSet<object>()
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[circular]'
      seen.add(v)
    }
    return typeof v === 'bigint' ? String(v) : v
  })
}

describe('objects holding keys print no key material', () => {
  it('a Decoder with a keyring', () => {
    const decoder = new Decoder({ keyring: new Keyring(KEYS) })
    const out = [inspect(decoder, { showHidden: true, depth: Infinity }), safeJson(decoder), String(decoder)]
    out.forEach(expectClean)
    expect(out[0]).toContain('0101')
  })

  it('a BeaconScanner given key strings', () => {
    const scanner = new BeaconScanner({ source: new ReplaySource([], { virtual: true }), keys: KEYS })
    for (const out of [inspect(scanner, { showHidden: true, depth: 6 }), safeJson(scanner), String(scanner)]) expectClean(out)
  })

  it('a scanner refusing a corrupted key says which key id, not the key', () => {
    const corrupt = KEYS[0].slice(0, 39) + (KEYS[0].endsWith('0') ? '1' : '0')
    let error: unknown
    try {
      new BeaconScanner({ source: new ReplaySource([], { virtual: true }), keys: [corrupt] })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(BroadcastKeyError)
    const e = error as BroadcastKeyError
    expect(e.code).toBe('digest_mismatch')
    for (const f of secretFragments(corrupt)) {
      expect(e.message).not.toContain(f)
      expect(inspect(e)).not.toContain(f)
      expect(String(e.stack)).not.toContain(f)
    }
  })
})
