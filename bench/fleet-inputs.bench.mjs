// Fleet ingest with foreign inputs (issue #27), beside the native batch path, through a real
// Mosquitto on loopback: 100 nodes × 500 tags (12,500 tags, each heard by the 4 nodes around it
// on a 10 × 10 grid, as bench/fleet.bench.mjs). Native: 100 beaconkit gateways send one RSSI
// batch a second each (50,000 observations/s). Foreign: 100 ESP32 nodes — 50 OpenMQTTGateway
// (raw manufacturer data, pubadvdata) and 50 ESPresense (iBeacon ids) — send one message per tag
// they hear per second (50,000 messages/s), and the ForeignBridge turns each node into a gateway
// (a BeaconScanner + MqttPublisher) that the FleetTracker fuses. The senders are a separate
// process; the measured process runs the tracker (native) or the bridge and the tracker
// (foreign). Reported: messages handled per second and per CPU-second of that process.
//   npm run build && node bench/fleet-inputs.bench.mjs [--seconds 10]
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setImmediate, setTimeout } from 'node:timers'
import { fileURLToPath } from 'node:url'
import { beaconsHeardBy, MOSQUITTO_BINARY, startMosquitto } from './lib.mjs'

const NODES = 100
const GRID = 10
const TAGS = 12_500
const PER_NODE = 500
const UUID = 'fda50693-a4e2-4fb1-afcf-c6eb07647825'

/** Node `g`'s tags: a tag is heard by the node at its grid cell and the 3 to its right and below. */
const tagsOf = (g) => beaconsHeardBy(g, GRID, TAGS)

const nodeId = (g) => (g % 2 === 0 ? `omg${g}` : `esp_${g}`)
const mac = (b) => `c0ffee${b.toString(16).padStart(6, '0')}`
const major = (b) => b >> 8
const minor = (b) => b & 0xff

function site() {
  const gateways = {}
  const rooms = {}
  for (let g = 0; g < NODES; g++) {
    gateways[nodeId(g)] = {}
    gateways[`gw${g}`] = {}
    const room = `room-${Math.floor((g % GRID) / 2)}-${Math.floor(Math.floor(g / GRID) / 2)}`
    ;(rooms[room] ??= []).push(nodeId(g), `gw${g}`)
  }
  return { gateways, rooms }
}

/** The messages of one node for one second. */
function messagesOf(g, lists) {
  const now = Date.now()
  if (lists[g].kind === 'native') {
    const readings = lists[g].tags.map((b) => ({ id: `${UUID.toUpperCase()}|${major(b)}|${minor(b)}`, rssi: -55 - ((b * 7 + g * 13) % 30), measuredPower: -59, lastSeen: now, count: 1 }))
    return [[`beaconkit/gateways/gw${g}/rssi`, JSON.stringify({ gateway: `gw${g}`, time: now, readings })]]
  }
  return lists[g].messages
}

// ---------------------------------------------------------------- senders (a child process)
async function senders(url, mode, seconds) {
  const { default: mqtt } = await import('mqtt')
  const client = await mqtt.connectAsync(url, { clientId: `bench-inputs-senders-${process.pid}`, reconnectPeriod: 0 })
  const lists = Array.from({ length: NODES }, (_, g) => {
    const tags = tagsOf(g)
    if (mode === 'native') return { kind: 'native', tags }
    const messages = tags.map((b) => {
      const rssi = -55 - ((b * 7 + g * 13) % 30)
      const md = `4c000215${UUID.replace(/-/g, '')}${major(b).toString(16).padStart(4, '0')}${minor(b).toString(16).padStart(4, '0')}c5`
      return g % 2 === 0
        ? [`home/${nodeId(g)}/BTtoMQTT/${mac(b).toUpperCase()}`, JSON.stringify({ id: mac(b).toUpperCase().replace(/(..)(?!$)/g, '$1:'), mac_type: 1, rssi, manufacturerdata: md })]
        : [`espresense/devices/iBeacon:${UUID}-${major(b)}-${minor(b)}/${nodeId(g)}`, JSON.stringify({ mac: mac(b), id: `iBeacon:${UUID}-${major(b)}-${minor(b)}`, 'rssi@1m': -59, rssi: rssi + 0.25, rxAdj: 0, distance: 2.1 })]
    })
    return { kind: 'foreign', messages }
  })
  const start = Date.now()
  let sent = 0
  let rounds = 0
  process.stdout.write(`${JSON.stringify({ started: start })}\n`)
  while (Date.now() - start < seconds * 1000) {
    const due = Math.floor((Date.now() - start) / 1000) * NODES + NODES
    while (rounds < due && client.stream.writableLength < 4 * 1024 * 1024) {
      for (const [topic, payload] of messagesOf(rounds % NODES, lists)) {
        client.publish(topic, payload, { qos: 0 })
        sent++
      }
      rounds++
    }
    await new Promise((resolve) => setImmediate(resolve))
    if (rounds >= due) await new Promise((resolve) => setTimeout(resolve, 2))
  }
  await client.endAsync()
  process.stdout.write(`${JSON.stringify({ done: true, sent, perSecond: sent / ((Date.now() - start) / 1000) })}\n`)
}

