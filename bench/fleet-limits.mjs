// What hostile publishers cost a FleetTracker (issue #23 items 4 and 6): RSS, CPU and the
// longest event-loop stall of a tracker (in a child process, default options, a one-gateway
// site) while an anonymous client of a real Mosquitto floods it, and whether a real beacon heard
// by the site gateway afterwards still gets in. Issue #35 adds three attacks that need no flood:
// one message with a reading time of −1e20 (`one-message`), three batches per gateway stamped
// 29 days ahead each minute (`clock`), and a foreign OpenMQTTGateway node named like a native
// gateway (`bridge`). Not a test and not part of `npm run bench`.
//
//   npm run build && node bench/fleet-limits.mjs [path/to/dist/index.js]
//   ONLY=one-message,clock node bench/fleet-limits.mjs    # some scenarios only
//
// Scenarios: flood (a), flood-gateways (b), huge-batch (c), huge-bytes (d), one-message, clock,
// bridge; ONLY=b is the old way to run b alone. The optional path runs the same scenarios
// against another build (e.g. the code before the fix); `bridge` runs that build's CLI
// (../cli/main.js next to the given index.js).
import { fork, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { clearInterval, setInterval } from 'node:timers'
import { setTimeout as sleep } from 'node:timers/promises'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL, URL } from 'node:url'
import { dirname, join, resolve } from 'node:path'
import mqtt from 'mqtt'
import { MOSQUITTO_BINARY, startMosquitto } from './lib.mjs'

const SERIAL = '0117C5456A36'
/** The four placed gateways of the clock scenario. */
const FOUR = { nw: { x: 0, y: 10, z: 2.5 }, ne: { x: 12, y: 10, z: 2.5 }, sw: { x: 0, y: 0, z: 2.5 }, se: { x: 12, y: 0, z: 2.5 } }
const DAY = 24 * 3600_000
const here = fileURLToPath(import.meta.url)


/** The tracker's side: reports RSS, CPU and the longest stall every 200 ms. */
async function trackerChild(dist, url, prefix, protocol, siteKind = 'one') {
  const { FleetTracker, Site } = await import(pathToFileURL(resolve(dist)).href)
  // BENCH_NO_POSITIONS=1: a site without gateway positions (no positioner), to tell its memory apart.
  const site =
    siteKind === 'four'
      ? Site.fromJSON({ gateways: FOUR, area: { minX: 0, minY: 0, maxX: 12, maxY: 10 } })
      : Site.fromJSON({ gateways: { 'hall-pi': process.env.BENCH_NO_POSITIONS === '1' ? {} : { x: 1, y: 1 } }, rooms: { Hall: ['hall-pi'] } })
  let client
  if (protocol === '4') client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 1000 })
  // BENCH_THREAD=0: positioning in the tracker's own thread (the default with one core).
  const positioning = process.env.BENCH_THREAD === '0' ? { positioning: { thread: false } } : {}
  const tracker = new FleetTracker({ ...(client === undefined ? { url } : { client }), topicPrefix: prefix, site, ...positioning })
  tracker.on('error', () => {})
  let gone = 0
  tracker.on('gone', () => gone++)
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
    process.send({ at: Date.now(), rss: mem.rss, heap: mem.heapUsed, cpuMs: (cpu.user + cpu.system) / 1000, stall, real: tracker.get(SERIAL) !== undefined, placed: tracker.get('T2')?.position !== undefined, gone, beacons: tracker.beacons().length, stats: { droppedBeacons: s.droppedBeacons, refusedBeacons: s.refusedBeacons, evictedBeacons: s.evictedBeacons, oversized: s.oversized, skippedReadings: s.skippedReadings } })
    stall = 0
  }, 200)
}

