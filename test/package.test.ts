// The built package as users get it: both module systems through the exports map, the public
// names of DESIGN.md, and no noble loaded (or leaked into the types) by importing it.
// CI builds before testing; locally run `npm run build` first.
import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const PUBLIC = [
  'BeaconScanner', 'decodeAdvertisement', 'parseBroadcastKey', 'Keyring', 'NobleSource', 'ReplaySource', 'SimulatedSource',
  'AdvertisementRecorder', 'AccountClient', 'Uploader', 'startEmulator', 'encodeIBeacon', 'encodeE780', 'encodeE781',
  'BroadcastKeyError', 'AccountError', 'BluetoothUnavailableError', 'siteScenario', 'SAMPLE_BROADCAST_KEY',
]

function run(args: string[]): { names: string[]; nobleLoaded: boolean } {
  const out = execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
  return JSON.parse(out.trim().split('\n').pop() as string) as { names: string[]; nobleLoaded: boolean }
}


describe('the built package', () => {
  it('has been built (run `npm run build` before the tests)', () => {
    expect(existsSync(join(root, 'dist', 'index.js')), 'dist/index.js is missing: run npm run build').toBe(true)
  })

  it('loads as ESM by its own name, exports the public API and loads no noble', () => {
    const r = run(['--input-type=module', '-e',
      `import * as m from 'beaconkit'; import { createRequire } from 'node:module';` +
      `const cache = createRequire(import.meta.url).cache;` +
      `console.log(JSON.stringify({ names: Object.keys(m), nobleLoaded: Object.keys(cache).some((k) => k.includes('@abandonware')) }))`])
    expect(r.names).toEqual(expect.arrayContaining(PUBLIC))
    expect(r.nobleLoaded).toBe(false)
  })

  it('loads as CommonJS by its own name, exports the public API and loads no noble', () => {
    const r = run(['-e',
      `const m = require('beaconkit');` +
      `console.log(JSON.stringify({ names: Object.keys(m), nobleLoaded: Object.keys(require.cache).some((k) => k.includes('@abandonware')) }))`])
    expect(r.names).toEqual(expect.arrayContaining(PUBLIC))
    expect(r.nobleLoaded).toBe(false)
  })

  it('lets users resolve the bundled recordings by package path (ESM and CommonJS)', () => {
    const esm = execFileSync(process.execPath, ['--input-type=module', '-e', `console.log(import.meta.resolve('beaconkit/fixtures/demo.jsonl'))`], { cwd: root, encoding: 'utf8' }).trim()
    expect(fileURLToPath(esm)).toBe(join(root, 'fixtures', 'demo.jsonl'))
    const cjs = execFileSync(process.execPath, ['-e', `console.log(require.resolve('beaconkit/fixtures/demo.jsonl'))`], { cwd: root, encoding: 'utf8' }).trim()
    expect(cjs).toBe(join(root, 'fixtures', 'demo.jsonl'))
  })

  it('keeps noble out of the public type declarations', () => {
    for (const file of ['index.d.ts', 'index.d.cts']) {
      // Prose may name noble; no import or type reference may point at it.
      expect(readFileSync(join(root, 'dist', file), 'utf8')).not.toMatch(/(from|import\()\s*['"]@abandonware/)
    }
  })
})