// ---------------------------------------------------------------- measured process
async function measured(url, mode, seconds) {
  const { FleetTracker, ForeignBridge, Site } = await import('../dist/index.js')
  const tracker = new FleetTracker({ url, site: Site.fromJSON(site()), clientId: `bench-inputs-tracker-${mode}`, maxBeacons: 100_000 })
  tracker.on('error', () => undefined)
  const bridge = mode === 'foreign' ? new ForeignBridge({ url, clientId: 'bench-inputs-bridge', inputs: [{ format: 'omg', base: 'home' }, { format: 'espresense', base: 'espresense' }] }) : undefined
  bridge?.on('error', () => undefined)
  await bridge?.start()
  await tracker.start()
  const handled = () => (mode === 'foreign' ? bridge.stats.messages : tracker.stats.batches)
  const sender = spawn(process.execPath, [fileURLToPath(import.meta.url), '--senders', url, mode, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = createInterface({ input: sender.stdout })
  let cpu0
  let at0
  let h0
  let result
  for await (const line of lines) {
    const msg = JSON.parse(line)
    if (msg.started !== undefined) {
      // The first two seconds warm up (nodes created, beacons found); measure from there.
      await new Promise((resolve) => setTimeout(resolve, 2000))
      cpu0 = process.cpuUsage()
      at0 = process.hrtime.bigint()
      h0 = handled()
    }
    if (msg.done) {
      const wall = Number(process.hrtime.bigint() - at0) / 1e9
      const used = process.cpuUsage(cpu0)
      const cpu = (used.user + used.system) / 1e6
      const count = handled() - h0
      result = { sentPerSecond: msg.perSecond, handledPerSecond: count / wall, cpuShare: cpu / wall, perCpuSecond: count / cpu, beacons: tracker.beacons().length, nodes: bridge?.stats.nodes ?? NODES }
    }
  }
  await tracker.stop(2000)
  await bridge?.close(2000)
  return result
}

const args = process.argv.slice(2)
if (args[0] === '--senders') {
  await senders(args[1], args[2], Number(args[3]))
} else if (args[0] === '--measured') {
  process.stdout.write(`${JSON.stringify(await measured(args[1], args[2], Number(args[3])))}\n`)
  process.exit(0)
} else if (MOSQUITTO_BINARY === undefined) {
  console.log('fleet-inputs bench skipped: mosquitto is not installed (apt-get install -y mosquitto)')
} else {
  const i = args.indexOf('--seconds')
  const seconds = i >= 0 ? Number(args[i + 1]) : 12
  const broker = await startMosquitto()
  const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
  const results = {}
  for (const mode of ['native', 'foreign']) {
    // Each path in a fresh process of its own, so its CPU is its own.
    const child = spawn(process.execPath, [...(process.env.BENCH_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`]), fileURLToPath(import.meta.url), '--measured', broker.url, mode, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    await new Promise((resolve) => child.on('close', resolve))
    results[mode] = JSON.parse(out.trim().split('\n').at(-1))
  }
  await broker.close()
  const n = results.native
  const f = results.foreign
  console.log(`| measurement | native batches (100 gateways × 500 beacons) | foreign messages (100 ESP32 nodes × 500 tags) |`)
  console.log(`|---|---|---|`)
  console.log(`| messages sent per second | ${fmt.format(n.sentPerSecond)} batches (${fmt.format(n.sentPerSecond * PER_NODE)} observations) | ${fmt.format(f.sentPerSecond)} |`)
  console.log(`| messages handled per second | ${fmt.format(n.handledPerSecond)} batches (${fmt.format(n.handledPerSecond * PER_NODE)} observations) | ${fmt.format(f.handledPerSecond)} |`)
  console.log(`| CPU of the measured process (% of a core) | ${fmt.format(n.cpuShare * 100)} | ${fmt.format(f.cpuShare * 100)} |`)
  console.log(`| handled per CPU-second | ${fmt.format(n.perCpuSecond * PER_NODE)} observations | **${fmt.format(f.perCpuSecond)} messages** |`)
  console.log(`| fleet beacons at the end | ${fmt.format(n.beacons)} | ${fmt.format(f.beacons)} (${f.nodes} nodes) |`)
}
