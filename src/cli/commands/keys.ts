/**
 * Broadcast keys on the command line: building the keyring from `--key` / `--keys-file`,
 * and `beaconkit keys check`. Keys are secrets: nothing here prints one, only key ids.
 */

import { BroadcastKeyError } from '../../errors.js'
import { parseBroadcastKey } from '../../secure/broadcast-key.js'
import { keyLines } from '../../secure/key-lines.js'
import { Keyring } from '../../secure/keyring.js'
import { noKeys, readKeysFile } from '../../gateway/settings/keys.js'
import { fail, quote, str, bool } from '../arg-values.js'
import { defineCommand, optional } from './command.js'

/** Where `keys check` writes its verdicts. */
export interface Output {
  write(text: string): unknown
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
  /** What is wrong and what to do (never the key); for a valid key, a note such as a harmless repeat. */
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
    return `${where}valid: ${id}, ${expiry}${v.message === undefined ? '' : ` (${v.message})`}`
  }
  const label = v.status === 'corrupted' ? 'corrupted' : v.status
  return `${where}${label}: ${v.message ?? ''}`
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Verdicts for every key line of a keys file (`#` comments and blank lines skipped). A key
 * is judged as {@link Keyring.fromText} would take it: the same lines, and a second key with
 * a key id already present is a duplicate, while the very same key again is harmless.
 */
export function checkKeysText(text: string, now?: number): KeyVerdict[] {
  const verdicts: KeyVerdict[] = []
  const ring = new Keyring()
  const firstLine = new Map<string, number>()
  for (const { line, text: keyText } of keyLines(text)) {
    const v: KeyVerdict = { line, ...checkKey(keyText, now) }
    if (v.valid && v.keyId !== undefined) {
      try {
        ring.add(parseBroadcastKey(keyText, now === undefined ? {} : { now }))
        if (firstLine.has(v.keyId)) v.message = `the same key as line ${firstLine.get(v.keyId)}; the repeat is ignored`
        else firstLine.set(v.keyId, line)
      } catch (error) {
        if (!(error instanceof BroadcastKeyError) || error.code !== 'duplicate_key_id') throw error
        v.valid = false
        v.status = 'duplicate'
        v.message =
          `a second, different key with key id ${v.keyId} (line ${firstLine.get(v.keyId)} ` +
          `has the first): a keyring holds one key per id; remove one of them`
      }
    }
    verdicts.push(v)
  }
  return verdicts
}

/**
 * `beaconkit keys check`: prints one verdict per key and returns the exit code
 * (0 when every key is valid, 2 otherwise).
 */
export async function runKeysCheck(
  options: { key?: string; keysFile?: string; json: boolean; now?: number; warn?: (text: string) => void },
  out: Output,
): Promise<number> {
  let verdicts: KeyVerdict[]
  if (options.keysFile !== undefined) {
    verdicts = checkKeysText(await readKeysFile(options.keysFile, options.warn), options.now)
    if (verdicts.length === 0) throw noKeys(options.keysFile)
  } else {
    const text = options.key === '-' ? await readStdin() : (options.key ?? '')
    verdicts = [checkKey(text, options.now)]
  }
  for (const v of verdicts) out.write(options.json ? `${JSON.stringify(v)}\n` : `${formatVerdict(v)}\n`)
  return verdicts.every((v) => v.valid) ? 0 : 2
}

/** What `beaconkit keys check` parses to. */
export interface KeysCheckCommand {
  command: 'keys-check'
  key?: string
  keysFile?: string
  json: boolean
  now?: number
}

/** `beaconkit keys`: its options, help, parser and runner (registered in registry.ts). */
export const keysCommand = defineCommand({
  name: 'keys',
  overview: [['keys check <key>', 'check a broadcast key (never prints it)']],
  options: { json: { type: 'boolean' }, 'keys-file': { type: 'string' }, now: { type: 'string' } },
  help: `Usage: beaconkit keys check <key>
       beaconkit keys check -                (reads the key from standard input)
       beaconkit keys check --keys-file <file>

Checks broadcast keys without printing them: valid, corrupted (digest mismatch or
malformed) or expired, with the key id and the expiry date.

  --keys-file <file>     check every key of a keys file (one per line)
  --now <date>           check the expiry against this date instead of today
  --json                 one JSON object per key
  -h, --help             this help

Exit codes: 0 every key is valid, 2 a key is malformed, corrupted or expired.`,
  parse(values, pos): KeysCheckCommand {
    const command = 'keys'
    const [sub, key, ...extra] = pos
    if (sub !== 'check')
      fail(
        'argument',
        `usage: beaconkit keys check <key> | beaconkit keys check --keys-file ` +
          `<file>${sub === undefined ? '' : `; unknown keys command ${quote(sub)}`}`,
        command,
      )
    const keysFile = str(values, 'keys-file')
    if (extra.length > 0) fail('argument', 'keys check takes one key; put several in a --keys-file', command)
    if (key === undefined && keysFile === undefined)
      fail(
        'argument',
        'missing argument: beaconkit keys check <key> (or - to read it from standard input, or --keys-file <file>)',
        command,
      )
    if (key !== undefined && keysFile !== undefined)
      fail('keys-file', 'give either a key or --keys-file, not both', command)
    const nowText = str(values, 'now')
    let now: number | undefined
    if (nowText !== undefined) {
      now = Date.parse(nowText)
      if (!Number.isFinite(now))
        fail('now', `--now takes a date such as 2015-06-01T00:00:00Z, not ${quote(nowText)}`, command)
    }
    return {
      command: 'keys-check',
      json: bool(values, 'json'),
      ...optional('key', key),
      ...optional('keysFile', keysFile),
      ...optional('now', now),
    }
  },
  run: (parsed) =>
    runKeysCheck({ ...parsed, warn: (text) => process.stderr.write(`beaconkit: warning: ${text}\n`) }, process.stdout),
})
