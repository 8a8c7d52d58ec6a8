// The whole gateway process at one radio's ceiling: 1,350 beacons, each sending an iBeacon
// ADV_IND and a 0x81E7 SCAN_RSP once a second (2,700 HCI advertising reports a second), in real
// time, as HCI LE Advertising Report events into real noble over the integration tests' fake
// HCI socket → NobleSource → BeaconScanner → MqttPublisher (Home Assistant discovery on) → a
// real Mosquitto on loopback. The gateway is a child process of its own (bench/gateway-process.mjs,
// with bench/gateway-radio.mjs preloaded as its radio); this process plays the
// beacons (one UDP datagram per HCI event), counts what reaches Mosquitto with a subscriber,
// and reads the gateway's CPU time, RSS and counters at the start and end of each window.
//
// Levels, so the table says where the time goes (each a fresh child, the same traffic):
//   radio    the datagrams are read and dropped: the floor a socket read per event costs;
//   noble    + noble's HCI/GAP parsing, a bare `discover` listener;
//   scanner  + NobleSource and BeaconScanner (found/gone/updated listeners);
//   gateway  NobleSource + BeaconScanner + MqttPublisher({ homeAssistant: true }) to Mosquitto;
//   cli      (with --cli) `beaconkit scan --mqtt <url> --ha --json` from dist/, stdout to /dev/null.
// The levels take turns within each run (run 1 of each, run 2 of each, …): the host's load
// drifts over minutes.
//   npm run bench:gateway                 (3 runs, 30 s windows: the BENCHMARKS.md figures)
//   npm run build && node bench/gateway.bench.mjs [--runs N] [--seconds S] [--warm S] [--every-ms N] [--cli] [--profile] [--only <level>,…]
// Without arguments (as `npm run bench` runs it): one run with 20 s windows.
import { spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { clearInterval, setInterval, setTimeout } from 'node:timers'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { SimulatedSource } from '../dist/index.js'
import { MOSQUITTO_BINARY, buildFakeHci, importFakeHci, siteDevices, startMosquitto } from './lib.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const BEACONS = 1_350
// The simulator adds 0–10 ms (BLE's advDelay) to every interval: 995 ms makes the mean 1,000 ms,
// so the beacons send 2,700 reports a second, one radio's ceiling.
const INTERVAL_MS = 995
// BENCHMARKS.md, "Whole stack", "The radio's ceiling on a Raspberry Pi": a Pi 4 core taken as
// 4× slower than this host's for this code (6× as the pessimistic case).
const PI4_FACTOR = 4
const PI4_PESSIMISTIC = 6
const LEVELS = ['radio', 'noble', 'scanner', 'gateway', 'cli']
const PROFILE_DIR = join(tmpdir(), 'beaconkit-gateway-profiles')

// ---------------------------------------------------------------- the beacons (this process)
/** Prebuilt HCI events with their send times (ms from the start), `seconds` long. */
function traffic(hci, seconds) {
  const devices = siteDevices(BEACONS, {
    intervalMs: INTERVAL_MS,
    // One in ten walks (its RSSI and step counter change every second), as in the MQTT bench.
    distance: (i) => (i % 10 === 0 ? { from: 1, to: 15, startMs: 0, durationMs: seconds * 1000 } : 1 + (i % 20)),
  })
  const flags = hci.adStructure(hci.AD_FLAGS, [hci.FLAGS_LE_GENERAL_NO_BREDR])
  const out = []
  for (const adv of new SimulatedSource({ devices, seed: 1, lossRate: 0 }).advertisements(seconds * 1000, 0)) {
    const report =
      adv.manufacturerData !== undefined
        ? { type: hci.ADV_IND, data: Buffer.concat([flags, hci.adStructure(hci.AD_MANUFACTURER_SPECIFIC, adv.manufacturerData)]) }
        : { type: hci.SCAN_RSP, data: hci.serviceData16(Number.parseInt(adv.serviceData[0].uuid, 16), adv.serviceData[0].data) }
    out.push({ t: adv.timestamp, packet: hci.leAdvertisingReport({ ...report, address: adv.address, rssi: adv.rssi }) })
  }
  return out
}

/**
 * This side of the radio: a UDP socket the gateway's preload says `hello` to; `play()` sends the
 * events on time (checked every millisecond), `ask()` returns the gateway's counters.
 */
async function openRadio() {
  const socket = createSocket({ type: 'udp4', sendBufferSize: 4 << 20 })
  let gatewayPort
  let helloed
  const hello = new Promise((resolve) => (helloed = resolve))
  let answer
  let sent = () => 0
  socket.on('message', (msg, from) => {
    if (msg.toString() === 'hello') {
      gatewayPort = from.port
      helloed()
    } else answer?.(JSON.parse(msg.toString()))
  })
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve))
  return {
    port: socket.address().port,
    hello,
    async ask() {
      const reply = new Promise((resolve, reject) => {
        answer = resolve
        setTimeout(() => reject(new Error('the gateway did not answer within 10 s')), 10_000).unref()
      })
      socket.send('stats', gatewayPort, '127.0.0.1')
      const r = await reply
      return { ...r, at: performance.now(), sent: sent() }
    },
    play(events, everyMs) {
      const t0 = performance.now()
      let i = 0
      sent = () => i
      const timer = setInterval(() => {
        const now = performance.now() - t0
        while (i < events.length && events[i].t <= now) socket.send(events[i++].packet, gatewayPort, '127.0.0.1')
        if (i === events.length) clearInterval(timer)
      }, everyMs)
      return () => clearInterval(timer)
    },
    close: () => socket.close(),
  }
}

