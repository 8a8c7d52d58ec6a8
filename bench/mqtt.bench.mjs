// MqttPublisher: broker traffic (messages and bytes per second) for 100 and 10,000 beacons,
// beside what a per-packet publisher (one state message per advertisement) would send, and the
// publisher's cost per advertisement at 10,000 beacons against the scanner's own ingest cost.
// The publisher writes to a counting client (no broker, no socket): what is measured is what
// the publisher decides to send and what deciding costs, not a broker's speed.
// Cost ratio = publisher CPU per second / scanner ingest CPU per second, same traffic: the
// scanner's CPU time (user + system) over the steady-state packets without a publisher, and
// the CPU time spent inside the publisher's tick/found/gone handlers plus the time inside its
// per-packet handler (less the timer's own cost) with one.
//   npm run build && node --expose-gc bench/mqtt.bench.mjs
// `--cost` runs only the CPU rows (the traffic rows take minutes and do not move with CPU work).
import { MqttPublisher, SimulatedSource } from '../dist/index.js'
import { performance } from 'node:perf_hooks'
import { appScanner, row, siteDevices, SITE_T0, feed } from './lib.mjs'

const T0 = SITE_T0

/** Counts what would go on the wire: topic + payload bytes (MQTT framing adds 4–9 bytes a message). */
class CountingClient {
  connected = true
  messages = 0
  bytes = 0
  publish(topic, payload, _opts, callback) {
    this.messages++
    this.bytes += Buffer.byteLength(topic) + Buffer.byteLength(payload)
    callback?.()
  }
  end(_force, _opts, callback) {
    callback?.()
  }
  on() {}
  removeListener() {}
}

/** Beacons with an iBeacon frame and a 0x81E7 scan response (sensors), one packet pair a second; one in ten walks. */
function makeAdverts(beacons, seconds, intervalMs = 1000, walking = true) {
  const devices = siteDevices(beacons, { intervalMs, distance: (i) => walking && i % 10 === 0 ? { from: 1, to: 15, startMs: 0, durationMs: seconds * 1000 } : 1 + (i % 20) })
  const sim = new SimulatedSource({ devices, seed: 1, lossRate: 0 })
  return [...sim.advertisements(seconds * 1000, T0)]
}

async function setup(withPublisher) {
  const { scanner, source, clock } = appScanner()
  const client = new CountingClient()
  let publisher
  if (withPublisher) {
    publisher = new MqttPublisher({ client, gatewayId: 'bench', homeAssistant: true })
    publisher.attach(scanner)
    await publisher.connect()
  }
  await scanner.start()
  return { scanner, source, clock, client, publisher }
}

/** Steady-state traffic after everything is in range (the found burst is left out). */
async function traffic(beacons, seconds) {
  const advs = makeAdverts(beacons, seconds)
  const warm = advs.findIndex((a) => a.timestamp >= T0 + 5000)
  const { source, clock, client, publisher } = await setup(true)
  feed(source, clock, advs, 0, warm)
  const m0 = client.messages
  const b0 = client.bytes
  feed(source, clock, advs, warm, advs.length)
  clock.advanceTo(T0 + seconds * 1000)
  const span = (seconds * 1000 - 5000) / 1000
  const messages = (client.messages - m0) / span
  const bytes = (client.bytes - b0) / span
  // A per-packet publisher sends one beacon state message per advertisement.
  const packets = (advs.length - warm) / span
  await publisher.close()
  return { messages, bytes, packets }
}

/** Average size of one state message (topic + Beacon JSON) at this scale, from a real state. */
async function stateMessageBytes(beacons) {
  const advs = makeAdverts(beacons, 3)
  const { scanner, source, clock, publisher } = await setup(true)
  feed(source, clock, advs, 0, advs.length)
  const list = scanner.beacons()
  let total = 0
  for (const b of list) total += Buffer.byteLength(publisher.topics.beacon(b.id)) + Buffer.byteLength(JSON.stringify(b))
  await publisher.close()
  return total / list.length
}

/**
 * The scanner as the publisher sees it, with every handler the publisher attaches timed: the
 * publisher's CPU is the time spent inside its own handlers (tick, found, gone, and the count of
 * each packet), which includes encoding and handing messages to the client.
 */
function timedScanner(scanner, meter) {
  const wrapped = new Map()
  const w = (event, fn) => {
    let timed = wrapped.get(fn)
    if (timed === undefined) {
      // A packet's count takes tens of ns: a wall clock read (being preempted inside is rare).
      // A tick takes milliseconds: CPU time, so that waiting for the other core is not counted.
      timed =
        event === 'advertisement'
          ? (arg) => {
              const t = performance.now()
              fn(arg)
              meter.ms += performance.now() - t
              meter.calls++
            }
          : (arg) => {
              const c = process.cpuUsage()
              fn(arg)
              const d = process.cpuUsage(c)
              meter.cpuMs += (d.user + d.system) / 1000
            }
      wrapped.set(fn, timed)
    }
    return timed
  }
  // Still a BeaconScanner to the publisher (which then counts packets from its snapshots).
  const proxy = Object.create(scanner)
  proxy.on = (event, fn) => scanner.on(event, w(event, fn))
  proxy.off = (event, fn) => scanner.off(event, w(event, fn))
  proxy.source = { on: (event, fn) => scanner.source.on(event, w(event, fn)), off: (event, fn) => scanner.source.off(event, w(event, fn)) }
  return proxy
}

