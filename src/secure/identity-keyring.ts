/**
 * The identity resolving keys a gateway or fleet holds, by name, and the IRK file they come
 * from: one `<name> <32 hex digits>` per line (most significant byte first), `#` comments. The
 * file must be private (mode 600), as a key lets whoever holds it follow the device.
 */
import { inspect } from 'node:util'
import { IdentityKeyError } from '../errors.js'
import { IdentityKey, identityKeyHex, parseIdentityKey, shownName } from './identity-key.js'
import { keyLines } from './key-lines.js'
import { pathForMessage, readSecretFile } from './secret-file.js'

/**
 * Keys held at most: resolving a new address costs one AES block per key, so a thousand keys
 * already make every stranger's new address cost a thousand blocks (BENCHMARKS.md "Identity
 * resolving keys"). A household has a handful.
 */
export const MAX_IDENTITY_KEYS = 1000

/**
 * A set of named identity resolving keys: one key per name and one name per key. JSON and
 * `util.inspect` show the names only.
 */
export class IdentityKeyring {
  readonly #byName = new Map<string, IdentityKey>()

  /** @throws IdentityKeyError `duplicate_name`, `duplicate_key` or `too_many_keys` */
  constructor(keys?: Iterable<IdentityKey>) {
    if (keys !== undefined) for (const k of keys) this.add(k)
  }

  /**
   * Reads an IRK file. It must be a regular file no one but its owner can read.
   * @throws InvalidOptionError `file_not_found` / `unreadable_file` / `not_a_file`;
   *   IdentityKeyError `not_private` for a file group or others can read, or naming the line
   *   at fault (never the key)
   */
  static async fromFile(path: string): Promise<IdentityKeyring> {
    const file = await readSecretFile(path, 'IRK file', 'irk-file')
    const shown = pathForMessage(path)
    if (file.exposed) {
      throw new IdentityKeyError(
        'not_private',
        `IRK file ${shown} can be read by other users (mode ${file.mode.toString(8).padStart(4, '0')}): ` +
          `a key lets whoever holds it follow the device. Protect it with chmod 600 ${shown}.`,
      )
    }
    return IdentityKeyring.fromText(file.text, { source: `IRK file ${shown}` })
  }

  /** Like {@link IdentityKeyring.fromFile}, from the file's text (no permission check). */
  static fromText(text: string, options: { source?: string } = {}): IdentityKeyring {
    const source = options.source ?? 'IRK text'
    const ring = new IdentityKeyring()
    const lineOf = new Map<string, number>()
    for (const { line, text: lineText } of keyLines(text)) {
      const fields = lineText.split(/\s+/)
      if (fields.length !== 2) {
        throw new IdentityKeyError(
          'malformed',
          `${source}, line ${line}: expected "<name> <32 hex digits>" (${fields.length} fields found).`,
          { line },
        )
      }
      try {
        const key = parseIdentityKey(fields[0] as string, fields[1] as string)
        ring.add(key)
        lineOf.set(key.name, line)
      } catch (err) {
        if (!(err instanceof IdentityKeyError)) throw err
        const first = err.code === 'duplicate_name' ? lineOf.get(fields[0] as string) : undefined
        const also = first === undefined ? '' : ` (first on line ${first})`
        throw new IdentityKeyError(err.code, `${source}, line ${line}: ${err.message}${also}`, { line })
      }
    }
    return ring
  }

  /**
   * Adds a key; the very same key under the same name again is a no-op.
   * @throws IdentityKeyError `duplicate_name` (another key under this name), `duplicate_key`
   *   (this key under another name) or `too_many_keys`
   */
  add(key: IdentityKey): this {
    if (!(key instanceof IdentityKey)) throw new TypeError('IdentityKeyring.add() takes an IdentityKey')
    const present = this.#byName.get(key.name)
    if (present !== undefined) {
      if (present.sameKey(key)) return this
      throw new IdentityKeyError(
        'duplicate_name',
        `The name ${shownName(key.name)} is given to two different keys; name each device once.`,
      )
    }
    for (const k of this.#byName.values()) {
      if (k.sameKey(key)) {
        throw new IdentityKeyError(
          'duplicate_key',
          `The key of ${shownName(key.name)} is already held as ${shownName(k.name)}; keep one of the two lines.`,
        )
      }
    }
    if (this.#byName.size >= MAX_IDENTITY_KEYS) {
      throw new IdentityKeyError(
        'too_many_keys',
        `At most ${MAX_IDENTITY_KEYS} identity resolving keys are held: each one costs every new address heard.`,
      )
    }
    this.#byName.set(key.name, key)
    return this
  }

  /** The key named `name`, if held (its key bytes stay hidden). */
  get(name: string): IdentityKey | undefined {
    return this.#byName.get(name)
  }

  /**
   * The name of the key whose 32 hex digits (most significant first, any case) are `hex`: an
   * ESPresense node names a device it resolved `irk:<hex>`, and the fleet shows it by name.
   */
  nameForKeyHex(hex: string): string | undefined {
    if (typeof hex !== 'string' || !/^[0-9a-fA-F]{32}$/.test(hex)) return undefined
    const want = hex.toLowerCase()
    for (const k of this.#byName.values()) if (identityKeyHex(k) === want) return k.name
    return undefined
  }

  /** The keys, in the order they were added. */
  keys(): IdentityKey[] {
    return [...this.#byName.values()]
  }

  /** The names, in the order they were added. */
  names(): string[] {
    return [...this.#byName.keys()]
  }

  /** Number of keys held. */
  get size(): number {
    return this.#byName.size
  }

  /** JSON shows the names only. */
  toJSON(): { names: string[] } {
    return { names: this.names() }
  }

  /** `IdentityKeyring(<n> keys: <names>)`. */
  toString(): string {
    return `IdentityKeyring(${this.size} keys: ${this.names().join(', ')})`
  }

  /** What `util.inspect` and `console.log` show: the names only. */
  [inspect.custom](): string {
    return `IdentityKeyring { size: ${this.size}, names: [${this.names()
      .map((n) => `'${n}'`)
      .join(', ')}] }`
  }
}
