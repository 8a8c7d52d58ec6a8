// What a user reads: every link they can follow resolves inside the published package, no page
// or declaration sends them to a document they do not have, and the facts the docs state about
// the public sample keys are what the code says.
import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseBroadcastKey } from '../src/secure/broadcast-key.js'
import { loadVectors } from './support/vectors.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The files `npm publish` would ship (build scripts are not run: the suite built dist/ already). */
function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[]
  return pack.files.map((f) => f.path)
}

/** The Markdown pages a user of the package reads. */
function userPages(): string[] {
  return ['README.md', 'CHANGELOG.md', 'BENCHMARKS.md', 'fixtures/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
}

/** Relative link targets of a Markdown page, resolved to package paths (anchors dropped). */
function relativeLinks(page: string): { text: string; target: string }[] {
  const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '')
  const links: { text: string; target: string }[] = []
  for (const m of text.matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)) {
    const href = m[2]
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) continue
    links.push({ text: m[1], target: posix.normalize(posix.join(posix.dirname(page), href.split('#')[0])).replace(/\/$/, '') })
  }
  return links
}

describe('links a user follows', () => {
  it('every relative link in the README and docs/ points at a file in the published package', () => {
    const files = new Set(packedFiles())
    const dirs = new Set([...files].flatMap((f) => f.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))))
    const broken: string[] = []
    let checked = 0
    for (const page of userPages()) {
      expect(files.has(page), `${page} is not in the package`).toBe(true)
      for (const link of relativeLinks(page)) {
        checked++
        if (!files.has(link.target) && !dirs.has(link.target)) broken.push(`${page}: [${link.text}] → ${link.target}`)
      }
    }
    expect(broken).toEqual([])
    expect(checked).toBeGreaterThan(15)
    for (const f of ['LICENSE', 'CHANGELOG.md', 'README.md', 'fixtures/demo.jsonl', 'dist/index.d.ts', 'dist/cli/main.js']) expect(files.has(f), f).toBe(true)
  })

  it('the package says under which licence and what changed', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string }
    expect(pkg.license).toBe('MIT')
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} beaconkit contributors\n/)
    expect(readFileSync(join(root, 'CHANGELOG.md'), 'utf8')).toMatch(/^## Unreleased$/m)
  })
})

describe('what the docs and the shipped declarations cite', () => {
  // Documents of the repository's authors, not shipped: a user cannot look them up.
  const UNSHIPPED = /PROTOCOL\.md|DESIGN\.md|\bspec (?:part )?\d/
  // Left to the lead (files this branch must not touch): replace with docs/protocol.md
  // ("Distance", "Merging the frames of one advertisement") and delete these two lines.
  it.each([...userPages(), 'dist/index.d.ts', 'dist/index.d.cts', 'dist/cli/main.js'])('%s cites only what users have', (file) => {
    const lines = readFileSync(join(root, file), 'utf8').split('\n')
    const cited = lines.filter((l) => UNSHIPPED.test(l))
    expect(cited).toEqual([])
  })
})

describe('the public sample keys in docs/private-broadcast.md', () => {
  const page = readFileSync(join(root, 'docs/private-broadcast.md'), 'utf8')

  it('states the expiry date and key id that parsing the wrapped sample gives', () => {
    const m = /`(01[A-Za-z0-9+/=]{88})`:\s*it unwraps to the raw key `([0-9a-f]{8})…` with key id `([0-9a-f]{4})`, and it expired on \*\*(\d{4}-\d{2}-\d{2})\*\*\s*\(at (\d{2}:\d{2}) UTC/.exec(page)
    expect(m, 'the paragraph on the wrapped sample key').not.toBeNull()
    const [, wrapped, rawStart, keyId, date, time] = m as RegExpExecArray
    let error: unknown
    try {
      parseBroadcastKey(wrapped)
    } catch (e) {
      error = e
    }
    expect(error).toMatchObject({ code: 'expired', keyId })
    expect((error as { expiresAt: Date }).expiresAt.toISOString()).toBe(`${date}T${time}:00.000Z`)
    const before = parseBroadcastKey(wrapped, { now: Date.parse(`${date}T00:00:00Z`) - 86_400_000 })
    expect(before.keyId).toBe(keyId)
    // The unwrapped key is the raw key the page names (the vendor's vectors give it in full).
    const vectors = loadVectors<{ broadcast_keys: { key: string; expect: { raw?: string } }[] }>('external.json')
    const raw = vectors.broadcast_keys.flatMap((v) => [v.key, v.expect.raw ?? '']).find((k) => k.startsWith(rawStart) && k.length === 40)
    expect(raw).toBeDefined()
    expect(before.equals(parseBroadcastKey(raw as string))).toBe(true)
  })

  it('names the raw sample with the key id it has', () => {
    const m = /`([0-9a-f]{40})` \(key id `([0-9a-f]{4})`\) never expires/.exec(page)
    expect(m).not.toBeNull()
    const key = parseBroadcastKey((m as RegExpExecArray)[1])
    expect(key.keyId).toBe((m as RegExpExecArray)[2])
    expect(key.expiresAt).toBeUndefined()
  })
})

describe('the recommended broker ACLs the docs quote', () => {
  // The file the test suite runs Mosquitto with (test/mqtt/acl.mosquitto.test.ts): the docs must show that text, not a copy that drifted.
  const acl = readFileSync(join(root, 'examples/mosquitto/acl'), 'utf8').trimEnd()
  const conf = readFileSync(join(root, 'examples/mosquitto/beaconkit.conf'), 'utf8').trimEnd()

  it.each(['docs/mqtt.md', 'docs/fleet.md'])('%s has a "Running on a shared broker" section quoting examples/mosquitto/acl as it is', (page) => {
    const text = readFileSync(join(root, page), 'utf8')
    const section = /^## Running on a shared broker\n([\s\S]*?)(?=^## )/m.exec(text)?.[1]
    expect(section, 'the section').toBeDefined()
    const blocks = [...(section ?? '').matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1])
    expect(blocks).toContain(acl)
    if (page === 'docs/mqtt.md') expect(blocks).toContain(conf)
  })
})

describe('what installing the package adds (#35 item 20)', () => {
  it('docs/raspberry-pi.md states the package count the lock file installs: beaconkit and its runtime dependencies', () => {
    // The runtime dependencies the lock file resolves: every entry that is not dev-only, counted
    // once per name and version (npm lays nested copies out differently in a fresh install).
    type Entry = { version?: string; dev?: boolean; link?: boolean }
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, Entry> }
    const runtime = new Set(
      Object.entries(lock.packages)
        .filter(([path, p]) => path !== '' && p.dev !== true && p.link !== true)
        .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version ?? ''}`),
    )
    const page = readFileSync(join(root, 'docs/raspberry-pi.md'), 'utf8')
    const stated = /(\d+) packages/.exec(page)
    expect(stated, 'the page states how many packages the install adds').not.toBeNull()
    expect(Number(stated?.[1])).toBe(runtime.size + 1)
  })
})
