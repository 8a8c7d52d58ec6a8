/**
 * The ESPHome keys file (`--esphome-keys <file>`): one line per encrypted proxy,
 * `<host>:<port> <base64 key>`, the key the device's `api: encryption: key:` (32 bytes in
 * base64); `#` starts a comment. A proxy without a line is plaintext. The file holds secrets: it
 * is read like the broadcast keys file (a plain file, bounded: src/secure/secret-file.ts) and
 * refused when other users can read it; the keys never appear in messages, JSON or inspect.
 */
import { inspect } from 'node:util'
import { InvalidOptionError } from '../../errors.js'
import { keyLines } from '../../secure/key-lines.js'
import { pathForMessage, readSecretFile } from '../../secure/secret-file.js'
import { parseEspHomeTarget, targetText } from './target.js'
import type { EspHomeTarget } from './target.js'

/** Canonical base64 of 32 bytes: 43 characters and one `=`. */
const BASE64_32 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/

/** The encryption keys of a site's proxies, by `host:port`. */
export class EspHomeKeys {
  readonly #keys = new Map<string, Buffer>()

  /**
   * Reads a keys file. @throws InvalidOptionError (option `esphomeKeys`): `file_not_found`,
   *   `unreadable_file`, `not_a_file`, `config_not_private` (readable by others: chmod 600),
   *   `invalid_option` naming the line (never the key).
   */
  static async fromFile(path: string): Promise<EspHomeKeys> {
    const file = await readSecretFile(path, 'ESPHome keys file', 'esphomeKeys')
    const shown = pathForMessage(path)
    if (file.exposed)
      throw new InvalidOptionError(
        'config_not_private',
        `ESPHome keys file ${shown} can be read by other users (mode ` +
          `${file.mode.toString(8).padStart(4, '0')}); protect it with chmod 600 ${shown}`,
        { option: 'esphomeKeys' },
      )
    return EspHomeKeys.fromText(file.text, `ESPHome keys file ${shown}`)
  }

  /** Like {@link fromFile}, from the text. */
  static fromText(text: string, source = 'ESPHome keys'): EspHomeKeys {
    const keys = new EspHomeKeys()
    for (const { line, text: entry } of keyLines(text)) {
      const fail = (why: string): never => {
        throw new InvalidOptionError('invalid_option', `${source}, line ${line}: ${why}`, { option: 'esphomeKeys' })
      }
      const parts = entry.split(/\s+/)
      if (parts.length !== 2) fail('expected <host>:<port> <base64 key> (the device\'s "api: encryption: key:")')
      const target = parseEspHomeTarget(parts[0])
      if (target === undefined || !/:\d+$/.test(parts[0]))
        fail('the first word must be <host>:<port>, e.g. hall-proxy.local:6053')
      if (!BASE64_32.test(parts[1]))
        fail('the key must be 32 bytes in base64 (44 characters ending in =), as ESPHome writes it')
      const at = targetText(target as EspHomeTarget)
      if (keys.#keys.has(at)) fail(`a second key for ${at}; keep one line per proxy`)
      keys.#keys.set(at, Buffer.from(parts[1], 'base64'))
    }
    return keys
  }

  /** The key of this proxy, or undefined (plaintext). */
  get(target: EspHomeTarget): Uint8Array | undefined {
    return this.#keys.get(targetText(target))
  }

  /** The proxies that have a key, as `host:port`. */
  targets(): string[] {
    return [...this.#keys.keys()]
  }

  get size(): number {
    return this.#keys.size
  }

  /** JSON shows the targets only. */
  toJSON(): { targets: string[] } {
    return { targets: this.targets() }
  }

  toString(): string {
    return `EspHomeKeys(${this.size} proxies: ${this.targets().join(', ')})`
  }

  /** What `util.inspect` and `console.log` show: the targets only. */
  [inspect.custom](): string {
    return `EspHomeKeys { size: ${this.size}, targets: [${this.targets().join(', ')}] }`
  }
}