function batch(gateway, ids, pad = '', now = Date.now()) {
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

/** Starts a tracker child; resolves with it and its reports once it reports. */
async function startTracker(dist, url, prefix, siteKind, env = {}) {
  const child = fork(here, ['tracker', dist, url, prefix, '5', siteKind], { execArgv: [], env: { ...process.env, ...env } })
  const reports = []
  child.on('message', (m) => reports.push(m))
  while (reports.length < 3) await sleep(50)
  return { child, reports }
}

/**
 * #35 item 1: one batch from the placed site gateway with a reading at −1e20 ms. Before the fix
 * the positioner's step loop never advanced: no report, no stall measurable (the loop does not
 * end). Reported: the tracker's reports in the 10 s after (50 expected), the longest stall, and
 * whether a tag first heard afterwards is placed and the real beacon admitted; with the
 * positioning thread (the default on more than one core) and without (one core).
 */
async function oneMessage(dist, url, thread) {
  const prefix = thread ? 'om' : 'om1'
  const { child, reports } = await startTracker(dist, url, prefix, 'one', thread ? {} : { BENCH_THREAD: '0' })
  const pub = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  const topic = `${prefix}/gateways/hall-pi/rssi`
  await pub.publishAsync(topic, batch('hall-pi', ['T1']), { qos: 1 })
  await sleep(1500)
  const from = reports.length
  const now = Date.now()
  await pub.publishAsync(topic, `{"gateway":"hall-pi","time":${now},"readings":[{"id":"P6","rssi":-60,"lastSeen":-1e20,"count":1}]}`, { qos: 1 })
  for (let s = 0; s < 10; s++) {
    await pub.publishAsync(topic, batch('hall-pi', s === 5 ? ['T1', 'T2', SERIAL] : ['T1', 'T2']), { qos: 0 })
    await sleep(1000)
  }
  const during = reports.slice(from)
  await pub.endAsync()
  child.kill('SIGKILL')
  const end = reports.at(-1)
  const stall = during.length === 0 ? 'n/a' : `${Math.max(...during.map((r) => r.stall)).toFixed(0)} ms`
  const where = thread ? 'positioning thread as default' : 'positioning in the tracker thread'
  console.log(`one message {"id":"P6","lastSeen":-1e20} from the placed gateway (${where}): ${during.length} tracker reports in the 10 s after (50 expected); longest stall ${stall}; a tag first heard after it placed: ${during.length > 0 && end.placed}; real beacon admitted: ${during.length > 0 && end.real}`)
}

/**
 * #35 item 3: four placed gateways publish a batch a second for six beacons; at 5 s and again a
 * minute later an attacker publishes three batches per gateway stamped now + 29 days (12
 * messages within a second). Reported: the fewest beacons present after the first attack, the
 * seconds with none, and the gone events.
 */
async function clockAttack(dist, url, seconds = Number(process.env.CLOCK_SECONDS ?? 100)) {
  const prefix = 'ck'
  const { child, reports } = await startTracker(dist, url, prefix, 'four')
  const pub = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  const tags = fakes('tag', 6)
  const send = (gateway, time) => pub.publish(`${prefix}/gateways/${gateway}/rssi`, batch(gateway, tags, '', time), { qos: 0 })
  const honest = setInterval(() => {
    for (const g of Object.keys(FOUR)) send(g, Date.now())
  }, 1000)
  const started = Date.now()
  await sleep(5000)
  const from = reports.length
  const goneBefore = reports.at(-1).gone
  let attacks = 0
  for (let at = 5; at < seconds; at += 60) {
    if (at > 5) await sleep(Math.max(0, started + at * 1000 - Date.now()))
    for (let k = 0; k < 3; k++) for (const g of Object.keys(FOUR)) send(g, Date.now() + 29 * DAY)
    attacks++
  }
  await sleep(Math.max(0, started + seconds * 1000 - Date.now()))
  clearInterval(honest)
  await pub.endAsync()
  child.kill('SIGKILL')
  const during = reports.slice(from)
  // Reports come every 200 ms: five make a second.
  const empty = during.filter((r) => r.beacons === 0).length / 5
  console.log(`${attacks} clock attacks (3 batches per gateway stamped +29 days, 12 messages in a second, each minute) against 4 honest gateways, ${seconds} s: fewest beacons present ${Math.min(...during.map((r) => r.beacons))} of 6; ${empty.toFixed(0)} s with none; ${reports.at(-1).gone - goneBefore} gone events`)
}

/**
 * #35 item 2 (fixed on another branch): a foreign OpenMQTTGateway node named like the native
 * gateway kitchen-pi publishes `home/kitchen-pi/LWT` = offline and readings of its own beacons,
 * into `beaconkit fleet --input omg:home` (that build's CLI). Reported: whether the native
 * gateway's status topic went offline (or was taken over: `via` the bridge), and how many foreign beacons the fleet credited to it.
 */
async function bridgeAttack(dist, url) {
  const cli = resolve(dirname(resolve(dist)), 'cli', 'main.js')
  const dir = mkdtempSync(join(tmpdir(), 'fleet-limits-'))
  const sitePath = join(dir, 'site.json')
  writeFileSync(sitePath, JSON.stringify({ gateways: { 'kitchen-pi': { x: 1, y: 1 }, 'hall-pi': { x: 8, y: 1 } }, area: { minX: 0, minY: 0, maxX: 10, maxY: 6 } }))
  const fleet = spawn(process.execPath, [cli, 'fleet', '--mqtt', url, '--site', sitePath, '--input', 'omg:home', '--json', '--log-level', 'error'], { stdio: ['ignore', 'ignore', 'ignore'] })
  const watch = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  const statuses = []
  const credited = new Set()
  watch.on('message', (topic, payload) => {
    if (payload.length === 0) return
    const m = JSON.parse(payload.toString())
    if (topic === 'beaconkit/gateways/kitchen-pi/status') statuses.push(m.via === undefined ? m.state : `${m.state} via ${m.via}`)
    else if (topic.startsWith('beaconkit/fleet/beacons/') && m.id !== 'native-tag' && m.gateways?.some((g) => g.gateway === 'kitchen-pi')) credited.add(m.id)
  })
  await watch.subscribeAsync(['beaconkit/gateways/kitchen-pi/status', 'beaconkit/fleet/beacons/+'])
  const native = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  await native.publishAsync('beaconkit/gateways/kitchen-pi/status', JSON.stringify({ state: 'online', time: Date.now(), version: 'bench' }), { qos: 1, retain: true })
  const nativeBatches = setInterval(() => native.publish('beaconkit/gateways/kitchen-pi/rssi', batch('kitchen-pi', ['native-tag']), { qos: 0 }), 1000)
  await sleep(4000)
  const before = statuses.length
  const foreign = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 })
  await foreign.publishAsync('home/kitchen-pi/LWT', 'offline', { qos: 1, retain: true })
  for (let s = 0; s < 5; s++) {
    for (let b = 1; b <= 3; b++) {
      const mac = `c0:ff:ee:00:00:0${b}`
      const manufacturerdata = `4c000215e2c56db5dffb48d2b060d0f5a71096e00064000${b}c5`
      await foreign.publishAsync(`home/kitchen-pi/BTtoMQTT/${mac.replaceAll(':', '').toUpperCase()}`, JSON.stringify({ id: mac, rssi: -62, manufacturerdata }), { qos: 0 })
    }
    await sleep(1000)
  }
  await sleep(3000)
  clearInterval(nativeBatches)
  const after = statuses.slice(before)
  console.log(`foreign OMG node "kitchen-pi" (LWT offline + 3 beacons) beside the native gateway kitchen-pi: native status went offline: ${after.some((x) => x.startsWith('offline'))} (states after: ${after.join(',') || 'none'}); foreign beacons credited to kitchen-pi: ${credited.size}`)
  await foreign.publishAsync('home/kitchen-pi/LWT', '', { qos: 1, retain: true })
  await native.publishAsync('beaconkit/gateways/kitchen-pi/status', '', { qos: 1, retain: true })
  await Promise.all([foreign.endAsync(), native.endAsync(), watch.endAsync()])
  fleet.kill('SIGTERM')
  await new Promise((r) => fleet.once('exit', r))
  rmSync(dir, { recursive: true, force: true })
}