/**
 * CPU seconds of another process so far (Linux /proc: utime + stime at 100 ticks a second); with
 * `thread`, of that thread only (the main thread's id is the process id).
 */
function cpuSeconds(pid, thread) {
  try {
    const f = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(f[11]) + Number(f[12])) / 100
  } catch {
    return NaN
  }
}

/** One window of one level: a fresh gateway child, `warm` seconds of traffic, then `seconds` measured. */
async function measure(level, { events, broker, counter, hciDir, warm, seconds, everyMs, profile }) {
  const radio = await openRadio()
  const preload = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), '--import', join(here, 'gateway-radio.mjs')]
  const args = level === 'cli'
    ? [...preload, join(root, 'dist/cli/main.js'), 'scan', '--hci', '0', '--mqtt', broker.url, '--ha', '--gateway-id', 'bench-cli', '--json']
    : [...preload, join(here, 'gateway-process.mjs'), level, broker.url]
  const child = spawn(process.execPath, args, {
    env: { ...process.env, BEACONKIT_BENCH_HCI_DIR: hciDir, BEACONKIT_BENCH_PORT: String(radio.port), BEACONKIT_BENCH_LEVEL: level },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    await Promise.race([radio.hello, sleep(60_000).then(() => Promise.reject(new Error(`${level}: no hello from the gateway within 60 s`)))])
    const stop = radio.play(events, everyMs)
    await sleep(warm * 1000)
    const m0 = { ...counter }
    const b0 = cpuSeconds(broker.pid)
    // The main thread (JavaScript, the event loop) apart from the rest (GC helpers, libuv's pool).
    const t0 = cpuSeconds(child.pid, child.pid)
    const a = await radio.ask()
    await sleep(seconds * 1000)
    const b = await radio.ask()
    const t1 = cpuSeconds(child.pid, child.pid)
    const m1 = { ...counter }
    const b1 = cpuSeconds(broker.pid)
    stop()
    const wall = (b.at - a.at) / 1000
    const per = (key) => (b[key] - a[key]) / wall
    return {
      level,
      cpu: (b.cpuUs - a.cpuUs) / 1e6 / wall,
      sys: (b.sysUs - a.sysUs) / 1e6 / wall,
      main: (t1 - t0) / wall,
      usPerReport: (b.cpuUs - a.cpuUs) / (b.received - a.received),
      rss: b.rss,
      heapUsed: b.heapUsed,
      sent: per('sent'),
      received: per('received'),
      delivered: per('delivered'),
      events: level === 'noble' ? per('discovered') : b.advertisements === undefined ? NaN : per('advertisements'),
      tracked: b.tracked,
      messages: (m1.messages - m0.messages) / wall,
      bytes: (m1.bytes - m0.bytes) / wall,
      published: b.published === undefined ? NaN : per('published'),
      dropped: b.dropped ?? 0,
      broker: (b1 - b0) / wall,
    }
  } finally {
    child.kill('SIGTERM')
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))])
    radio.close()
  }
}

const f1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })
const f2 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })
const range = (xs, fmt = f1) => {
  const lo = Math.min(...xs)
  const hi = Math.max(...xs)
  return fmt.format(lo) === fmt.format(hi) ? fmt.format(lo) : `${fmt.format(lo)}–${fmt.format(hi)}`
}

