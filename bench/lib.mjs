// Shared helpers for the *.bench.mjs files: timing (warm up, then take the best of several
// runs, the least disturbed by the other core), one aligned row per measurement, and the
// simulated site and bare source the traffic benches share.
import { EventEmitter } from 'eventemitter3'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout } from 'node:timers'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BeaconScanner, VirtualClock } from '../dist/index.js'

/** Runs `fn(iterations)` `runs` times after a warm-up; returns operations per second of the best run. */
export function opsPerSecond(fn, iterations, { runs = 5, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) fn(iterations)
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint()
    fn(iterations)
    const ns = Number(process.hrtime.bigint() - t0)
    if (ns < best) best = ns
  }
  return (iterations * 1e9) / best
}

/** Times one call, best of `runs`, in milliseconds. */
export function bestMs(fn, { runs = 5, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) fn()
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint()
    fn()
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (ms < best) best = ms
  }
  return best
}

/**
 * Memory in use after two full collections (needs --expose-gc): the JS heap plus the backing
 * stores of ArrayBuffers, which live outside it (the range table keeps per-beacon numbers in
 * a Float64Array; leaving those out would flatter the per-beacon figure).
 */
export function settledHeap() {
  globalThis.gc?.()
  globalThis.gc?.()
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })

/** Prints `| name | value unit | target |` as a Markdown table row, ready for BENCHMARKS.md. */
export function row(name, value, unit, target = '') {
  const ok = target === '' ? '' : ` ${target}`
  console.log(`| ${name} | ${fmt.format(value)} ${unit} |${ok} |`)
}

/**
 * A seeded xorshift generator for benchmark data: the same payloads on every run, so runs
 * compare. Returns `rand(n)` (an integer below n) and `hexBytes(n)` (n random bytes as hex).
 */
export function seededData(seed) {
  let s = seed
  const rand = (n) => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) % n
  }
  const hexBytes = (n) => Array.from({ length: n }, () => rand(256).toString(16).padStart(2, '0')).join('')
  return { rand, hexBytes }
}

/**
 * A device address from six byte values, built the way noble builds it (hex bytes joined with
 * ':'), so it is a flat string like every source produces. A template literal would make a
 * V8 cons string instead, and a Map lookup that meets another key of the same bucket compares
 * cons strings through the slow runtime path (measured: ~10% of a cache hit), a cost no
 * source's advertisement carries.
 */
export function macAddress(...bytes) {
  return bytes.map((b) => (b & 0xff).toString(16).padStart(2, '0')).join(':')
}

/** The bench site's proximity UUID and start time. */
export const SITE_UUID = '23A01AF0-232A-4518-9C0E-323FB773F5EF'
export const SITE_T0 = Date.UTC(2026, 0, 1)

/**
 * The simulated devices every traffic bench uses: `count` beacons, each sending an iBeacon
 * frame and a 0x81E7 mode 0x30 scan response every `intervalMs`, at `distance(i)` metres
 * (1–20 m by default). One definition, so the scanner, adapters, MQTT and whole-stack tables
 * measure the same traffic.
 */
export function siteDevices(count, { intervalMs = 1000, distance = (i) => 1 + (i % 20) } = {}) {
  const devices = []
  for (let i = 0; i < count; i++) {
    devices.push({
      address: macAddress(0xc0, i >> 24, i >> 16, 0, i >> 8, i),
      ibeacon: { proximityUUID: SITE_UUID, major: i >> 16, minor: i & 0xffff, measuredPower: -59 },
      vendor: [{ frame: 'e781', mode: 0x30 }],
      serialNumber: `0117C5${i.toString(16).toUpperCase().padStart(6, '0')}`,
      major: 1,
      minor: i & 0xffff,
      intervalMs,
      distance: distance(i),
    })
  }
  return devices
}

/** The smallest possible source: a bench pushes advertisements itself, on `clock`. */
export class PushSource extends EventEmitter {
  constructor(clock) {
    super()
    this.clock = clock
  }
  async start() {}
  async stop() {}
}

/** Pushes `advs[from..to)` through `source`, moving the virtual `clock` to each packet's time. */
export function feed(source, clock, advs, from = 0, to = advs.length) {
  for (let i = from; i < to; i++) {
    const adv = advs[i]
    clock.advanceTo(adv.timestamp)
    source.emit('advertisement', adv)
  }
}

/** The mosquitto binary, when installed (the fleet bench skips without it). */
/**
 * The fleet benches' layout: `grid` × `grid` gateways (or ESP32 nodes); beacon `b` stands in cell
 * `b mod grid²` and is heard by the gateway of that cell and the 3 to its right and below
 * (wrapping round the grid), so each beacon is heard by 4. The beacons gateway `g` hears.
 */
