/**
 * The model's `keys` section as the scanner's keyring: a keys file and keys given one by one
 * (`keys.keys`, `--key`), read before anything starts so a bad key fails fast. Keys are secrets:
 * nothing here prints one, only key ids, files and lines.
 */

import { BroadcastKeyError, InvalidOptionError } from '../../errors.js'
import { parseBroadcastKey } from '../../secure/broadcast-key.js'
import { Keyring } from '../../secure/keyring.js'
import { IdentityKeyring } from '../../secure/identity-keyring.js'
import { pathForMessage, readSecretFile } from '../../secure/secret-file.js'

/**
 * The keyring for `--keys-file` and every `--key`, or undefined when neither was given.
 * `warn` hears about a keys file other users can read.
 * @throws BroadcastKeyError naming the `--key` by position or the file and line, never the key;
 *   InvalidOptionError for a keys file that is missing, not a plain file, or holds no key.
 */
export async function loadKeyring(
  keys: readonly string[],
  keysFile: string | undefined,
  options: { now?: number; warn?: (text: string) => void } = {},
): Promise<Keyring | undefined> {
  if (keys.length === 0 && keysFile === undefined) return undefined
  const parseOptions = options.now === undefined ? {} : { now: options.now }
  const ring =
    keysFile === undefined
      ? new Keyring()
      : Keyring.fromText(await readKeysFile(keysFile, options.warn), {
          ...parseOptions,
          source: `keys file ${pathForMessage(keysFile)}`,
        })
  if (keysFile !== undefined && ring.size === 0) throw noKeys(keysFile)
  keys.forEach((text, i) => {
    try {
      ring.add(parseBroadcastKey(text, parseOptions))
    } catch (error) {
      if (!(error instanceof BroadcastKeyError)) throw error
      const which = keys.length === 1 ? '--key' : `--key #${i + 1}`
      throw new BroadcastKeyError(error.code, `${which}: ${error.message}`, {
        ...(error.keyId === undefined ? {} : { keyId: error.keyId }),
        ...(error.expiresAt === undefined ? {} : { expiresAt: error.expiresAt }),
      })
    }
  })
  return ring
}

/** The error for a keys file that holds no key. */
export function noKeys(keysFile: string): InvalidOptionError {
  return new InvalidOptionError(
    'invalid_option',
    `keys file ${pathForMessage(keysFile)} holds no keys (one key per line, # for comments)`,
    { option: 'keys-file' },
  )
}

/** A keys file's text; `warn` hears if other users can read it (as ssh warns about a private key). */
export async function readKeysFile(path: string, warn: ((text: string) => void) | undefined): Promise<string> {
  const file = await readSecretFile(path, 'keys file', 'keys-file')
  if (file.exposed && warn !== undefined) {
    const shown = pathForMessage(path)
    warn(
      `keys file ${shown} can be read by other users (mode ` +
        `${file.mode.toString(8).padStart(4, '0')}); protect it with chmod 600 ${shown}`,
    )
  }
  return file.text
}

/**
 * The keyring of the model's `keys` (the file, then each key), or undefined without keys.
 * `warn` hears about a keys file other users can read.
 */
export function keyringOf(model: { keys?: { file?: string; keys?: string[] } }, warn?: (text: string) => void) {
  return loadKeyring(model.keys?.keys ?? [], model.keys?.file, warn === undefined ? {} : { warn })
}

/**
 * The identity resolving keys of the model's `irk.file`, or undefined without one.
 * @throws IdentityKeyError for a file others can read or a bad line (never showing a key)
 */
export function identitiesOf(model: { irk?: { file?: string } }): Promise<IdentityKeyring | undefined> {
  const file = model.irk?.file
  return file === undefined ? Promise.resolve(undefined) : IdentityKeyring.fromFile(file)
}
