// MqttPublisher: broker traffic (messages and bytes per second) for 100 and 10,000 beacons,
// beside what a per-packet publisher (one state message per advertisement) would send, and the
// publisher's cost per advertisement at 10,000 beacons against the scanner's own ingest cost.
// The publisher writes to a counting client (no broker, no socket): what is measured is what
// the publisher decides to send and what deciding costs, not a broker's speed.
//   npm run build && node --expose-gc bench/mqtt.bench.mjs
import { BeaconScanner, MqttPublisher, SimulatedSource, VirtualClock } from '../dist/index.js'
import { row, siteDevices, SITE_T0, PushSource, feed } from './lib.mjs'

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
function makeAdverts(beacons, seconds, intervalMs = 1000) {
  const devices = siteDevices(beacons, { intervalMs, distance: (i) => i % 10 === 0 ? { from: 1, to: 15, startMs: 0, durationMs: seconds * 1000 } : 1 + (i % 20) })
  const sim = new SimulatedSource({ devices, seed: 1, lossRate: 0 })
  return [...sim.advertisements(seconds * 1000, T0)]
}

async function setup(withPublisher) {
  const clock = new VirtualClock(T0)
  const source = new PushSource(clock)
  const scanner = new BeaconScanner({ source })
  scanner.on('found', () => {})
  scanner.on('gone', () => {})
  scanner.on('updated', () => {})
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

async function ingestNs(advs, warm, withPublisher, runs = 5) {
  let best = Infinity
  for (let r = 0; r < runs; r++) {
    const { source, clock, publisher } = await setup(withPublisher)
    feed(source, clock, advs, 0, warm)
    const t = process.hrtime.bigint()
    feed(source, clock, advs, warm, advs.length)
    const ns = Number(process.hrtime.bigint() - t)
    if (ns < best) best = ns
    await publisher?.close()
  }
  return best / (advs.length - warm)
}

console.log('| measurement | value | note |')
console.log('|---|---|---|')
for (const beacons of [100, 10_000]) {
  const t = await traffic(beacons, 125)
  const size = await stateMessageBytes(beacons)
  row(`${beacons} beacons: MqttPublisher messages`, t.messages, 'msg/s')
  row(`${beacons} beacons: MqttPublisher bytes`, t.bytes / 1024, 'KiB/s')
  row(`${beacons} beacons: per-packet publisher messages`, t.packets, 'msg/s')
  row(`${beacons} beacons: per-packet publisher bytes`, (t.packets * size) / 1024, 'KiB/s')
}

for (const [intervalMs, seconds] of [[1000, 12], [100, 4]]) {
  const advs = makeAdverts(10_000, seconds, intervalMs)
  globalThis.benchAdverts = advs
  const warm = advs.findIndex((a) => a.timestamp >= T0 + 2000)
  const alone = await ingestNs(advs, warm, false)
  const withPublisher = await ingestNs(advs, warm, true)
  const every = `10,000 beacons every ${intervalMs} ms`
  row(`${every}: scanner alone, per advertisement`, alone, 'ns')
  row(`${every}: scanner + MqttPublisher, per advertisement`, withPublisher, 'ns')
  row(`${every}: publisher's cost / scanner's own ingest cost`, ((withPublisher - alone) / alone) * 100, '%', 'target < 10%')
  // Let the recording go before the next one is made.
  globalThis.benchAdverts = undefined
}

// The floor: the RSSI batch of 10,000 readings serialized once a second, as the contract says.
const readings = []
for (let i = 0; i < 10_000; i++) readings.push({ id: `0117C5${i.toString(16).toUpperCase().padStart(6, '0')}`, rssi: -60.3 - (i % 20), measuredPower: -59, lastSeen: T0 + i, count: 2 })
let best = Infinity
for (let r = 0; r < 20; r++) {
  const t = process.hrtime.bigint()
  JSON.stringify({ gateway: 'bench', time: T0, readings })
  best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6)
}
row('JSON of one RSSI batch of 10,000 readings (once a second)', best, 'ms')
