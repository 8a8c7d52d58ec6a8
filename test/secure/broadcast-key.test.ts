import { format, inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { BroadcastKeyError } from '../../src/errors.js'
import { BroadcastKey, parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { secretFragments } from './helpers.js'
import { loadVectors } from '../support/vectors.js'

interface KeySample {
  key: string
  expect: { keyId?: string; valid: boolean; raw?: string; expiresAt?: string; code?: string }
}
const external = loadVectors<{
  broadcast_keys: KeySample[]
}>('external.json')
const RAW = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const WRAPPED = '01Y2GLh1yw3+6Aq0RsnOQ8xNvXTnDUTTLE937Yedd/DnlcV0ixCWo7JQ+VEWRSya80yea6u5aWgnW1ACjKNzFnig=='
const WRAPPED_RAW = '19c6c20ed86ab36167d7fa070d8060166df61f1b'
const WRAPPED_EXPIRY = '2015-12-31T16:00:00.000Z'

function thrown(fn: () => unknown): BroadcastKeyError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(BroadcastKeyError)
    return err as BroadcastKeyError
  }
  throw new Error('expected a BroadcastKeyError')
}

/** Asserts that no fragment of the key text appears in `text`. */
function expectNoSecret(text: string, keyString: string): void {
  if (keyString.length === 40) for (const f of secretFragments(keyString)) expect(text).not.toContain(f)
  if (keyString.length === 90) {
    expect(text).not.toContain(keyString.slice(2, 12))
    expect(text).not.toContain(keyString.slice(40, 50))
  }
}

describe('parseBroadcastKey: the public samples', () => {
  it('accepts the raw sample with key id 0001 and no expiry', () => {
    const key = parseBroadcastKey(RAW)
    expect(key.keyId).toBe('0001')
    expect(key.expiresAt).toBeUndefined()
  })

  it('rejects the wrapped sample today as expired, naming the date and the key id', () => {
    const err = thrown(() => parseBroadcastKey(WRAPPED))
    expect(err.code).toBe('expired')
    expect(err.expiresAt?.toISOString()).toBe(WRAPPED_EXPIRY)
    expect(err.keyId).toBe('6016')
    expect(err.message).toContain(WRAPPED_EXPIRY)
    expect(err.message).toMatch(/new key/)
    expectNoSecret(err.message, WRAPPED_RAW)
    expectNoSecret(err.message, WRAPPED)
  })

  it('accepts the wrapped sample with a `now` before its expiry, unwrapping to the stated raw key', () => {
    const key = parseBroadcastKey(WRAPPED, { now: new Date('2015-12-31T15:59:59Z') })
    expect(key.keyId).toBe('6016')
    expect(key.expiresAt?.toISOString()).toBe(WRAPPED_EXPIRY)
    expect(key.equals(parseBroadcastKey(WRAPPED_RAW))).toBe(true)
    expect(key.equals(parseBroadcastKey(RAW))).toBe(false)
    // expiry is the instant itself: at that millisecond the key is already expired
    expect(thrown(() => parseBroadcastKey(WRAPPED, { now: Date.parse(WRAPPED_EXPIRY) })).code).toBe('expired')
  })

  it('matches every broadcast_keys vector of external.json', () => {
    expect(external.broadcast_keys.length).toBeGreaterThanOrEqual(3)
    for (const sample of external.broadcast_keys) {
      if (sample.expect.valid) {
        expect(parseBroadcastKey(sample.key).keyId).toBe(sample.expect.keyId)
      } else {
        const err = thrown(() => parseBroadcastKey(sample.key))
        expect(err.code).toBe(sample.expect.code)
        expectNoSecret(err.message, sample.key)
      }
      if (sample.expect.raw !== undefined) {
        const now = new Date(Date.parse(sample.expect.expiresAt ?? '') - 1000)
        expect(parseBroadcastKey(sample.key, { now }).equals(parseBroadcastKey(sample.expect.raw))).toBe(true)
      }
    }
  })
})

