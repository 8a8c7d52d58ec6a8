// ESPHome Bluetooth proxies (issue #38): advertisements per CPU-second through beaconkit's own
// native-API client (src/inputs/esphome), plaintext and Noise, beside a maintained npm client
// (@2colors/esphome-native-api, a devDependency), against the fake device of the tests
// (test/support/esphome-device.ts) running in a child process, so the measured process holds the
// client alone. The device sends raw batches of 16 iBeacon advertisements (the firmware's batch
// size) as fast as the socket takes them; the client's CPU time (process.cpuUsage) is read from
// its first to its last advertisement.
//   node bench/esphome.bench.mjs [--advertisements 200000] [--runs 3]
// The client is the package's (dist/, `npm run build` first); the fake device, test code, is
// bundled with esbuild for the child.
import { fork } from 'node:child_process'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { setImmediate, setTimeout } from 'node:timers'
import { URL, fileURLToPath, pathToFileURL } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const TOTAL = arg('advertisements', 200_000)
const RUNS = arg('runs', 3)
const BATCH = 16
const KEY = Buffer.alloc(32, 0x5a)
const IBEACON = Buffer.from('0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5', 'hex')

async function load() {
  const { build } = await import('esbuild')
  // Inside the package, so the bundle finds eventemitter3 in node_modules.
  mkdirSync(join(here, '../node_modules/.cache'), { recursive: true })
  const out = mkdtempSync(join(here, '../node_modules/.cache/esphome-bench-'))
  await build({
    entryPoints: {
      device: join(here, '../test/support/esphome-device.ts'),
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outdir: out,
    outExtension: { '.js': '.mjs' },
    external: ['eventemitter3'],
    logLevel: 'error',
  })
  return out
}

// The child: one fake device; streams TOTAL advertisements once told to.
if (process.argv.includes('--device')) {
  const { FakeEspHomeDevice } = await import(pathToFileURL(join(process.env.BUNDLE, 'device.mjs')).href)
  const encrypted = process.env.ENCRYPTED === '1'
  const device = await FakeEspHomeDevice.start({ name: 'bench-proxy', key: encrypted ? KEY : undefined, apiMinor: 12 })
  process.send({ port: device.port })
  process.on('message', async (msg) => {
    if (msg !== 'go') return
    const list = Array.from({ length: BATCH }, (_, i) => ({ address: `c0:ff:ee:00:00:${i.toString(16).padStart(2, '0')}`, rssi: -60, data: IBEACON }))
    for (let sent = 0; sent < TOTAL; sent += BATCH) {
      device.advertise(list)
      // Let the socket drain every so often, as a radio paces a real proxy.
      if (sent % (BATCH * 64) === 0) await new Promise((r) => setImmediate(r))
    }
  })
  process.on('disconnect', () => process.exit(0))
} else {
  const bundle = await load()
  const { EspHomeProxy } = await import('../dist/index.js')
  const lib = createRequire(import.meta.url)('@2colors/esphome-native-api')

  async function device(encrypted) {
    const child = fork(fileURLToPath(import.meta.url), ['--device', '--advertisements', String(TOTAL)], {
      env: { ...process.env, BUNDLE: bundle, ENCRYPTED: encrypted ? '1' : '0' },
    })
    const { port } = await new Promise((resolve) => child.once('message', resolve))
    return { child, port }
  }

  /** Runs one client: `connect(port, onSubscribed, onAdvertisement)` returns a stop function. */
  async function measure(label, encrypted, connect) {
    const { child, port } = await device(encrypted)
    let count = 0
    let cpu0
    let t0
    const done = new Promise((resolve) => {
      const stop = connect(
        port,
        () => setTimeout(() => child.send('go'), 100),
        (n = 1) => {
          if (count === 0) {
            cpu0 = process.cpuUsage()
            t0 = process.hrtime.bigint()
          }
          count += n
          if (count >= TOTAL) resolve(stop)
        },
      )
    })
    const stop = await done
    const cpu = process.cpuUsage(cpu0)
    const wall = Number(process.hrtime.bigint() - t0) / 1e9
    const cpuS = (cpu.user + cpu.system) / 1e6
    stop()
    child.kill()
    const row = {
      client: label,
      advertisements: count,
      'adv/CPU-s': Math.round(count / cpuS),
      'µs CPU/adv': +((cpuS * 1e6) / count).toFixed(2),
      'adv/s wall': Math.round(count / wall),
    }
    console.log(JSON.stringify(row))
    return row
  }

  const ours = (encrypted) => (port, subscribed, heard) => {
    const p = new EspHomeProxy({ host: '127.0.0.1', port, key: encrypted ? KEY : undefined, maxMessagesPerSecond: 1e9 })
    p.on('connected', subscribed)
    p.on('advertisement', () => heard())
    p.start()
    return () => p.stop()
  }
  const twoColors = (encrypted) => (port, subscribed, heard) => {
    const c = new lib.Connection({ host: '127.0.0.1', port, encryptionKey: encrypted ? KEY.toString('base64') : '', reconnect: false, pingInterval: 600_000 })
    c.on('authorized', () => {
      c.subscribeBluetoothAdvertisementService()
      subscribed()
    })
    c.on('message.BluetoothLEAdvertisementResponse', () => heard())
    c.connect()
    return () => c.disconnect()
  }

  console.log(`ESPHome proxy client: ${TOTAL} advertisements in raw batches of ${BATCH}, node ${process.version}`)
  // Interleaved runs (each client warms up in the first); the median of RUNS per client is reported.
  const runs = new Map()
  for (let run = 0; run < RUNS; run++) {
    for (const encrypted of [false, true]) {
      for (const [name, client] of [['beaconkit', ours], ['@2colors/esphome-native-api', twoColors]]) {
        const label = `${name} ${encrypted ? 'Noise' : 'plaintext'}`
        const row = await measure(label, encrypted, client(encrypted))
        runs.set(label, [...(runs.get(label) ?? []), row])
      }
    }
  }
  const median = (rows, key) => rows.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rows.length / 2)]
  console.table(
    [...runs].map(([client, rows]) => ({
      client,
      'adv/CPU-s': median(rows, 'adv/CPU-s'),
      'µs CPU/adv': median(rows, 'µs CPU/adv'),
      'adv/s wall': median(rows, 'adv/s wall'),
    })),
  )
}
