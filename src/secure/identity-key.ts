/**
 * Identity resolving keys (IRK, Bluetooth Core spec Vol 3 Part H 2.2.2 and Vol 6 Part B
 * 1.3.2.2): a phone or watch advertises from a resolvable private address that changes every
 * few minutes; the key it shared when it was paired says which addresses are its own.
 * A key lets whoever holds it follow the device, so it is a secret like a broadcast key: the
 * 16 key bytes live in a private field and nothing prints them.
 */
import { inspect } from 'node:util'
import { IdentityKeyError } from '../errors.js'
import { HEX_LOWER } from '../util/hex.js'
import { looksLikeBroadcastKey } from './broadcast-key.js'
import { aes128EncryptWith, aes128KeySchedule, type AesKeySchedule } from './crypto.js'

/** What a key name may be: it becomes the device id `irk:<name>` and an MQTT topic level. */
export const IDENTITY_NAME = /^[A-Za-z0-9_.-]{1,64}$/

const HEX32 = /^[0-9a-fA-F]{32}$/

/** A name for a message: never something that could be a key typed in the wrong column. */
export function shownName(name: string): string {
  return looksLikeBroadcastKey(name) ? '(a name that looks like a key)' : name
}

/** What resolution needs of a key, computed once: its AES key schedule. */
interface IdentityMaterial {
  readonly schedule: AesKeySchedule
  /** The 16 key bytes, most significant first (a private copy). */
  readonly bytes: Uint8Array
}

// Assigned in IdentityKey's static block: the only way to reach the #private material.
let materialOf: (key: IdentityKey) => IdentityMaterial
const constructToken = Symbol('IdentityKey')

/**
 * One named identity resolving key. Only `name` is visible: JSON, `util.inspect`, `String()`
 * and spreading show the name alone. Create one with {@link parseIdentityKey}.
 */
export class IdentityKey {
  /** The device's name, as the IRK file gives it; the tracked device is `irk:<name>`. */
  readonly name: string
  readonly #material: IdentityMaterial

  static {
    materialOf = (key) => key.#material
  }

  /** @internal Use {@link parseIdentityKey}. */
  constructor(name: string, key16: Uint8Array, token: symbol) {
    if (token !== constructToken) throw new TypeError('use parseIdentityKey() to create an IdentityKey')
    const bytes = Uint8Array.from(key16)
    this.#material = Object.freeze({ schedule: aes128KeySchedule(bytes), bytes })
    this.name = name
    Object.freeze(this)
  }

  /** True when both hold the same 16 key bytes, whatever their names (a constant-time compare). */
  sameKey(other: IdentityKey): boolean {
    if (!(other instanceof IdentityKey)) return false
    const a = this.#material.bytes
    const b = materialOf(other).bytes
    let diff = 0
    for (let i = 0; i < 16; i++) diff |= a[i] ^ b[i]
    return diff === 0
  }

  /** JSON shows the name only. */
  toJSON(): { name: string } {
    return { name: this.name }
  }

  /** `IdentityKey(<name>)`: never the key. */
  toString(): string {
    return `IdentityKey(${this.name})`
  }

  /** What `util.inspect` and `console.log` show: the name, never the key. */
  [inspect.custom](): string {
    return `IdentityKey { name: '${this.name}' }`
  }
}

/**
 * Parses a key as the spec writes it: 32 hex digits, most significant byte first (BlueZ stores
 * them the other way round; see importBluezIdentityKeys).
 * @throws IdentityKeyError `invalid_name` or `malformed` (not 32 hex digits, or all zeros, the
 *   value BlueZ and controllers use for "no key"); messages never contain the key text
 */
export function parseIdentityKey(name: string, hex: string): IdentityKey {
  if (typeof name !== 'string' || !IDENTITY_NAME.test(name)) {
    throw new IdentityKeyError(
      'invalid_name',
      'A key name is 1 to 64 letters, digits, "_", "." or "-" (it becomes the device id irk:<name>).',
    )
  }
  if (typeof hex !== 'string' || !HEX32.test(hex)) {
    throw new IdentityKeyError(
      'malformed',
      `The key of ${shownName(name)} is not 32 hex digits ` +
        '(16 bytes, most significant first, as the Bluetooth spec writes keys).',
    )
  }
  const bytes = Buffer.from(hex, 'hex')
  const zero = bytes.every((b) => b === 0)
  try {
    if (zero)
      throw new IdentityKeyError(
        'malformed',
        `The key of ${shownName(name)} is all zeros: that is "no key", not a key.`,
      )
    return new IdentityKey(name, bytes, constructToken)
  } finally {
    bytes.fill(0)
  }
}

/** The key's 32 hex digits, lower-case, most significant first. @internal For matching, never for printing. */
export function identityKeyHex(key: IdentityKey): string {
  const b = materialOf(key).bytes
  let s = ''
  for (let i = 0; i < 16; i++) s += HEX_LOWER[b[i]]
  return s
}

/** @internal The key's AES schedule, for the resolver. */
export function identityKeySchedule(key: IdentityKey): AesKeySchedule {
  return materialOf(key).schedule
}

// One block of scratch space: JS runs one call at a time, and resolution must not allocate.
const BLOCK = new Uint8Array(16)
const OUT = new Uint8Array(16)

/**
 * The spec's random address hash function ah(k, r): the low 24 bits of AES-128 under `k` of
 * 13 zero bytes followed by the 24-bit `prand` (most significant byte first).
 */
export function identityHash(schedule: AesKeySchedule, prand: number): number {
  BLOCK[13] = (prand >>> 16) & 255
  BLOCK[14] = (prand >>> 8) & 255
  BLOCK[15] = prand & 255
  aes128EncryptWith(schedule, BLOCK, 0, OUT, 0)
  return (OUT[13] << 16) | (OUT[14] << 8) | OUT[15]
}

/**
 * A resolvable private address of `key`, as a device would make one (for tests, the simulator
 * and the bench): `prand` is the top two bits `01` and 22 bits of `random`, the low 24 bits
 * are its hash. The random part is neither all zeros nor all ones, as the spec requires.
 */
export function rpaFor(key: IdentityKey, random: number): string {
  let bits = Math.floor(Math.abs(random)) & 0x3fffff
  if (bits === 0 || bits === 0x3fffff) bits ^= 1
  const prand = 0x400000 | bits
  const hash = identityHash(identityKeySchedule(key), prand)
  return [prand >>> 16, (prand >>> 8) & 255, prand & 255, hash >>> 16, (hash >>> 8) & 255, hash & 255]
    .map((b) => HEX_LOWER[b])
    .join(':')
}
