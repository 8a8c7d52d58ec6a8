/**
 * Broadcast key strings (docs/private-broadcast.md): the raw 40-hex form and the operator-wrapped
 * 90-character form, parsed into a {@link BroadcastKey} whose key material cannot be printed.
 */
import { createDecipheriv, createHash } from 'node:crypto'
import { inspect } from 'node:util'
import { BroadcastKeyError } from '../errors.js'

/**
 * What the decryption path needs from a key, computed once per key: the first 14 key bytes as
 * the top 112 bits of the per-frame AES key. Word 3 still needs the frame's random code.
 */
export interface KeyMaterial {
  readonly w0: number
  readonly w1: number
  readonly w2: number
  /** Key bytes 12..13 in the top half; the random code fills the low half per frame. */
  readonly w3hi: number
  /** The 14 key bytes (a private copy). */
  readonly bytes: Uint8Array
}

// Assigned inside BroadcastKey's static block: the only way to reach the #private material,
// and it is not exported from the package index.
let materialOf: (key: BroadcastKey) => KeyMaterial
// Only this module can construct keys, so every BroadcastKey has passed the digest check.
const constructToken = Symbol('BroadcastKey')

/**
 * A parsed broadcast key. Only `keyId` and `expiresAt` are visible: the 14-byte key is held in
 * a private field, and JSON, `util.inspect`, `String()` and spreading show only the key id.
 * Create one with {@link parseBroadcastKey}.
 */
export class BroadcastKey {
  /** The key id the broadcasts carry, 4 lower-case hex digits. Public: every frame shows it. */
  readonly keyId: string
  /** For an operator-wrapped key: when it stops being valid. Raw keys do not expire. */
  declare readonly expiresAt?: Date
  readonly #material: KeyMaterial

  static {
    materialOf = (key) => key.#material
  }

  /** @internal Use {@link parseBroadcastKey}. */
  constructor(key14: Uint8Array, keyId: string, expiresAt: Date | undefined, token: symbol) {
    if (token !== constructToken) throw new TypeError('use parseBroadcastKey() to create a BroadcastKey')
    const bytes = Uint8Array.from(key14)
    this.#material = Object.freeze({
      w0: ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0,
      w1: ((bytes[4] << 24) | (bytes[5] << 16) | (bytes[6] << 8) | bytes[7]) >>> 0,
      w2: ((bytes[8] << 24) | (bytes[9] << 16) | (bytes[10] << 8) | bytes[11]) >>> 0,
      w3hi: ((bytes[12] << 24) | (bytes[13] << 16)) >>> 0,
      bytes,
    })
    this.keyId = keyId
    if (expiresAt !== undefined) this.expiresAt = expiresAt
    Object.freeze(this)
  }

  /** True when both keys hold the same key material and key id (a constant-time compare). */
  equals(other: BroadcastKey): boolean {
    if (!(other instanceof BroadcastKey)) return false
    const a = this.#material.bytes
    const b = materialOf(other).bytes
    let diff = this.keyId === other.keyId ? 0 : 1
    for (let i = 0; i < 14; i++) diff |= a[i] ^ b[i]
    return diff === 0
  }

  /** JSON shows the key id and expiry only. */
  toJSON(): { keyId: string; expiresAt?: string } {
    return this.expiresAt === undefined
      ? { keyId: this.keyId }
      : { keyId: this.keyId, expiresAt: this.expiresAt.toISOString() }
  }

  /** `BroadcastKey(<keyId>)`: never the key. */
  toString(): string {
    return `BroadcastKey(${this.keyId})`
  }

  /** What `util.inspect` and `console.log` show: the key id and expiry, never the key. */
  [inspect.custom](): string {
    const exp = this.expiresAt === undefined ? '' : `, expiresAt: ${this.expiresAt.toISOString()}`
    return `BroadcastKey { keyId: '${this.keyId}'${exp} }`
  }
}

/** @internal The key material, for the decryption path only. */
export function keyMaterial(key: BroadcastKey): KeyMaterial {
  return materialOf(key)
}

/** Options of {@link parseBroadcastKey}. */
export interface ParseBroadcastKeyOptions {
  /** The time to check expiry against (default: now). */
  now?: Date | number
}

const RAW_LENGTH = 40
const WRAPPED_LENGTH = 90
const HEX40 = /^[0-9a-fA-F]{40}$/
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
// The operator's wrapping key is public by design (docs/private-broadcast.md): it hides keys from casual
// eyes, it does not protect them.
const WRAP_KEY = (() => {
  const k = Buffer.alloc(32)
  k.write('password', 'utf8')
  return k
})()

const WHAT_TO_DO =
  'Copy the key again exactly as the operator issued it (40 hex digits, or 90 characters starting with "01").'

/**
 * Whether `text` has the shape of a broadcast key (raw hex or operator-wrapped base64), even
 * a damaged one. Used to keep a key typed where a path goes (`--keys-file <key>`) out of
 * error messages: anything that looks like a key is treated as one.
 */