async function main(dist) {
  if (MOSQUITTO_BINARY === undefined) {
    console.log('skipped: mosquitto is not installed (apt-get install -y mosquitto)')
    return
  }
  // ONLY=b (the old selection) or a comma-separated list of scenario names.
  const only = process.env.ONLY === undefined ? undefined : new Set(process.env.ONLY.split(','))
  const runs = (name, alias) => only === undefined || only.has(name) || (alias !== undefined && only.has(alias))
  const broker = await startMosquitto()
  try {
    console.log(`tracker build: ${dist}`)
    if (runs('flood', 'a')) await scenario(dist, broker.url, '100,000 fake ids, one 6.8 MB batch a second for 10 s', 'a', '5', async (pub) => {
      const body = batch('stranger', fakes('fake', 100_000))
      for (let s = 0; s < 10; s++) {
        await pub.publishAsync('a/gateways/stranger/rssi', body, { qos: 0 })
        await sleep(1000)
      }
    })
    if (runs('flood-gateways', 'b')) await scenario(dist, broker.url, '100,000 fake ids a second as 100 gateways x 1,000 for 10 s', 'b', '5', async (pub) => {
      for (let s = 0; s < 10; s++) {
        for (let g = 0; g < 100; g++) await pub.publishAsync(`b/gateways/stranger-${g}/rssi`, batch(`stranger-${g}`, fakes(`fake-${s}-${g}`, 1000)), { qos: 0 })
        await sleep(1000)
      }
    })
    for (const protocol of ['5', '4']) {
      if (runs('huge-batch', 'c')) await scenario(dist, broker.url, `one batch of 1,000,000 readings (MQTT ${protocol === '5' ? '5' : '3.1.1'})`, `c${protocol}`, protocol, async (pub) => {
        await pub.publishAsync(`c${protocol}/gateways/stranger/rssi`, batch('stranger', fakes('m', 1_000_000)), { qos: 1 })
        await sleep(5000)
      })
      if (runs('huge-bytes', 'd')) await scenario(dist, broker.url, `one 183 MB batch (MQTT ${protocol === '5' ? '5' : '3.1.1'})`, `d${protocol}`, protocol, async (pub) => {
        const body = batch('stranger', fakes('h', 1_000_000), '-'.repeat(122))
        console.log(`  (batch of ${(body.length / 1e6).toFixed(0)} MB)`)
        await pub.publishAsync(`d${protocol}/gateways/stranger/rssi`, body, { qos: 1 })
        await sleep(8000)
      })
    }
    if (runs('one-message')) for (const thread of [true, false]) await oneMessage(dist, broker.url, thread)
    if (runs('clock')) await clockAttack(dist, broker.url)
    if (runs('bridge')) await bridgeAttack(dist, broker.url)
  } finally {
    await broker.close()
  }
}

if (process.argv[2] === 'tracker') await trackerChild(...process.argv.slice(3))
else await main(process.argv[2] ?? fileURLToPath(new URL('../dist/index.js', import.meta.url)))
