/**
 * A BlueZ storage tree (`<adapter>/<identity address>/info`) in a temporary folder, written as
 * BlueZ writes it (src/adapter.c `store_irk()`: the key least significant byte first, upper-case
 * hex). Shared by the importer's tests and the CLI's `irk import` test.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The adapter folder the helpers write under by default. */
export const ADAPTER = 'B8:27:EB:00:00:01'

/** A key as BlueZ stores it: least significant byte first, upper-case. */
export function stored(specHex: string): string {
  return (specHex.match(/../g) as string[]).reverse().join('').toUpperCase()
}

/**
 * Writes `devices` (identity address → `info` text, or null for a folder without one) under
 * `adapter`, in `root` or a new temporary folder; `made` receives a new folder for the caller to remove.
 */
export async function tree(
  devices: Record<string, string | null>,
  adapter = ADAPTER,
  root?: string,
  made?: string[],
): Promise<string> {
  const dir = root ?? (await mkdtemp(join(tmpdir(), 'beaconkit-bluez-')))
  if (root === undefined) made?.push(dir)
  await mkdir(join(dir, adapter), { recursive: true })
  await writeFile(join(dir, adapter, 'settings'), '[General]\nDiscoverable=false\n')
  for (const [device, info] of Object.entries(devices)) {
    await mkdir(join(dir, adapter, device), { recursive: true })
    if (info !== null) await writeFile(join(dir, adapter, device, 'info'), info)
  }
  return dir
}

/** A device's `info` file: `[General]` with its name, a link key, and its IRK when given. */
export function info(name: string | undefined, key: string | undefined, extra = ''): string {
  const general = `[General]\n${name === undefined ? '' : `Name=${name}\n`}AddressType=public\nTrusted=true\n${extra}`
  const irk = key === undefined ? '' : `\n[IdentityResolvingKey]\nKey=${key}\n`
  return `${general}\n[LinkKey]\nKey=0123456789ABCDEF0123456789ABCDEF\nType=4\n${irk}`
}
