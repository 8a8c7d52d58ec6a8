/**
 * Identity resolving keys from where Linux keeps them: BlueZ stores what it learnt when a phone
 * or watch was paired (bonded) in `<dir>/<adapter address>/<device identity address>/info`, a
 * GLib key file with `[General] Name=` and `[IdentityResolvingKey] Key=` (bluez src/adapter.c,
 * `store_irk`). BlueZ writes the 16 key bytes as the kernel's management interface hands them
 * over, least significant byte first (doc/mgmt-protocol.rst: "All fields are in little-endian
 * byte order"), so they are turned round into the spec's order an IRK file uses.
 *
 * The tree is read as hostile input: bounded counts and sizes, an unreadable entry reported and
 * skipped, never a crash, and no key in any message.
 */
import { open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { IdentityKeyError, InvalidOptionError } from '../errors.js'
import { parseIdentityKey } from './identity-key.js'
import { IdentityKeyring } from './identity-keyring.js'

/** Where BlueZ keeps its storage (STORAGEDIR, configure's default). */
export const BLUEZ_STORAGE_DIR = '/var/lib/bluetooth'

/** BlueZ names adapter and device directories by address, upper-case (ba2str). */
const ADDRESS_DIR = /^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$/
/** An `info` file is a few hundred bytes; a bigger one is not BlueZ's. */
const MAX_INFO_BYTES = 64 * 1024
/** Adapters and devices looked at, at most (a Pi has one adapter and a few dozen devices). */
const MAX_ADAPTERS = 16
const MAX_DEVICES = 4096

/** An entry of the tree that could not be used, and why (never a key). */
export interface BluezImportProblem {
  /** `<adapter>/<device>`, or `<adapter>` for an adapter directory. */
  entry: string
  reason: string
}

/** What {@link importBluezIdentityKeys} found. */
export interface BluezImport {
  /** The IRK file text: a header comment, then `<name> <32 hex digits>` per device with a key. */
  text: string
  /** The keys, named as in `text` (for a caller that resolves at once). */
  keyring: IdentityKeyring
  /** Devices looked at. */
  devices: number
  /** Devices without an identity resolving key (classic devices, tags that keep one address): skipped. */
  withoutKey: number
  /** Devices whose key another device already had (paired with two adapters): listed once. */
  duplicates: number
  /** Entries that could not be read or made sense of, skipped. */
  problems: BluezImportProblem[]
}

/** The groups and keys of a GLib key file this needs; later duplicates win, as in GLib. */
function keyFile(text: string): Map<string, Map<string, string>> {
  const groups = new Map<string, Map<string, string>>()
  let group: Map<string, string> | undefined
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    if (line.startsWith('[') && line.endsWith(']')) {
      const name = line.slice(1, -1)
      group = groups.get(name) ?? new Map<string, string>()
      groups.set(name, group)
      continue
    }
    const eq = line.indexOf('=')
    if (group === undefined || eq < 1) continue
    group.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim())
  }
  return groups
}

/** GLib's escapes in a string value (`\s`, `\n`, `\t`, `\r`, `\\`). */
function unescape(value: string): string {
  return value.replace(/\\([sntr\\])/g, (_, c: string) =>
    c === 's' ? ' ' : c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : '\\',
  )
}

/**
 * A valid key name from a device's name: characters outside `[A-Za-z0-9_.-]` become `-`, runs
 * of them one, none at either end, at most 64 characters; the device address when nothing is
 * left. Unique among `taken` by a `-2`, `-3`, … suffix.
 */
export function identityNameFor(deviceName: string | undefined, address: string, taken: Set<string>): string {
  const cleaned = (deviceName ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 64)
    .replace(/[-.]+$/, '')
  const base = cleaned === '' ? `device-${address.replace(/:/g, '').toLowerCase()}` : cleaned
  let name = base
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const suffix = `-${n}`
    name = base.slice(0, 64 - suffix.length) + suffix
  }
  taken.add(name.toLowerCase())
  return name
}

