// The process bench/gateway.bench.mjs measures, at one of its levels (argv: level, broker URL),
// started with bench/gateway-radio.mjs preloaded (the fake HCI socket and its feed):
//   noble    noble alone over the fake socket, a bare `discover` listener;
//   scanner  NobleSource + BeaconScanner with found/gone/updated listeners;
//   gateway  NobleSource + BeaconScanner + MqttPublisher({ homeAssistant: true }) to the broker;
//   radio    nothing: the preload reads the events and drops them.
// Its counters reach the bench through the preload (`globalThis.beaconkitBenchStats`). Not a
// *.bench.mjs: bench/run.mjs skips it.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { setInterval } from 'node:timers'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

async function gateway(level, url) {
  process.once('SIGTERM', () => process.exit(0))
  if (level === 'radio') {
    setInterval(() => {}, 1 << 30) // nothing else holds the process open at this level
    return
  }
  if (level === 'noble') {
    const noble = createRequire(join(root, 'package.json'))('@abandonware/noble/with-custom-binding.js')({ deviceId: 0 })
    let discovered = 0
    noble.on('discover', () => discovered++)
    globalThis.beaconkitBenchStats = () => ({ discovered })
    for (let i = 0; i < 30_000 && noble.state !== 'poweredOn'; i++) await sleep(1)
    noble.startScanning([], true)
    return
  }
  const { BeaconScanner, MqttPublisher, NobleSource } = await import('../dist/index.js')
  const scanner = new BeaconScanner({ source: new NobleSource({ hciDeviceId: 0 }) })
  scanner.on('error', (e) => console.error(`gateway: ${e.message}`))
  let publisher
  if (level === 'gateway') {
    publisher = new MqttPublisher({ url, gatewayId: 'bench-gateway', homeAssistant: true })
    publisher.on('error', (e) => console.error(`gateway: mqtt: ${e.message}`))
    publisher.attach(scanner)
    const connected = new Promise((resolve) => publisher.once('connected', resolve))
    await publisher.connect()
    await connected
  } else {
    scanner.on('found', () => {})
    scanner.on('gone', () => {})
    scanner.on('updated', () => {})
  }
  globalThis.beaconkitBenchStats = () => {
    const p = publisher?.stats
    return {
      advertisements: scanner.stats.advertisements,
      tracked: scanner.stats.range.tracked,
      ...(p === undefined ? {} : { published: p.messages, publishedBytes: p.bytes, pending: p.pending, dropped: p.dropped.event + p.dropped.rssi }),
    }
  }
  await scanner.start()
}

await gateway(process.argv[2], process.argv[3])