export function beaconsHeardBy(g, grid, beacons) {
  const gx = g % grid
  const gy = Math.floor(g / grid)
  const out = []
  for (let b = 0; b < beacons; b++) {
    const cell = b % (grid * grid)
    const cx = cell % grid
    const cy = Math.floor(cell / grid)
    if ((gx === cx || gx === (cx + 1) % grid) && (gy === cy || gy === (cy + 1) % grid)) out.push(b)
  }
  return out
}

export const MOSQUITTO_BINARY = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto', '/usr/local/sbin/mosquitto'].find((p) => existsSync(p))

/**
 * A Mosquitto on a free loopback port with a generated config (the settings of
 * test/support/mosquitto.ts), started and waited for; `close()` stops it and removes its dir.
 * `extra` adds config lines.
 */
export async function startMosquitto(extra = []) {
  if (MOSQUITTO_BINARY === undefined) throw new Error('mosquitto is not installed (apt-get install -y mosquitto)')
  const dir = await mkdtemp(join(tmpdir(), 'beaconkit-bench-mosquitto-'))
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = server.address().port
  await new Promise((resolve) => server.close(resolve))
  const lines = [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'log_dest stderr', 'log_type error', ...extra]
  if (process.getuid?.() === 0) lines.push('user root')
  const conf = join(dir, 'mosquitto.conf')
  await writeFile(conf, `${lines.join('\n')}\n`)
  const child = spawn(MOSQUITTO_BINARY, ['-c', conf], { stdio: ['ignore', 'ignore', 'inherit'] })
  const deadline = Date.now() + 15_000
  for (;;) {
    const ok = await new Promise((resolve) => {
      const s = connect({ port, host: '127.0.0.1' })
      s.once('connect', () => (s.destroy(), resolve(true)))
      s.once('error', () => resolve(false))
    })
    if (ok) break
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`mosquitto did not start on port ${port}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    pid: child.pid,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A BeaconScanner on a PushSource and a virtual clock at SITE_T0, listening the way an app does
 * (found, gone and, unless `updated` is false, updated); not started, so a publisher can be
 * attached first.
 */
export function appScanner({ updated = true, ...options } = {}) {
  const clock = new VirtualClock(SITE_T0)
  const source = new PushSource(clock)
  const scanner = new BeaconScanner({ source, ...options })
  scanner.on('found', () => {})
  scanner.on('gone', () => {})
  if (updated) scanner.on('updated', () => {})
  return { scanner, source, clock }
}

/**
 * Advertisements a second into a started scanner from `make()`, best of `runs`: `advs[0, warm)`
 * untimed, the rest timed; every run must end with `beacons` in range.
 */
export async function bestIngestRate(make, advs, warm, beacons, runs = 5) {
  let best = Infinity
  for (let r = 0; r < runs; r++) {
    const { scanner, source, clock } = await make()
    feed(source, clock, advs, 0, warm)
    const t = process.hrtime.bigint()
    feed(source, clock, advs, warm)
    const ns = Number(process.hrtime.bigint() - t)
    if (ns < best) best = ns
    if (scanner.beacons().length !== beacons) throw new Error(`expected ${beacons} beacons in range, got ${scanner.beacons().length}`)
    await scanner.stop()
  }
  return ((advs.length - warm) * 1e9) / best
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Bundles the integration tests' fake HCI socket and packet builders from their TypeScript
 * (shared, not copied) into `outDir` as `install-fake-hci.js` and `hci-packets.js`. `outDir`
 * must lie inside node_modules, so the bundle's `require.resolve('@abandonware/noble/…')`
 * finds the installed noble, as the gateway-signals test builds its bundle.
 */
export async function buildFakeHci(outDir = join(ROOT, 'node_modules', '.cache', 'beaconkit-bench-hci')) {
  const { build } = await import('tsup')
  await build({
    entry: { 'install-fake-hci': join(ROOT, 'test/integration/install-fake-hci.ts'), 'hci-packets': join(ROOT, 'test/integration/hci-packets.ts') },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    config: false,
    silent: true,
    dts: false,
    clean: false,
    splitting: false,
  })
  return outDir
}

/** The bundle of {@link buildFakeHci} in `outDir`, loaded: `installFakeHciSocket()` and the packet builders. */
export async function importFakeHci(outDir) {
  const [install, packets] = await Promise.all(['install-fake-hci', 'hci-packets'].map((f) => import(pathToFileURL(join(outDir, `${f}.js`)).href)))
  return { ...install, ...packets }
}