describe('parseBroadcastKey: input handling', () => {
  it('ignores surrounding whitespace and hex case', () => {
    const key = parseBroadcastKey(`  ${RAW.toUpperCase()}\n`)
    expect(key.keyId).toBe('0001')
    expect(key.equals(parseBroadcastKey(RAW))).toBe(true)
    expect(key.equals({ keyId: '0001' } as unknown as BroadcastKey)).toBe(false)
  })

  it('reports a changed digit as digest_mismatch, naming the key id but not the key', () => {
    const bad = RAW.slice(0, 5) + (RAW[5] === '0' ? '1' : '0') + RAW.slice(6)
    const err = thrown(() => parseBroadcastKey(bad))
    expect(err.code).toBe('digest_mismatch')
    expect(err.message).toMatch(/0001/)
    expect(err.message).toMatch(/copy the key again/i)
    expectNoSecret(err.message, bad)
  })

  it.each([
    ['empty', ''],
    ['too short', RAW.slice(0, 39)],
    ['too long', RAW + '0'],
    ['not hex', RAW.slice(0, 39) + 'g'],
    ['wrapped with another version', '02' + WRAPPED.slice(2)],
    ['wrapped, not Base64', WRAPPED.slice(0, 50) + '!' + WRAPPED.slice(51)],
    ['wrapped, damaged ciphertext', WRAPPED.slice(0, 60) + (WRAPPED[60] === 'A' ? 'B' : 'A') + WRAPPED.slice(61)],
  ])('reports %s input as malformed without echoing it', (_what, text) => {
    const err = thrown(() => parseBroadcastKey(text))
    expect(err.code).toBe('malformed')
    expect(err.message).toMatch(/40 hex digits|Copy the key again/)
    if (text.length >= 20) expectNoSecret(err.message, text.length === 90 ? text : RAW)
    expect(err.cause).toBeUndefined()
  })

  it('reports a non-string as malformed', () => {
    expect(thrown(() => parseBroadcastKey(42 as unknown as string)).code).toBe('malformed')
  })

  it('cannot be constructed except by parsing', () => {
    const Ctor = BroadcastKey as unknown as new (...a: unknown[]) => BroadcastKey
    expect(() => new Ctor(new Uint8Array(14), '0001', undefined, Symbol('BroadcastKey'))).toThrow(TypeError)
  })
})

describe('BroadcastKey keeps its key material out of every printed form', () => {
  const wrappedKey = parseBroadcastKey(WRAPPED, { now: 0 })
  const cases: [string, string, BroadcastKey][] = [
    ['raw', RAW, parseBroadcastKey(RAW)],
    ['wrapped', WRAPPED_RAW, wrappedKey],
  ]
  it.each(cases)('%s key', (_kind, text, key) => {
    const outputs = [
      JSON.stringify(key),
      JSON.stringify({ nested: [key] }),
      inspect(key),
      inspect(key, { showHidden: true, depth: Infinity, customInspect: false }),
      inspect({ key }, { showHidden: true, depth: Infinity }),
      String(key),
      `${key}`,
      format('%o %O %s %j', key, key, key, key),
      JSON.stringify(Object.keys(key)),
      JSON.stringify(Object.getOwnPropertyNames(key)),
      inspect({ ...key }, { showHidden: true }),
      JSON.stringify(Object.entries(key)),
      inspect(structuredClone(key), { showHidden: true }),
    ]
    for (const out of outputs) {
      expectNoSecret(out, text)
      if (out.includes('{') || out.includes('BroadcastKey')) expect(out).toContain(key.keyId)
    }
    expect(JSON.parse(JSON.stringify(key))).toEqual(
      key.expiresAt === undefined ? { keyId: key.keyId } : { keyId: key.keyId, expiresAt: key.expiresAt.toISOString() },
    )
    expect(Object.keys(key).sort()).toEqual(key.expiresAt === undefined ? ['keyId'] : ['expiresAt', 'keyId'])
    expect(String(key)).toBe(`BroadcastKey(${key.keyId})`)
    expect(Object.isFrozen(key)).toBe(true)
  })
})
