// What hostile publishers cost a FleetTracker (issue #23 items 4 and 6): RSS, CPU and the
// longest event-loop stall of a tracker (in a child process, default options, a one-gateway
// site) while an anonymous client of a real Mosquitto floods it, and whether a real beacon heard
// by the site gateway afterwards still gets in. Not a test and not part of `npm run bench`.
//
//   npm run build && node bench/fleet-limits.mjs [path/to/dist/index.js]
//
// The optional path runs the same floods against another build (e.g. the code before the fix).
import { fork } from 'node:child_process'
import { setInterval } from 'node:timers'
import { setTimeout as sleep } from 'node:timers/promises'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL, URL } from 'node:url'
import { resolve } from 'node:path'
import mqtt from 'mqtt'
import { MOSQUITTO_BINARY, startMosquitto } from './lib.mjs'

const SERIAL = '0117C5456A36'
const here = fileURLToPath(import.meta.url)


/** The tracker's side: reports RSS, CPU and the longest stall every 200 ms. */
async function trackerChild(dist, url, prefix, protocol) {
  const { FleetTracker, Site } = await import(pathToFileURL(resolve(dist)).href)
  // BENCH_NO_POSITIONS=1: a site without gateway positions (no positioner), to tell its memory apart.
  const site = Site.fromJSON({ gateways: { 'hall-pi': process.env.BENCH_NO_POSITIONS === '1' ? {} : { x: 1, y: 1 } }, rooms: { Hall: ['hall-pi'] } })
  let client
  if (protocol === '4') client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 1000 })
  const tracker = new FleetTracker({ ...(client === undefined ? { url } : { client }), topicPrefix: prefix, site })
  tracker.on('error', () => {})
  process.on('disconnect', () => process.exit(0))
  await tracker.start()
  let last = performance.now()
  let stall = 0
  setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last - 10)
    last = now
  }, 10)
  setInterval(() => {
    if (!process.connected) return
    const cpu = process.cpuUsage()
    const s = tracker.stats
    const mem = process.memoryUsage()
    process.send({ rss: mem.rss, heap: mem.heapUsed, cpuMs: (cpu.user + cpu.system) / 1000, stall, real: tracker.get(SERIAL) !== undefined, beacons: tracker.beacons().length, stats: { droppedBeacons: s.droppedBeacons, refusedBeacons: s.refusedBeacons, evictedBeacons: s.evictedBeacons, oversized: s.oversized, skippedReadings: s.skippedReadings } })
    stall = 0
  }, 200)
}

function batch(gateway, ids, pad = '') {
  const now = Date.now()
  const readings = ids.map((id) => `{"id":"${id}${pad}","rssi":-70,"lastSeen":${now},"count":1}`)
  return `{"gateway":"${gateway}","time":${now},"readings":[${readings.join(',')}]}`
}

const fakes = (prefix, n, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}-${from + i}`)

async function scenario(dist, url, name, prefix, protocol, flood) {
  const child = fork(here, ['tracker', dist, url, prefix, protocol], { execArgv: [] })
  const reports = []
  child.on('message', (m) => reports.push(m))
  while (reports.length < 3) await sleep(50)
  const before = reports.at(-1)
  const from = reports.length
  const pub = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  await flood(pub)
  await sleep(1000)
  const sent = Date.now()
  await pub.publishAsync(`${prefix}/gateways/hall-pi/rssi`, batch('hall-pi', [SERIAL]), { qos: 1 })
  // The tracker may still be busy with the flood: the real beacon's wait is part of the result.
  while (!reports.at(-1).real && Date.now() - sent < 30_000) await sleep(100)
  const admittedAfter = reports.at(-1).real ? `${((Date.now() - sent) / 1000).toFixed(1)} s` : 'not within 30 s'
  await sleep(2000)
  await pub.endAsync()
  const during = reports.slice(from)
  const end = reports.at(-1)
  child.kill()
  const mb = (b) => (b / 1048576).toFixed(0)
  console.log(`${name}: RSS ${mb(before.rss)} → peak ${mb(Math.max(...during.map((r) => r.rss)))} → end ${mb(end.rss)} MB (heap used ${mb(end.heap)} MB); CPU ${(end.cpuMs - before.cpuMs).toFixed(0)} ms; longest stall ${Math.max(...during.map((r) => r.stall)).toFixed(0)} ms; beacons ${end.beacons}; real beacon admitted after ${admittedAfter}; ${JSON.stringify(end.stats)}`)
}

async function main(dist) {
  if (MOSQUITTO_BINARY === undefined) {
    console.log('skipped: mosquitto is not installed (apt-get install -y mosquitto)')
    return
  }
  const broker = await startMosquitto()
  try {
    console.log(`tracker build: ${dist}`)
    if (process.env.ONLY !== 'b') await scenario(dist, broker.url, '100,000 fake ids, one 6.8 MB batch a second for 10 s', 'a', '5', async (pub) => {
      const body = batch('stranger', fakes('fake', 100_000))
      for (let s = 0; s < 10; s++) {
        await pub.publishAsync('a/gateways/stranger/rssi', body, { qos: 0 })
        await sleep(1000)
      }
    })
    await scenario(dist, broker.url, '100,000 fake ids a second as 100 gateways x 1,000 for 10 s', 'b', '5', async (pub) => {
      for (let s = 0; s < 10; s++) {
        for (let g = 0; g < 100; g++) await pub.publishAsync(`b/gateways/stranger-${g}/rssi`, batch(`stranger-${g}`, fakes(`fake-${s}-${g}`, 1000)), { qos: 0 })
        await sleep(1000)
      }
    })
    for (const protocol of process.env.ONLY === 'b' ? [] : ['5', '4']) {
      await scenario(dist, broker.url, `one batch of 1,000,000 readings (MQTT ${protocol === '5' ? '5' : '3.1.1'})`, `c${protocol}`, protocol, async (pub) => {
        await pub.publishAsync(`c${protocol}/gateways/stranger/rssi`, batch('stranger', fakes('m', 1_000_000)), { qos: 1 })
        await sleep(5000)
      })
      await scenario(dist, broker.url, `one 183 MB batch (MQTT ${protocol === '5' ? '5' : '3.1.1'})`, `d${protocol}`, protocol, async (pub) => {
        const body = batch('stranger', fakes('h', 1_000_000), '-'.repeat(122))
        console.log(`  (batch of ${(body.length / 1e6).toFixed(0)} MB)`)
        await pub.publishAsync(`d${protocol}/gateways/stranger/rssi`, body, { qos: 1 })
        await sleep(8000)
      })
    }
  } finally {
    await broker.close()
  }
}

if (process.argv[2] === 'tracker') await trackerChild(...process.argv.slice(3))
else await main(process.argv[2] ?? fileURLToPath(new URL('../dist/index.js', import.meta.url)))
