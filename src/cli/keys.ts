/**
 * Broadcast keys on the command line: building the keyring from `--key` / `--keys-file`,
 * and `beaconkit keys check`. Keys are secrets: nothing here prints one, only key ids.
 */

import { readFile } from 'node:fs/promises'
import { BroadcastKeyError, InvalidOptionError } from '../errors.js'
import { parseBroadcastKey } from '../secure/broadcast-key.js'
import { Keyring } from '../secure/keyring.js'

/** Where `keys check` writes its verdicts. */
export interface Output {
  write(text: string): unknown
}

/**
 * The keyring for `--keys-file` and every `--key`, or undefined when neither was given.
 * @throws BroadcastKeyError naming the `--key` by position or the file and line, never the key.
 */
export async function loadKeyring(keys: readonly string[], keysFile: string | undefined, now?: number): Promise<Keyring | undefined> {
  if (keys.length === 0 && keysFile === undefined) return undefined
  const options = now === undefined ? {} : { now }
  const ring = keysFile === undefined ? new Keyring() : await Keyring.fromFile(keysFile, options)
  keys.forEach((text, i) => {
    try {
      ring.add(parseBroadcastKey(text, options))
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

/** The verdict on one key, as `keys check --json` prints it. */
export interface KeyVerdict {
  /** Line of the keys file, when checking one. */
  line?: number
  valid: boolean
  status: 'valid' | 'malformed' | 'corrupted' | 'expired' | 'duplicate'
  keyId?: string
  /** ISO 8601, for keys that carry an expiry. */
  expiresAt?: string
  /** What is wrong and what to do (never the key). */
  message?: string
}

const STATUS: Record<BroadcastKeyError['code'], KeyVerdict['status']> = {
  malformed: 'malformed',
  digest_mismatch: 'corrupted',
  expired: 'expired',
  duplicate_key_id: 'duplicate',
}

/** Checks one key string. */
export function checkKey(text: string, now?: number): KeyVerdict {
  try {
    const key = parseBroadcastKey(text, now === undefined ? {} : { now })
    const verdict: KeyVerdict = { valid: true, status: 'valid', keyId: key.keyId }
    if (key.expiresAt !== undefined) verdict.expiresAt = key.expiresAt.toISOString()
    return verdict
  } catch (error) {
    if (!(error instanceof BroadcastKeyError)) throw error
    const verdict: KeyVerdict = { valid: false, status: STATUS[error.code], message: error.message }
    if (error.keyId !== undefined) verdict.keyId = error.keyId
    if (error.expiresAt !== undefined) verdict.expiresAt = error.expiresAt.toISOString()
    return verdict
  }
}

/** One human-readable line for a verdict. */
export function formatVerdict(v: KeyVerdict): string {
  const where = v.line === undefined ? '' : `line ${v.line}: `
  const id = v.keyId === undefined ? '' : `key id ${v.keyId}`
  if (v.valid) {
    const expiry = v.expiresAt === undefined ? 'does not expire' : `valid until ${v.expiresAt}`
    return `${where}valid: ${id}, ${expiry}`
  }
  const label = v.status === 'corrupted' ? 'corrupted' : v.status
  return `${where}${label}: ${v.message ?? ''}`
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  return Buffer.concat(chunks).toString('utf8')
}

async function readKeysFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new InvalidOptionError('file_not_found', `keys file ${path} does not exist; check the path`, { option: 'keys-file' })
    throw new InvalidOptionError('unreadable_file', `keys file ${path} cannot be read (${code ?? 'error'}); check its permissions`, { option: 'keys-file' })
  }
}

/** Verdicts for every key line of a keys file (`#` comments and blank lines skipped). */
export function checkKeysText(text: string, now?: number): KeyVerdict[] {
  const verdicts: KeyVerdict[] = []
  const seen = new Set<string>()
  text.split(/\r?\n/).forEach((raw, i) => {
    const hash = raw.indexOf('#')
    const line = (hash === -1 ? raw : raw.slice(0, hash)).trim()
    if (line === '') return
    const v: KeyVerdict = { line: i + 1, ...checkKey(line, now) }
    if (v.valid && v.keyId !== undefined) {
      if (seen.has(v.keyId)) {
        v.valid = false
        v.status = 'duplicate'
        v.message = `a second key with key id ${v.keyId}: a keyring holds one key per id; remove one of them`
      }
      seen.add(v.keyId)
    }
    verdicts.push(v)
  })
  return verdicts
}

/**
 * `beaconkit keys check`: prints one verdict per key and returns the exit code
 * (0 when every key is valid, 2 otherwise).
 */
export async function runKeysCheck(
  options: { key?: string; keysFile?: string; json: boolean; now?: number },
  out: Output,
): Promise<number> {
  let verdicts: KeyVerdict[]
  if (options.keysFile !== undefined) {
    verdicts = checkKeysText(await readKeysFile(options.keysFile), options.now)
    if (verdicts.length === 0) {
      throw new InvalidOptionError('invalid_option', `keys file ${options.keysFile} holds no keys (one key per line, # for comments)`, { option: 'keys-file' })
    }
  } else {
    const text = options.key === '-' ? await readStdin() : (options.key ?? '')
    verdicts = [checkKey(text, options.now)]
  }
  for (const v of verdicts) out.write(options.json ? `${JSON.stringify(v)}\n` : `${formatVerdict(v)}\n`)
  return verdicts.every((v) => v.valid) ? 0 : 2
}
