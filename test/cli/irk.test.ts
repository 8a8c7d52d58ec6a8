/**
 * Issue 37's Done-when on the command line: `replay --virtual --json --irk-file` over the
 * recording of scripts/make-phones-recording.mjs (a phone rotating every 40 s, a watch every
 * 30 s, a stranger under an unknown key, a burst of 20,000 strangers' addresses) shows each
 * `irk:<name>` found once and gone once at the header's times and nothing else; an IRK file
 * others can read is refused (exit 2) without a key on stderr; `irk import` on a BlueZ tree
 * prints a file that resolves the same devices.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, requireBuild, runCli } from './run-cli.js'
import { info, stored, tree } from '../support/bluez-tree.js'

interface Expected {
  id: string
  found: number
  gone: number
}

const PHONE = 'ec0234a357c8ad05341010a60a397d9b'
const WATCH = '00112233445566778899aabbccddeeff'

let dir = ''
let recording = ''
let irkFile = ''
let expected: Expected[] = []
const made: string[] = []

beforeAll(async () => {
  requireBuild()
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-irk-cli-'))
  recording = join(dir, 'phones.jsonl')
  irkFile = join(dir, 'phones.irk')
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'make-phones-recording.mjs'), recording], { stdio: 'pipe' })
  expected = (JSON.parse(readFileSync(recording, 'utf8').split('\n', 1)[0] as string) as { expect: Expected[] }).expect
})

afterAll(async () => {
  for (const d of [dir, ...made]) if (d !== '') await rm(d, { recursive: true, force: true })
})

/** The found and gone events of a `replay --virtual --json` run with `keys`, as "<time> <event> <id>". */
async function foundAndGone(keys: string): Promise<string[]> {
  const result = await runCli(['replay', '--virtual', '--json', '--irk-file', keys, recording])
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  return result.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { event: string; time: number; beacon?: { id: string } })
    .filter((e) => e.event === 'found' || e.event === 'gone')
    .map((e) => `${e.time} ${e.event} ${e.beacon?.id ?? ''}`)
}

function want(): string[] {
  return expected
    .flatMap((e) => [`${e.found} found ${e.id}`, `${e.gone} gone ${e.id}`])
    .sort((a, b) => Number(a.split(' ')[0]) - Number(b.split(' ')[0]))
}

describe('beaconkit replay --irk-file (issue 37 Done-when)', () => {
  it('finds each irk:<name> once and loses it once, at the right times, and nothing else', async () => {
    expect(expected.map((e) => e.id)).toEqual(['irk:alice-phone', 'irk:bob-watch'])
    expect(await foundAndGone(irkFile)).toEqual(want())
  }, 60_000)

  it('refuses an IRK file others can read (exit 2) without printing a key', async () => {
    const open = join(dir, 'open.irk')
    copyFileSync(irkFile, open)
    chmodSync(open, 0o644)
    const result = await runCli(['replay', '--virtual', '--json', '--irk-file', open, recording])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('open.irk')
    expect(result.stderr).toContain('chmod 600')
    for (const key of [PHONE, WATCH]) expect(result.stderr.toLowerCase()).not.toContain(key)
  })

  it('refuses a bad line by its number without the key, and the same through BEACONKIT_IRK_FILE', async () => {
    const bad = join(dir, 'bad.irk')
    writeFileSync(bad, `alice-phone ${PHONE}\nbob watch ${WATCH}\n`, { mode: 0o600 })
    const result = await runCli(['replay', '--virtual', '--json', recording], {
      env: { ...process.env, BEACONKIT_IRK_FILE: bad },
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('line 2')
    for (const key of [PHONE, WATCH]) expect(result.stderr.toLowerCase()).not.toContain(key)
  })
})

describe('an IRK file others can read, on every command that takes one', () => {
  it('stops scan, simulate and fleet (by BEACONKIT_IRK_FILE) with exit 2 before anything starts', async () => {
    const open = join(dir, 'shared.irk')
    copyFileSync(irkFile, open)
    chmodSync(open, 0o644)
    const runs = [
      await runCli(['scan', '--json', '--irk-file', open]),
      await runCli(['simulate', '--json', '--duration', '1', '--irk-file', open]),
      await runCli(['fleet', '--embedded-broker', '0', '--json', '--duration', '1'], {
        env: { ...process.env, BEACONKIT_IRK_FILE: open },
      }),
    ]
    for (const result of runs) {
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('chmod 600')
      for (const key of [PHONE, WATCH]) expect(result.stderr.toLowerCase()).not.toContain(key)
    }
  }, 60_000)
})

describe('beaconkit record --irk-file', () => {
  it('counts the phones and watches by name; the recording keeps the addresses as heard', async () => {
    const out = join(dir, 'simulated.jsonl')
    const result = await runCli(['record', out, '--simulate', '--duration', '1', '--json', '--irk-file', irkFile])
    expect(result.code).toBe(0)
    const last = JSON.parse(result.stdout.trimEnd().split('\n').at(-1) as string) as Record<string, unknown>
    // The simulator's tags have public addresses: none of them is a phone of the file.
    expect(last).toMatchObject({ event: 'recorded', identities: 0 })
    expect(readFileSync(out, 'utf8')).not.toContain('irk:')
  }, 30_000)
})

describe('beaconkit irk import', () => {
  it('prints, from a BlueZ tree, an IRK file that resolves the same devices', async () => {
    const bluez = await tree(
      {
        '40:98:AD:00:00:01': info('alice-phone', stored(PHONE)),
        '40:98:AD:00:00:02': info('bob-watch', stored(WATCH)),
        '40:98:AD:00:00:03': info('JBL Flip 5', undefined),
      },
      undefined,
      undefined,
      made,
    )
    const result = await runCli(['irk', 'import', bluez])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('2 keys from 3 paired devices')
    for (const key of [PHONE, WATCH]) expect(result.stderr.toLowerCase()).not.toContain(key)
    const imported = join(dir, 'imported.irk')
    writeFileSync(imported, result.stdout, { mode: 0o600 })
    expect(await foundAndGone(imported)).toEqual(want())
  }, 60_000)

  it('exits 2 for a folder that does not exist and for an unknown irk command', async () => {
    const result = await runCli(['irk', 'import', join(dir, 'no-such-dir')])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    const usage = await runCli(['irk', 'export'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('unknown irk command')
  })
})