/** BlueZ's stored key (least significant byte first; `0x` allowed, as its loader allows) in the spec's order. */
function specOrder(stored: string): string | undefined {
  const hex = stored.startsWith('0x') ? stored.slice(2) : stored
  if (!/^[0-9A-Fa-f]{32}$/.test(hex)) return undefined
  return (hex.match(/../g) as string[]).reverse().join('').toLowerCase()
}

async function readInfo(path: string): Promise<string> {
  const handle = await open(path, 'r')
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) throw Object.assign(new Error('not a file'), { code: 'not a regular file' })
    if (stats.size > MAX_INFO_BYTES) throw Object.assign(new Error('too big'), { code: `${stats.size} bytes` })
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

function why(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' ? code : 'unreadable'
}

/** Directory entries that look like addresses, sorted (stable output), or a problem. */
async function addressDirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  return entries
    .filter((e) => e.isDirectory() && ADDRESS_DIR.test(e.name))
    .map((e) => e.name)
    .sort()
}

/**
 * Reads BlueZ's storage under `dir` (default `/var/lib/bluetooth`; reading it needs root) and
 * makes an IRK file of every paired device that shared an identity resolving key, named from
 * its `[General] Alias=` or `Name=`.
 * @throws InvalidOptionError `file_not_found` / `unreadable_file` when `dir` itself cannot be listed
 */
export async function importBluezIdentityKeys(dir: string = BLUEZ_STORAGE_DIR): Promise<BluezImport> {
  let adapters: string[]
  try {
    adapters = await addressDirs(dir)
  } catch (error) {
    const code = why(error)
    if (code === 'ENOENT')
      throw new InvalidOptionError('file_not_found', `${dir} does not exist: is BlueZ installed here?`, {
        option: 'dir',
      })
    throw new InvalidOptionError(
      'unreadable_file',
      `${dir} cannot be listed (${code}): BlueZ's storage is readable by root only; run with sudo.`,
      { option: 'dir' },
    )
  }
  const result: Omit<BluezImport, 'text' | 'keyring'> = { devices: 0, withoutKey: 0, duplicates: 0, problems: [] }
  const keyring = new IdentityKeyring()
  const taken = new Set<string>()
  const lines: string[] = []
  for (const adapter of adapters.slice(0, MAX_ADAPTERS)) {
    let devices: string[]
    try {
      devices = await addressDirs(join(dir, adapter))
    } catch (error) {
      result.problems.push({ entry: adapter, reason: `cannot be listed (${why(error)})` })
      continue
    }
    for (const device of devices) {
      if (result.devices >= MAX_DEVICES) break
      result.devices++
      const entry = `${adapter}/${device}`
      let groups: Map<string, Map<string, string>>
      try {
        groups = keyFile(await readInfo(join(dir, adapter, device, 'info')))
      } catch (error) {
        if (why(error) === 'ENOENT') result.withoutKey++
        else result.problems.push({ entry, reason: `info cannot be read (${why(error)})` })
        continue
      }
      const stored = groups.get('IdentityResolvingKey')?.get('Key')
      if (stored === undefined) {
        result.withoutKey++
        continue
      }
      const hex = specOrder(stored)
      if (hex === undefined || /^0+$/.test(hex)) {
        result.problems.push({ entry, reason: 'its IdentityResolvingKey is not 16 bytes of hex' })
        continue
      }
      const general = groups.get('General')
      const label = general?.get('Alias') ?? general?.get('Name')
      const name = identityNameFor(label === undefined ? undefined : unescape(label), device, taken)
      try {
        keyring.add(parseIdentityKey(name, hex))
      } catch (error) {
        taken.delete(name.toLowerCase())
        // The same device paired with two adapters: one line is enough.
        if (error instanceof IdentityKeyError && error.code === 'duplicate_key') result.duplicates++
        else result.problems.push({ entry, reason: error instanceof Error ? error.message : 'unusable key' })
        continue
      }
      lines.push(`# ${entry}`, `${name} ${hex}`)
    }
  }
  const header = [
    `# beaconkit IRK file, from BlueZ's storage in ${dir}.`,
    '# Keep it private (chmod 600): a key lets whoever holds it follow the device.',
  ]
  return { ...result, keyring, text: `${[...header, ...lines].join('\n')}\n` }
}
