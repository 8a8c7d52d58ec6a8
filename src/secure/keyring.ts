/**
 * The broadcast keys a gateway holds, looked up by the key id each encrypted frame carries.
 * Fleets rotate keys, so a keyring holds many at once; a key id maps to at most one key.
 */
import { inspect } from 'node:util'
import { BroadcastKeyError, InvalidOptionError } from '../errors.js'
import { BroadcastKey, keyMaterial, parseBroadcastKey } from './broadcast-key.js'
import type { KeyMaterial, ParseBroadcastKeyOptions } from './broadcast-key.js'
import { BlockCache } from './block-cache.js'
import { keyLines } from './key-lines.js'
import { pathForMessage, readSecretFile } from './secret-file.js'

interface KeyringState {
  /** Key id as a u16 → key; a Map keeps insertion order for keyIds(). */
  readonly byId: Map<number, { key: BroadcastKey; material: KeyMaterial }>
  /** Decrypted blocks of recent frames; created on first use, cleared whenever keys change. */
  cache: BlockCache | undefined
  /** Bumped on every change of keys, so caches of decoded frames elsewhere can tell. */
  version: number
}

// Assigned in Keyring's static block so the decryption path can reach the private state
// without making it part of the public class.
let stateOf: (keyring: Keyring) => KeyringState

/**
 * A set of broadcast keys, at most one per key id, with O(1) lookup by key id.
 * Nothing about it prints key material: JSON and `util.inspect` show the key ids only.
 */
export class Keyring {
  readonly #state: KeyringState = { byId: new Map(), cache: undefined, version: 0 }

  static {
    stateOf = (k) => k.#state
  }

  /**
   * @param keys parsed keys or key strings (parsed with the current time).
   * @throws BroadcastKeyError for a bad key string or a second key with the same key id.
   */
  constructor(keys?: Iterable<BroadcastKey | string>) {
    if (keys !== undefined) for (const k of keys) this.add(k)
  }

  /**
   * Reads a keys file: one key per line (raw or operator-wrapped form), `#` starts a comment,
   * blank lines are ignored; lines may end with LF, CR LF or CR. The file must be a regular
   * file (a FIFO would block).
   * @throws InvalidOptionError `file_not_found` / `unreadable_file` / `not_a_file`;
   *   BroadcastKeyError naming the file and line number (never the key).
   */
  static async fromFile(path: string, options: ParseBroadcastKeyOptions = {}): Promise<Keyring> {
    const { text } = await readSecretFile(path, 'Keys file', 'keysFile')
    return Keyring.fromText(text, { ...options, source: `keys file ${pathForMessage(path)}` })
  }

  /** Like {@link Keyring.fromFile}, from the file's text. */
  static fromText(text: string, options: ParseBroadcastKeyOptions & { source?: string } = {}): Keyring {
    const ring = new Keyring()
    const source = options.source ?? 'keys text'
    for (const { line, text: keyText } of keyLines(text)) {
      try {
        ring.add(parseBroadcastKey(keyText, options))
      } catch (err) {
        if (!(err instanceof BroadcastKeyError)) throw err
        throw new BroadcastKeyError(err.code, `${source}, line ${line}: ${err.message}`, {
          keyId: err.keyId,
          expiresAt: err.expiresAt,
        })
      }
    }
    return ring
  }

