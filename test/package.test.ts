// The built package as users get it: both module systems through the exports map, the public
// names of DESIGN.md, and no noble, D-Bus library, mqtt.js, aedes or prom-client loaded (or
// leaked into the types) by importing it.
// CI builds before testing; locally run `npm run build` first.
import { describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const PUBLIC = [
  'BeaconScanner', 'decodeAdvertisement', 'parseBroadcastKey', 'Keyring', 'NobleSource', 'ReplaySource', 'SimulatedSource',
  'AdvertisementRecorder', 'AccountClient', 'Uploader', 'startEmulator', 'encodeIBeacon', 'encodeE780', 'encodeE781',
  'BroadcastKeyError', 'AccountError', 'BluetoothUnavailableError', 'BluezSource', 'siteScenario', 'SAMPLE_BROADCAST_KEY',
  'MqttPublisher', 'startBroker', 'MqttError',
  'startMapServer', 'MqttBeaconDetails', 'FleetRecorder', 'FleetTimeline',
  'IdentityKeyring', 'IdentityResolver', 'parseIdentityKey', 'rpaFor', 'importBluezIdentityKeys', 'IdentityKeyError',
]
/** Optional peer dependencies that importing beaconkit must not load. */
const LAZY = `(k) => k.includes('@abandonware') || k.includes('dbus-native')`

// Loaded modules of the optional heavy dependencies, as the child's require cache shows them
// (mqtt.js and prom-client are CommonJS; aedes is ESM but loads CommonJS helpers such as mqtt-packet).
const HEAVY = `(k) => /[\\/]node_modules[\\/](@abandonware|mqtt|mqtt-packet|aedes|aedes-[a-z-]+|prom-client)[\\/]/.test(k)`

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
      `console.log(JSON.stringify({ names: Object.keys(m), nobleLoaded: Object.keys(cache).some(${LAZY}), heavy: Object.keys(cache).filter(${HEAVY}) }))`])
    expect(r.names).toEqual(expect.arrayContaining(PUBLIC))
    expect(r.nobleLoaded).toBe(false)
    expect(r.heavy).toEqual([])
  })

  it('loads as CommonJS by its own name, exports the public API and loads no noble', () => {
    const r = run(['-e',
      `const m = require('beaconkit');` +
      `console.log(JSON.stringify({ names: Object.keys(m), nobleLoaded: Object.keys(require.cache).some(${LAZY}), heavy: Object.keys(require.cache).filter(${HEAVY}) }))`])
    expect(r.names).toEqual(expect.arrayContaining(PUBLIC))
    expect(r.nobleLoaded).toBe(false)
    expect(r.heavy).toEqual([])
  })

  it('lets users resolve the bundled recordings by package path (ESM and CommonJS)', () => {
    const esm = execFileSync(process.execPath, ['--input-type=module', '-e', `console.log(import.meta.resolve('beaconkit/fixtures/demo.jsonl'))`], { cwd: root, encoding: 'utf8' }).trim()
    expect(fileURLToPath(esm)).toBe(join(root, 'fixtures', 'demo.jsonl'))
    const cjs = execFileSync(process.execPath, ['-e', `console.log(require.resolve('beaconkit/fixtures/demo.jsonl'))`], { cwd: root, encoding: 'utf8' }).trim()
    expect(cjs).toBe(join(root, 'fixtures', 'demo.jsonl'))
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

  it('loads prom-client only when a gateway\'s metrics are switched on (a gateway without them loads none)', () => {
    const r = run(['--input-type=module', '-e',
      `import { startGateway, ReplaySource } from 'beaconkit'; import { createRequire } from 'node:module';` +
      `const cache = createRequire(import.meta.url).cache; const prom = () => Object.keys(cache).filter((k) => /[\\\\/]prom-client[\\\\/]/.test(k));` +
      `const hooks = { warn() {}, stderr: { write() { return true } } };` +
      `const plain = await startGateway({ source: new ReplaySource('fixtures/demo.jsonl', { virtual: true }) }, hooks);` +
      `await plain.start(); await plain.scanner.drain(); await plain.stop(); const before = prom();` +
      `const measured = await startGateway({ source: new ReplaySource('fixtures/demo.jsonl', { virtual: true }), metrics: { listen: '127.0.0.1:0' } }, hooks);` +
      `await measured.stop();` +
      `console.log(JSON.stringify({ names: before, nobleLoaded: false, heavy: prom() }))`])
    expect(r.names).toEqual([])
    expect(r.heavy.length).toBeGreaterThan(0)
  })

  it('keeps noble, the D-Bus library, mqtt.js, aedes and prom-client out of the public type declarations', () => {
    for (const file of ['index.d.ts', 'index.d.cts']) {
      // Prose may name them; no import or type reference may point at them.
      expect(readFileSync(join(root, 'dist', file), 'utf8')).not.toMatch(/(from|import\()\s*['"](@abandonware|@homebridge|mqtt|aedes|prom-client)/)
    }
  })

  it('BluezSource without @homebridge/dbus-native installed → BluetoothUnavailableError not_installed, saying what to install', () => {
    // A resolve hook makes the package unresolvable, as on a machine that never installed it.
    const hook = `export async function resolve(s, c, next) { if (s === '@homebridge/dbus-native') throw Object.assign(new Error('Cannot find package ' + s), { code: 'ERR_MODULE_NOT_FOUND' }); return next(s, c) }`
    const register = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}))`
    for (const flavour of ['module', 'commonjs']) {
      const load = flavour === 'module' ? `const { BluezSource } = await import('beaconkit')` : `const { BluezSource } = require('beaconkit')`
      const script = `${load}; new BluezSource({ busAddress: 'unix:path=/nonexistent' }).start().then(() => console.log('started'), (e) => console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })))`
      const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, `--input-type=${flavour}`, '-e', flavour === 'module' ? script : `(async () => { ${script} })()`], { cwd: root, encoding: 'utf8' })
      const out = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { name: string; code: string; message: string }
      expect(out, flavour).toMatchObject({ name: 'BluetoothUnavailableError', code: 'not_installed' })
      expect(out.message).toMatch(/npm install @homebridge\/dbus-native/)
    }
  })
})
