/**
 * BlueZ's storage as BlueZ writes it. bluez/bluez src/adapter.c, `store_irk()` (called from
 * `new_irk_callback()` when the kernel reports a bonded device's key with a store hint):
 *
 *   create_filename(filename, PATH_MAX, "/%s/%s/info", btd_adapter_get_storage_dir(adapter), device_addr);
 *   for (i = 0; i < 16; i++) sprintf(str + (i * 2), "%2.2X", key[i]);
 *   g_key_file_set_string(key_file, "IdentityResolvingKey", "Key", str);
 *
 * `key` is the management event's `val[16]`, and doc/mgmt-protocol.rst says "All fields are in
 * little-endian byte order (least significant byte first)": the file holds the key reversed
 * from the spec's order, in upper-case hex. Its loader (`get_irk_info()`) also takes a `0x` prefix.
 */
import { chmod, mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runIrkImport } from '../../src/cli/commands/irk-import.js'
import { InvalidOptionError } from '../../src/errors.js'
import { importBluezIdentityKeys, identityNameFor } from '../../src/secure/bluez-identities.js'
import { parseIdentityKey, rpaFor } from '../../src/secure/identity-key.js'
import { IdentityKeyring } from '../../src/secure/identity-keyring.js'
import { IdentityResolver } from '../../src/secure/identity-resolver.js'
import { ADAPTER, info, stored, tree as bluezTree } from '../support/bluez-tree.js'

const PHONE = 'ec0234a357c8ad05341010a60a397d9b'
const WATCH = '00112233445566778899aabbccddeeff'
const PIXEL = '8899aabbccddeeff0011223344556677'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

/** A tree in a folder removed after the test. */
function tree(devices: Record<string, string | null>, adapter = ADAPTER, root?: string): Promise<string> {
  return bluezTree(devices, adapter, root, dirs)
}

describe('importBluezIdentityKeys', () => {
  it('turns a BlueZ tree into an IRK file that resolves the same devices', async () => {
    const dir = await tree({
      '40:98:AD:00:00:01': info("Alice's iPhone", stored(PHONE)),
      '40:98:AD:00:00:02': info('Apple Watch', `0x${stored(WATCH)}`, 'Alias=Bob\\sWatch\n'),
      '40:98:AD:00:00:03': info("Alice's iPhone", stored(PIXEL)),
      '40:98:AD:00:00:04': info('JBL Flip 5', undefined),
      '40:98:AD:00:00:05': null,
      '40:98:AD:00:00:06': info('Broken', 'NOTHEX'),
      '40:98:AD:00:00:07': info('Zero', '0'.repeat(32)),
      'not-a-device': info('Ignored', stored(PIXEL)),
    })
    // The same phone paired with a second adapter.
    await tree({ '40:98:AD:00:00:01': info("Alice's iPhone", stored(PHONE)) }, 'B8:27:EB:00:00:02', dir)
    // An `info` that is a directory: unusable, reported, not fatal.
    await mkdir(join(dir, ADAPTER, '40:98:AD:00:00:08', 'info'), { recursive: true })

    const found = await importBluezIdentityKeys(dir)
    expect(found.keyring.names()).toEqual(['Alice-s-iPhone', 'Bob-Watch', 'Alice-s-iPhone-2'])
    expect(found).toMatchObject({ devices: 9, withoutKey: 2, duplicates: 1 })
    expect(found.problems.map((p) => p.entry)).toEqual([
      `${ADAPTER}/40:98:AD:00:00:06`,
      `${ADAPTER}/40:98:AD:00:00:07`,
      `${ADAPTER}/40:98:AD:00:00:08`,
    ])
    for (const p of found.problems) expect(p.reason.toLowerCase()).not.toMatch(/[0-9a-f]{32}/)

    // The text is an IRK file: keys in the spec's order, resolving each device's addresses.
    const ring = IdentityKeyring.fromText(found.text)
    expect(ring.names()).toEqual(found.keyring.names())
    const resolver = new IdentityResolver(ring)
    expect(resolver.resolve(rpaFor(parseIdentityKey('x', PHONE), 1))).toBe('Alice-s-iPhone')
    expect(resolver.resolve(rpaFor(parseIdentityKey('x', WATCH), 2))).toBe('Bob-Watch')
    expect(resolver.resolve(rpaFor(parseIdentityKey('x', PIXEL), 3))).toBe('Alice-s-iPhone-2')
    expect(found.text).toContain(`Alice-s-iPhone ${PHONE}\n`)
    expect(found.text).toMatch(/^# beaconkit IRK file/)
  })

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)(
    'reports an unreadable device entry and goes on',
    async () => {
      const dir = await tree({
        '40:98:AD:00:00:01': info('Phone', stored(PHONE)),
        '40:98:AD:00:00:02': info('Locked', stored(WATCH)),
      })
      await chmod(join(dir, ADAPTER, '40:98:AD:00:00:02', 'info'), 0o000)
      const found = await importBluezIdentityKeys(dir)
      expect(found.keyring.names()).toEqual(['Phone'])
      expect(found.problems).toEqual([
        { entry: `${ADAPTER}/40:98:AD:00:00:02`, reason: 'info cannot be read (EACCES)' },
      ])
    },
  )

  it('refuses a directory that does not exist with a typed error', async () => {
    const error = await importBluezIdentityKeys(join(tmpdir(), 'no-such-bluez-dir')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect((error as InvalidOptionError).code).toBe('file_not_found')
  })
})

describe('identityNameFor', () => {
  it('makes valid, unique names from whatever a device calls itself', () => {
    const taken = new Set<string>()
    expect(identityNameFor("Zoë's Pixel 8", '40:98:AD:00:00:01', taken)).toBe('Zoe-s-Pixel-8')
    expect(identityNameFor('zoe-s-pixel-8', '40:98:AD:00:00:02', taken)).toBe('zoe-s-pixel-8-2')
    expect(identityNameFor('  ☂☂  ', '40:98:AD:00:00:03', taken)).toBe('device-4098ad000003')
    expect(identityNameFor(undefined, '40:98:AD:00:00:04', taken)).toBe('device-4098ad000004')
    const long = identityNameFor('x'.repeat(300), '40:98:AD:00:00:05', taken)
    expect(long).toHaveLength(64)
    expect(identityNameFor('x'.repeat(300), '40:98:AD:00:00:06', taken)).toBe(`${'x'.repeat(62)}-2`)
  })
})

describe('runIrkImport (the body of `beaconkit irk import`)', () => {
  it('prints the IRK file on stdout and the summary on stderr', async () => {
    const dir = await tree({ '40:98:AD:00:00:01': info('Phone', stored(PHONE)) })
    let stdout = ''
    let stderr = ''
    const code = await runIrkImport(dir, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) })
    expect(code).toBe(0)
    expect(IdentityKeyring.fromText(stdout).names()).toEqual(['Phone'])
    expect(stderr).toMatch(/1 key from 1 paired device .*names: Phone/)
    expect(stderr.toLowerCase()).not.toContain(PHONE)
  })

  it('exits 1 and says what to do when no device shared a key', async () => {
    const dir = await tree({ '40:98:AD:00:00:01': info('Speaker', undefined) })
    let stdout = ''
    let stderr = ''
    const code = await runIrkImport(dir, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/no identity resolving key .* Pair the phone or watch/)
  })
})