/** What timing one call costs by itself (two clock reads), to take off every timed call. */
function timerOverheadMs() {
  const meter = { ms: 0, calls: 0 }
  let timed
  timedScanner({ source: { on: (_event, fn) => (timed = fn) } }, meter).source.on('advertisement', () => {})
  let best = Infinity
  for (let r = 0; r < 5; r++) {
    meter.ms = 0
    meter.calls = 0
    for (let i = 0; i < 200_000; i++) timed(i)
    best = Math.min(best, meter.ms / meter.calls)
  }
  return best
}

/** CPU time (user + system) of `fn`, in ms: waiting for the other core does not count. */
function cpuMs(fn) {
  const c = process.cpuUsage()
  fn()
  const d = process.cpuUsage(c)
  return (d.user + d.system) / 1000
}

/**
 * Per simulated second of steady-state traffic: the scanner's own ingest CPU (no publisher),
 * and the publisher's CPU (time in its handlers, less the timer's own cost), each the best of
 * `runs` (the run least disturbed by the other processes on the machine).
 */
async function costPerSecond(advs, warm, runs = 5) {
  const seconds = (advs[advs.length - 1].timestamp - advs[warm].timestamp) / 1000
  let scanner = Infinity
  for (let r = 0; r < runs; r++) {
    const { source, clock } = await setup(false)
    feed(source, clock, advs, 0, warm)
    scanner = Math.min(scanner, cpuMs(() => feed(source, clock, advs, warm, advs.length)))
  }
  const overhead = timerOverheadMs()
  let publisher = Infinity
  let calls = 0
  for (let r = 0; r < runs; r++) {
    const { source, clock, scanner: s } = await setup(false)
    const meter = { ms: 0, calls: 0, cpuMs: 0 }
    const p = new MqttPublisher({ client: new CountingClient(), gatewayId: 'bench', homeAssistant: true })
    p.attach(timedScanner(s, meter))
    await p.connect()
    feed(source, clock, advs, 0, warm)
    meter.ms = 0
    meter.calls = 0
    meter.cpuMs = 0
    feed(source, clock, advs, warm, advs.length)
    const ms = meter.cpuMs + meter.ms - meter.calls * overhead
    if (ms < publisher) {
      publisher = ms
      calls = meter.calls
    }
    await p.close()
  }
  return { scanner: scanner / seconds, publisher: publisher / seconds, packets: (advs.length - warm) / seconds, calls: calls / seconds, overhead }
}

const costOnly = process.argv.includes('--cost')

console.log('| measurement | value | note |')
console.log('|---|---|---|')
for (const beacons of costOnly ? [] : [100, 10_000]) {
  const t = await traffic(beacons, 125)
  const size = await stateMessageBytes(beacons)
  row(`${beacons} beacons: MqttPublisher messages`, t.messages, 'msg/s')
  row(`${beacons} beacons: MqttPublisher bytes`, t.bytes / 1024, 'KiB/s')
  row(`${beacons} beacons: per-packet publisher messages`, t.packets, 'msg/s')
  row(`${beacons} beacons: per-packet publisher bytes`, (t.packets * size) / 1024, 'KiB/s')
}

// The last case: nobody walks, so no values change: what is left is the tick's fixed cost
// (the look at every beacon, the batch, the heartbeats).
for (const [intervalMs, seconds, walking] of [[1000, 12, true], [100, 6, true], [1000, 12, false]]) {
  const advs = makeAdverts(10_000, seconds, intervalMs, walking)
  const warm = advs.findIndex((a) => a.timestamp >= T0 + 2000)
  const c = await costPerSecond(advs, warm)
  const every = `10,000 beacons every ${intervalMs} ms${walking ? '' : ', none walking'}`
  row(`${every}: scanner ingest CPU per second (${Math.round(c.packets).toLocaleString('en-US')} packets)`, c.scanner, 'ms')
  row(`${every}: scanner ingest CPU per advertisement`, (c.scanner / c.packets) * 1e6, 'ns')
  row(`${every}: MqttPublisher CPU per second`, c.publisher, 'ms')
  row(`${every}: MqttPublisher CPU per advertisement`, (c.publisher / c.packets) * 1e6, 'ns')
  row(`${every}: publisher CPU / scanner ingest CPU`, (c.publisher / c.scanner) * 100, '%', 'target < 10%')
}

// For comparison: JSON.stringify of the RSSI batch of 10,000 readings (the publisher writes it as bytes).
const readings = []
for (let i = 0; i < 10_000; i++) readings.push({ id: `0117C5${i.toString(16).toUpperCase().padStart(6, '0')}`, rssi: -60.3 - (i % 20), measuredPower: -59, lastSeen: T0 + i, count: 2 })
let best = Infinity
for (let r = 0; r < 20; r++) {
  const t = process.hrtime.bigint()
  JSON.stringify({ gateway: 'bench', time: T0, readings })
  best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6)
}
row('JSON.stringify of one RSSI batch of 10,000 readings, for comparison', best, 'ms')
