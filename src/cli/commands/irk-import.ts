/**
 * `beaconkit irk import [dir]`: prints an IRK file made from BlueZ's storage on stdout (to be
 * redirected into a private file), and what was skipped on stderr.
 */
import { BLUEZ_STORAGE_DIR, importBluezIdentityKeys } from '../../secure/bluez-identities.js'
import { fail, quote } from '../arg-values.js'
import { defineCommand } from './command.js'

/** Where the command writes. */
export interface IrkImportOutput {
  stdout(text: string): unknown
  stderr(text: string): unknown
}

/**
 * Runs `irk import`: 0 when at least one key was found, 1 when none was (nothing to resolve
 * with; stderr says why). A `dir` that cannot be listed throws InvalidOptionError (exit 2).
 */
export async function runIrkImport(dir: string | undefined, out: IrkImportOutput): Promise<number> {
  const where = dir ?? BLUEZ_STORAGE_DIR
  const found = await importBluezIdentityKeys(where)
  for (const p of found.problems) out.stderr(`beaconkit: skipped ${p.entry}: ${p.reason}\n`)
  const counts =
    `${found.keyring.size} key${found.keyring.size === 1 ? '' : 's'} from ${found.devices} paired ` +
    `device${found.devices === 1 ? '' : 's'} (${found.withoutKey} without a key` +
    `${found.duplicates > 0 ? `, ${found.duplicates} paired twice` : ''}` +
    `${found.problems.length > 0 ? `, ${found.problems.length} skipped` : ''})`
  if (found.keyring.size === 0) {
    out.stderr(
      `beaconkit: no identity resolving key in ${where}: ${counts}. Pair the phone or watch with this ` +
        'computer first (docs/phones.md), then import again.\n',
    )
    return 1
  }
  out.stdout(found.text)
  out.stderr(`beaconkit: ${counts}; names: ${found.keyring.names().join(', ')}. Keep the file private (chmod 600).\n`)
  return 0
}

/** What `beaconkit irk import` parses to. */
export interface IrkImportCommand {
  command: 'irk-import'
  dir?: string
}

/** `beaconkit irk`: its options, help, parser and runner (registered in registry.ts). */
export const irkCommand = defineCommand({
  name: 'irk',
  overview: [['irk import [dir]', 'the keys of paired phones and watches, from BlueZ']],
  options: {},
  help: `Usage: beaconkit irk import [dir]

Prints an IRK file (one "<name> <32 hex digits>" per line) made from the identity
resolving keys BlueZ keeps for every phone or watch paired with this computer, named
from each device's name. BlueZ's storage (default ${BLUEZ_STORAGE_DIR}) is readable
by root only, and the file holds secrets, so write it straight into a private file:

  (umask 077; sudo beaconkit irk import > irk.txt)
  beaconkit scan --irk-file irk.txt

What was skipped (devices without a key, unreadable entries) is said on stderr; no key
is ever printed there. How to pair a phone or a watch: docs/phones.md.

  -h, --help             this help

Exit codes: 0 at least one key printed, 1 no key found, 2 the folder cannot be read.`,
  parse(_values, pos): IrkImportCommand {
    const command = 'irk'
    const [sub, dir, ...extra] = pos
    if (sub !== 'import')
      fail(
        'argument',
        `usage: beaconkit irk import [dir]${sub === undefined ? '' : `; unknown irk command ${quote(sub)}`}`,
        command,
      )
    if (extra.length > 0) fail('argument', 'irk import takes one folder', command)
    return dir === undefined ? { command: 'irk-import' } : { command: 'irk-import', dir }
  },
  run: (parsed) =>
    runIrkImport(parsed.dir, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
    }),
})
