/**
 * The body of `beaconkit irk import [dir]`: prints an IRK file made from BlueZ's storage on
 * stdout (to be redirected into a private file), and what was skipped on stderr. The command's
 * registration (options, help) is wired with the commands of issue 36's CLI (INTEGRATION.md).
 */
import { BLUEZ_STORAGE_DIR, importBluezIdentityKeys } from '../../secure/bluez-identities.js'

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
