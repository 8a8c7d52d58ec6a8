/** Test helpers for the secure tests: deterministic randomness and freshly made key strings. */
import { createHash } from 'node:crypto'
import { seededRandom } from '../../src/util/random.js'

/** A seeded PRNG so statistical tests give the same numbers every run. */
export const seeded = seededRandom

/** `n` bytes from a PRNG. */
export function randomBytes(rand: () => number, n: number): Uint8Array {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256)
  return b
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex')
}

/** A valid raw key string (key14 ‖ keyId ‖ digest) for the given key bytes and key id. */
export function rawKeyString(key14: Uint8Array, keyId: number): string {
  const body = Buffer.concat([Buffer.from(key14), Buffer.from([keyId >> 8, keyId & 0xff])])
  const digest = createHash('sha1').update(body).digest().subarray(0, 4)
  return body.toString('hex') + digest.toString('hex')
}

/** A random valid raw key string; key id random in 1..65535 unless given. */
export function randomKeyString(rand: () => number, keyId?: number): string {
  return rawKeyString(randomBytes(rand, 14), keyId ?? 1 + Math.floor(rand() * 0xffff))
}

/**
 * A 0x81E7 payload: model, firmware, mode, key id (BE), random code (BE) and a 16-byte block.
 */
export function e781Payload(mode: number, keyId: number, randomCode: number, block: Uint8Array, model = 0xc8, firmware = 0x41): Uint8Array {
  const p = new Uint8Array(23)
  p.set([model, firmware, mode, keyId >> 8, keyId & 0xff, randomCode >> 8, randomCode & 0xff])
  p.set(block, 7)
  return p
}

/** Every form of a key string that must never show up in printed output. */
export function secretFragments(keyString: string): string[] {
  const raw = keyString.toLowerCase()
  const key14 = raw.slice(0, 28)
  const bytes = Buffer.from(key14, 'hex')
  return [
    key14.slice(0, 8),
    key14.slice(8, 16),
    key14.slice(16, 24),
    key14.toUpperCase().slice(0, 8),
    // util.inspect of a Buffer/Uint8Array: "<Buffer 7b 4b ..." or "Uint8Array(14) [ 123, 75, ..."
    [...bytes.subarray(0, 3)].map((b) => b.toString(16).padStart(2, '0')).join(' '),
    [...bytes.subarray(0, 3)].join(', '),
    bytes.toString('base64').slice(0, 8),
  ]
}