  /**
   * Adds a key (a string is parsed first, with the current time). Adding the very same key
   * again is a no-op.
   * @throws BroadcastKeyError `duplicate_key_id` when a different key with that id is present;
   *   `malformed` for key id 0000 (reserved for plaintext frames) and bad strings.
   */
  add(key: BroadcastKey | string): this {
    const k = typeof key === 'string' ? parseBroadcastKey(key) : key
    if (!(k instanceof BroadcastKey)) {
      throw new BroadcastKeyError(
        'malformed',
        'Keyring.add() takes a key string or a BroadcastKey from parseBroadcastKey().',
      )
    }
    const id = parseInt(k.keyId, 16)
    if (id === 0) {
      throw new BroadcastKeyError(
        'malformed',
        'A broadcast key with key id 0000 cannot be used: that id marks plaintext frames. ' +
          'Ask the operator for a new key.',
        {
          keyId: k.keyId,
        },
      )
    }
    const state = this.#state
    const present = state.byId.get(id)
    if (present !== undefined) {
      if (present.key.equals(k)) return this
      throw new BroadcastKeyError(
        'duplicate_key_id',
        `The keyring already holds a different key with key id ${k.keyId}; ` +
          `remove it first (keyring.remove('${k.keyId}')) or keep only one of the two.`,
        { keyId: k.keyId },
      )
    }
    state.byId.set(id, { key: k, material: keyMaterial(k) })
    state.cache?.clear()
    state.version++
    return this
  }

  /** Removes the key with this key id (4 hex digits or a number); true if one was removed. */
  remove(keyId: string | number): boolean {
    const state = this.#state
    const removed = state.byId.delete(toId(keyId))
    if (removed) {
      state.cache?.clear()
      state.version++
    }
    return removed
  }

  /** True when a key with this key id is present. */
  has(keyId: string | number): boolean {
    return this.#state.byId.has(toId(keyId))
  }

  /** The key with this key id (its material stays hidden), if present. */
  get(keyId: string | number): BroadcastKey | undefined {
    return this.#state.byId.get(toId(keyId))?.key
  }

  /** The key ids held, 4 lower-case hex digits each, in the order they were added. */
  keyIds(): string[] {
    return [...this.#state.byId.values()].map((e) => e.key.keyId)
  }

  /** Number of keys held. */
  get size(): number {
    return this.#state.byId.size
  }

  /** JSON shows the key ids only. */
  toJSON(): { keyIds: string[] } {
    return { keyIds: this.keyIds() }
  }

  /** `Keyring(<n> keys: <ids>)`. */
  toString(): string {
    return `Keyring(${this.size} keys: ${this.keyIds().join(', ')})`
  }

  /** What `util.inspect` and `console.log` show: the key ids only. */
  [inspect.custom](): string {
    return `Keyring { size: ${this.size}, keyIds: [${this.keyIds()
      .map((id) => `'${id}'`)
      .join(', ')}] }`
  }
}

function toId(keyId: string | number): number {
  if (typeof keyId === 'number' && Number.isInteger(keyId) && keyId >= 0 && keyId <= 0xffff) return keyId
  if (typeof keyId === 'string' && /^[0-9a-fA-F]{4}$/.test(keyId)) return parseInt(keyId, 16)
  throw new InvalidOptionError(
    'invalid_option',
    "A key id is 4 hex digits (e.g. '6016') or a number 0..65535; " +
      `got ${typeof keyId === 'string' ? JSON.stringify(keyId.slice(0, 8)) : String(keyId)}.`,
    {
      option: 'keyId',
    },
  )
}

/**
 * @internal Decrypts the 16-byte block at `payload[7..22]` of an encrypted 0x81E7 frame into
 * `out[0..15]` with the key for `keyId` (u16) and the frame's random code `payload[5..6]`.
 * Returns false (and leaves `out` alone) when the keyring holds no key with that id.
 * Repeats of a recent frame are answered from a bounded cache instead of decrypting again.
 */
export function decryptFrameBlock(keyring: Keyring, keyId: number, payload: Uint8Array, out: Uint8Array): boolean {
  const state = stateOf(keyring)
  const entry = state.byId.get(keyId)
  if (entry === undefined) return false
  const cache = (state.cache ??= new BlockCache())
  cache.decrypt(entry.material, keyId, payload, out)
  return true
}

/**
 * @internal A number that changes whenever keys are added to or removed from `keyring`: a
 * cache of decoded frames (the Decoder's per-address cache) must drop encrypted results when it
 * changes, or a key added at run time would not take effect for unchanged payloads.
 */
export function keyringVersion(keyring: Keyring): number {
  return stateOf(keyring).version
}