async function main() {
  if (MOSQUITTO_BINARY === undefined) {
    console.log('gateway bench skipped: mosquitto is not installed (apt-get install -y mosquitto)')
    return
  }
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name)
    return i === -1 ? fallback : Number(process.argv[i + 1])
  }
  const runs = arg('--runs', 1)
  const seconds = arg('--seconds', 20)
  const warm = arg('--warm', 10)
  // How often the beacons' due reports go out: every 1 ms by default, about what a USB adapter
  // hands the kernel (its interrupt endpoint is polled every millisecond); more shows what the
  // gateway's wake-ups cost.
  const everyMs = arg('--every-ms', 1)
  // A V8 CPU profile of each gateway child, written into PROFILE_DIR when it exits.
  const profile = process.argv.includes('--profile')
  if (profile) console.log(`CPU profiles of the gateway processes: ${PROFILE_DIR}`)
  const onlyAt = process.argv.indexOf('--only')
  const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1].split(',')
  const levels = LEVELS.filter((l) => (only === undefined ? l !== 'cli' || process.argv.includes('--cli') : only.includes(l)))

  // A bundle of our own inside node_modules (it must resolve noble from there), removed at the end.
  const cache = join(root, 'node_modules', '.cache')
  await mkdir(cache, { recursive: true })
  const hciDir = await buildFakeHci(await mkdtemp(join(cache, 'beaconkit-bench-gateway-')))
  const hci = await importFakeHci(hciDir)
  const events = traffic(hci, warm + seconds + 5)
  const broker = await startMosquitto()
  const { default: mqtt } = await import('mqtt')
  const sub = await mqtt.connectAsync(broker.url, { clientId: 'bench-counter', reconnectPeriod: 0 })
  const counter = { messages: 0, bytes: 0 }
  sub.on('message', (topic, payload) => {
    counter.messages++
    counter.bytes += Buffer.byteLength(topic) + payload.length
  })
  await sub.subscribeAsync('#', { qos: 0 })
  const results = Object.fromEntries(levels.map((l) => [l, []]))
  try {
    console.log(`${BEACONS.toLocaleString('en-US')} beacons, ADV_IND + SCAN_RSP every ${INTERVAL_MS}–${INTERVAL_MS + 10} ms, sent every ${everyMs} ms; ${warm} s warm-up, ${seconds} s measured, ${runs} run(s); load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
    console.log('| run | level | CPU % of a core | of which system | main thread | µs CPU / report | RSS MiB | heap MiB | reports/s sent | reports/s read | delivered/s | events/s | beacons | to Mosquitto msg/s | KiB/s | publisher msg/s | Mosquitto CPU % |')
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for (let r = 1; r <= runs; r++) {
      for (const level of levels) {
        const m = await measure(level, { events, broker, counter, hciDir, warm, seconds, everyMs, profile })
        results[level].push(m)
        console.log(
          `| ${r} | ${level} | ${f1.format(m.cpu * 100)} | ${f1.format(m.sys * 100)} | ${f1.format(m.main * 100)} | ${f2.format(m.usPerReport)} | ${f1.format(m.rss / 2 ** 20)} | ${f1.format(m.heapUsed / 2 ** 20)} | ${f1.format(m.sent)} | ${f1.format(m.received)} | ${f1.format(m.delivered)} | ${f1.format(m.events)} | ${m.tracked ?? ''} | ${f1.format(m.messages)} | ${f1.format(m.bytes / 1024)} | ${Number.isNaN(m.published) ? '' : f1.format(m.published)} | ${f1.format(m.broker * 100)} |`,
        )
        // The pacing runs on this process's timers: a starved bench sends late, then in a burst.
        if (Math.abs(m.sent / 2700 - 1) > 0.02) console.log(`  (${level}: ${f1.format(m.sent)} reports/s sent in the window, not 2,700: the bench fell behind)`)
        if (m.dropped > 0) console.log(`  (${level}: the publisher dropped ${m.dropped} messages)`)
      }
    }
    console.log(`\nOver ${runs} run(s) (load average now ${loadavg().map((x) => x.toFixed(1)).join(' ')}); Pi 4: × ${PI4_FACTOR} (× ${PI4_PESSIMISTIC} pessimistic), BENCHMARKS.md "Whole stack":`)
    console.log('| level | CPU % of a core | µs CPU / report | Pi 4 estimate, % of one core | RSS MiB | to Mosquitto msg/s | KiB/s |')
    console.log('|---|---|---|---|---|---|---|')
    for (const level of levels) {
      const ms = results[level]
      const cpu = ms.map((m) => m.cpu * 100)
      console.log(
        `| ${level} | ${range(cpu)} | ${range(ms.map((m) => m.usPerReport), f2)} | ${range(cpu.map((c) => c * PI4_FACTOR))} (${range(cpu.map((c) => c * PI4_PESSIMISTIC))}) | ${range(ms.map((m) => m.rss / 2 ** 20))} | ${range(ms.map((m) => m.messages))} | ${range(ms.map((m) => m.bytes / 1024))} |`,
      )
    }
  } finally {
    await sub.endAsync()
    await broker.close()
    await rm(hciDir, { recursive: true, force: true })
  }
}

await main()
process.exit(0)
