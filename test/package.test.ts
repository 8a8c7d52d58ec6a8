// The built package as users get it: both module systems through the exports map, the public
// names of DESIGN.md, and no noble, mqtt.js or aedes loaded (or leaked into the types) by importing it.
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
  'BroadcastKeyError', 'AccountError', 'BluetoothUnavailableError', 'MqttPublisher', 'startBroker', 'MqttError',
]

// Loaded modules of the optional heavy dependencies, as the child's require cache shows them
// (mqtt.js is CommonJS; aedes is ESM but loads CommonJS helpers such as mqtt-packet).
const HEAVY = `(k) => /[\\/]node_modules[\\/](@abandonware|mqtt|mqtt-packet|aedes|aedes-[a-z-]+)[\\/]/.test(k)`

function run(args: string[]): { names: string[]; nobleLoaded: boolean; heavy: string[] } {
  const out = execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
  return JSON.parse(out.trim().split('\n').pop() as string) as { names: string[]; nobleLoaded: boolean; heavy: string[] }
}


describe('the built package', () => {
  it('has been built (run `npm run build` before the tests)', () => {
    expect(existsSync(join(root, 'dist', 'index.js')), 'dist/index.js is missing: run npm run build').toBe(true)
  })

  it('loads as ESM by its own name, exports the public API and loads no noble', () => {
    const r = run(['--input-type=module', '-e',
      `import * as m from 'beaconkit'; import { createRequire } from 'node:module';` +
      `const cache = createRequire(import.meta.url).cache;` +
      `console.log(JSON.stringify({ names: Object.keys(m), nobleLoaded: Object.keys(cache).some((k) => k.includes('@abandonware')), heavy: Object.keys(cache).filter(${HEAVY}) }))`])
    expect(r.names).toEqual(expect.arrayContaining(PUBLIC))
    expect(r.nobleLoaded).toBe(false)
    expect(r.heavy).toEqual([])
  })

  it('loads as CommonJS by its own name, exports the public API and loads no noble', () => {
    const r = run(['-e',
      `const m = require('beaconkit');` +
      `console.log(JSON.stringify({ names: Object.keys(m), nobleLoaded: Object.keys(require.cache).some((k) => k.includes('@abandonware')), heavy: Object.keys(require.cache).filter(${HEAVY}) }))`])
    expect(r.names).toEqual(expect.arrayContaining(PUBLIC))
    expect(r.nobleLoaded).toBe(false)
    expect(r.heavy).toEqual([])
  })

  it('loads mqtt.js and aedes when a broker and a publisher start (the check above can see them)', () => {
    const r = run(['--input-type=module', '-e',
      `import { startBroker, MqttPublisher } from 'beaconkit'; import { createRequire } from 'node:module';` +
      `const cache = createRequire(import.meta.url).cache;` +
      `const b = await startBroker({ port: 0 }); const p = new MqttPublisher({ url: b.url, gatewayId: 'pkg' });` +
      `await new Promise((r) => { p.once('connected', r); void p.connect() }); await p.close(); await b.close();` +
      `console.log(JSON.stringify({ names: [], nobleLoaded: false, heavy: Object.keys(cache).filter(${HEAVY}) }))`])
    expect(r.heavy.some((k) => /[\\/]mqtt[\\/]/.test(k))).toBe(true)
    expect(r.heavy.some((k) => /[\\/]aedes/.test(k))).toBe(true)
  })

  it('keeps noble, mqtt.js and aedes out of the public type declarations', () => {
    for (const file of ['index.d.ts', 'index.d.cts']) {
      // Prose may name them; no import or type reference may point at them.
      expect(readFileSync(join(root, 'dist', file), 'utf8')).not.toMatch(/(from|import\()\s*['"](@abandonware|mqtt|aedes)/)
    }
  })
})