export function looksLikeBroadcastKey(text: string): boolean {
  const s = text.trim()
  return /^[0-9a-fA-F]{32,}$/.test(s) || (s.length >= 40 && BASE64.test(s) && /\d/.test(s))
}

/**
 * Parses a broadcast key string: the raw form (40 hex digits: key ‖ key id ‖ digest) or the
 * operator-wrapped form (90 characters, version `01`, with an expiry). Surrounding whitespace
 * is ignored; hex is case-insensitive.
 *
 * @throws BroadcastKeyError `malformed` (not a key string), `digest_mismatch` (corrupted key),
 *   `expired` (a wrapped key past its expiry; the error carries `expiresAt`). Messages never
 *   contain the key text.
 */
export function parseBroadcastKey(text: string, options: ParseBroadcastKeyOptions = {}): BroadcastKey {
  if (typeof text !== 'string') {
    throw new BroadcastKeyError(
      'malformed',
      `A broadcast key must be a string, got ${text === null ? 'null' : typeof text}. ${WHAT_TO_DO}`,
    )
  }
  const s = text.trim()
  if (s.length === RAW_LENGTH) {
    if (!HEX40.test(s)) {
      throw new BroadcastKeyError(
        'malformed',
        `The 40-character broadcast key contains characters other than hex digits. ${WHAT_TO_DO}`,
      )
    }
    return fromRaw(s, undefined)
  }
  if (s.length === WRAPPED_LENGTH) return fromWrapped(s, nowMs(options.now))
  throw new BroadcastKeyError(
    'malformed',
    'A broadcast key has 40 hex digits (raw form) or 90 characters (operator-wrapped form); ' +
      `this one has ${s.length} characters. ${WHAT_TO_DO}`,
  )
}

function nowMs(now: Date | number | undefined): number {
  if (now === undefined) return Date.now()
  const ms = typeof now === 'number' ? now : now.getTime()
  if (!Number.isFinite(ms)) throw new TypeError('options.now must be a valid Date or a number of milliseconds')
  return ms
}

function fromRaw(hex: string, expiresAt: Date | undefined): BroadcastKey {
  const bytes = Buffer.from(hex, 'hex')
  const keyId = hex.slice(28, 32).toLowerCase()
  const digest = createHash('sha1').update(bytes.subarray(0, 16)).digest()
  let diff = 0
  for (let i = 0; i < 4; i++) diff |= digest[i] ^ bytes[16 + i]
  if (diff !== 0) {
    bytes.fill(0)
    throw new BroadcastKeyError(
      'digest_mismatch',
      `The broadcast key with key id ${keyId} fails its digest check: ` +
        `a digit was changed, lost or mistyped. ${WHAT_TO_DO}`,
      { keyId },
    )
  }
  const key = new BroadcastKey(bytes.subarray(0, 14), keyId, expiresAt, constructToken)
  bytes.fill(0)
  return key
}

function fromWrapped(s: string, now: number): BroadcastKey {
  if (!s.startsWith('01')) {
    throw new BroadcastKeyError(
      'malformed',
      `A 90-character broadcast key must start with the version "01"; this one does not. ${WHAT_TO_DO}`,
    )
  }
  const body = s.slice(2)
  if (!BASE64.test(body)) {
    throw new BroadcastKeyError(
      'malformed',
      `The operator-wrapped broadcast key is not valid Base64 after its "01" prefix. ${WHAT_TO_DO}`,
    )
  }
  let plain: string
  try {
    const d = createDecipheriv('aes-256-cbc', WRAP_KEY, Buffer.alloc(16))
    plain = Buffer.concat([d.update(Buffer.from(body, 'base64')), d.final()]).toString('latin1')
  } catch {
    // The cause is dropped on purpose: it says nothing useful and must not carry key bytes.
    throw new BroadcastKeyError(
      'malformed',
      `The operator-wrapped broadcast key does not unwrap (damaged or truncated). ${WHAT_TO_DO}`,
    )
  }
  const raw = plain.slice(0, RAW_LENGTH)
  const expiryHex = plain.slice(RAW_LENGTH)
  if (!HEX40.test(raw) || !/^[0-9a-fA-F]{1,13}$/.test(expiryHex)) {
    throw new BroadcastKeyError(
      'malformed',
      `The operator-wrapped broadcast key unwraps to an unexpected format. ${WHAT_TO_DO}`,
    )
  }
  const expiresAt = new Date(parseInt(expiryHex, 16) * 1000)
  const key = fromRaw(raw, expiresAt)
  if (now >= expiresAt.getTime()) {
    throw new BroadcastKeyError(
      'expired',
      `The broadcast key with key id ${key.keyId} expired on ${expiresAt.toISOString()}. ` +
        'Ask the operator for a new key.',
      { keyId: key.keyId, expiresAt },
    )
  }
  return key
}
