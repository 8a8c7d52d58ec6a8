/**
 * The Done-when check of issue 37 at the scanner's level: the recording of
 * scripts/make-phones-recording.mjs (a phone rotating every 40 s, a watch every 30 s with an
 * iBeacon frame in every other packet, a stranger under an unknown key, a crowd of 20,000
 * strangers' addresses within 10 s) replayed in virtual time with its IRK file. The script runs
 * against the built package (dist/), as `npm test` builds it first.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { IdentityKeyring } from '../../src/secure/identity-keyring.js'
import { IdentityResolver } from '../../src/secure/identity-resolver.js'
import { ReplaySource } from '../../src/sources/replay.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const built = existsSync(join(root, 'dist', 'index.js'))

interface Expected {
  id: string
  found: number
  gone: number
}

let dir = ''
let recording = ''
let irkFile = ''
let expected: Expected[] = []

beforeAll(async () => {
  if (!built) return
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-phones-'))
  recording = join(dir, 'phones.jsonl')
  irkFile = join(dir, 'phones.irk')
  execFileSync(process.execPath, [join(root, 'scripts', 'make-phones-recording.mjs'), recording], { stdio: 'pipe' })
  const header = JSON.parse(readFileSync(recording, 'utf8').split('\n', 1)[0] as string) as { expect: Expected[] }
  expected = header.expect
})

afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true })
})

async function replay(identities?: IdentityKeyring): Promise<{ events: string[]; scanner: BeaconScanner }> {
  const source = new ReplaySource(recording, { virtual: true })
  const scanner = new BeaconScanner({ source, ...(identities === undefined ? {} : { identities }) })
  const events: string[] = []
  scanner.on('found', (b) => events.push(`${scanner.clock.now()} found ${b.id}`))
  scanner.on('gone', (b) => events.push(`${scanner.clock.now()} gone ${b.id}`))
  await scanner.start()
  await scanner.drain()
  await scanner.stop()
  expect(source.stats.malformed).toBe(0)
  return { events, scanner }
}

describe.skipIf(!built)('the phones recording (scripts/make-phones-recording.mjs)', () => {
  it('with its IRK file: each device found once and gone once, at the right times, and nothing else', async () => {
    const keys = await IdentityKeyring.fromFile(irkFile)
    const { events, scanner } = await replay(keys)
    expect(expected.map((e) => e.id)).toEqual(['irk:alice-phone', 'irk:bob-watch'])
    const want = expected
      .flatMap((e) => [`${e.found} found ${e.id}`, `${e.gone} gone ${e.id}`])
      .sort((a, b) => Number(a.split(' ')[0]) - Number(b.split(' ')[0]))
    expect(events).toEqual(want)

    // Nothing else resolved: exactly the two devices' own addresses, counted once each.
    const lines = readFileSync(recording, 'utf8').trimEnd().split('\n').slice(1)
    const check = new IdentityResolver(keys, { cacheSize: 100_000 })
    const own = new Set<string>()
    const all = new Set<string>()
    for (const line of lines) {
      const { address } = JSON.parse(line) as { address: string }
      all.add(address)
      if (check.resolve(address, 'random') !== undefined) own.add(address)
    }
    // 300 s / 40 s and 230 s / 30 s: 8 phone addresses and 8 or 9 watch addresses.
    expect(own.size).toBeGreaterThanOrEqual(16)
    expect(own.size).toBeLessThanOrEqual(18)
    const stats = scanner.stats.identities
    expect(stats?.resolved).toBe(own.size)
    expect(stats?.unresolved).toBe(all.size - own.size)
    // The crowd went through a bounded cache.
    expect(stats?.cached).toBeLessThanOrEqual(10_000)
    expect(stats?.evictions).toBeGreaterThan(0)
  })

  it('without keys: only the watch iBeacon, by its beaconID, as before', async () => {
    const { events } = await replay()
    expect(events.map((e) => e.split(' ').slice(1).join(' '))).toEqual([
      'found E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|7|9',
      'gone E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|7|9',
    ])
  })
})
