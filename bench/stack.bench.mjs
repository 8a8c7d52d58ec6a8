// The whole stack on a gateway: HCI LE Advertising Report bytes in, through real noble (its
// own HCI and GAP parsing, over the user-space fake HCI socket the integration tests use),
// to an event out. Four consumers of the same packets, each on its own noble instance from
// the same noble package and fake socket (its own fake adapter, so they never see each
// other's traffic):
//   - noble alone: a bare `discover` listener (noble's own cost, the floor);
//   - node-beacon-scanner 0.2.2 on noble (its `onadvertisement` callback);
//   - NobleSource: beaconkit's snapshot, `advertisement` event (no scanner);
//   - NobleSource + BeaconScanner: decoder and range table, with found/gone/updated listeners.
// node-beacon-scanner cannot share NobleSource's instance: its stopScan() removes every
// `discover` listener of the instance, and its startScanning() would replace the scan
// settings NobleSource asked for; so it gets an instance of its own, like the others.
// Steady state: every beacon has been heard once (found) before the timed passes. The fake
// controller's delivery is a synchronous EventEmitter emit of a prebuilt packet, the same
// path the tests use; building the packets is outside the timing.
//   npm run build && node --expose-gc bench/stack.bench.mjs
// With an argument, only the consumers whose name contains it (for a profile of one of them):
//   node --cpu-prof bench/stack.bench.mjs beaconkit
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { BeaconScanner, NobleSource, SimulatedSource } from '../dist/index.js'
import { buildFakeHci, importFakeHci, row, siteDevices } from './lib.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// Each timed run delivers PACKETS advertisements: passes over every beacon's iBeacon packet and
// its 0x81E7 packet (two passes at 10,000 beacons, fifteen at 1,000).
const PACKETS = 30_000
const RUNS = 4

const hci = await importFakeHci(await buildFakeHci())
const fake = hci.installFakeHciSocket()
const require = createRequire(join(root, 'package.json'))
const nobleFactory = require('@abandonware/noble/with-custom-binding.js')
const BeaconScannerNbs = require('node-beacon-scanner')

/** Prebuilt HCI packets: `passes + 1` seconds of N beacons (iBeacon + 0x81E7 frame each), one report per event. */
function packets(beacons, passes) {
  const devices = siteDevices(beacons)
  const flags = hci.adStructure(hci.AD_FLAGS, [hci.FLAGS_LE_GENERAL_NO_BREDR])
  const out = []
  for (const adv of new SimulatedSource({ devices, seed: 1, lossRate: 0 }).advertisements((passes + 1) * 1000, 0)) {
    const ad = adv.manufacturerData !== undefined
      ? hci.adStructure(hci.AD_MANUFACTURER_SPECIFIC, adv.manufacturerData)
      : hci.serviceData16(Number.parseInt(adv.serviceData[0].uuid, 16), adv.serviceData[0].data)
    out.push(hci.leAdvertisingReport({ type: hci.ADV_NONCONN_IND, address: adv.address, data: Buffer.concat([flags, ad]), rssi: adv.rssi }))
  }
  return { first: out.slice(0, 2 * beacons), rest: out.slice(2 * beacons) }
}

const until = async (check, what) => {
  for (let i = 0; i < 50_000 && !check(); i++) await sleep(1)
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

/** A plain noble instance on fake adapter `id`, scanning with duplicates. */
async function plainNoble(id) {
  const noble = nobleFactory({ deviceId: id })
  await until(() => noble.state === 'poweredOn', 'noble poweredOn')
  return noble
}

let nextAdapter = 1

/** The consumers; each returns `{ count(), stop() }` once its scan runs on a fresh fake adapter. */
const consumers = {
  async 'noble alone (bare `discover` listener)'(device) {
    const noble = await plainNoble(device.id)
    let n = 0
    noble.on('discover', () => n++)
    await new Promise((resolve, reject) => noble.startScanning([], true, (e) => (e ? reject(e) : resolve())))
    await until(() => device.scanEnabled, 'scan enable')
    return { count: () => n, stop: () => noble.stopScanning() }
  },
  async 'node-beacon-scanner 0.2.2 on noble'(device) {
    const noble = await plainNoble(device.id)
    const scanner = new BeaconScannerNbs({ noble })
    let n = 0
    scanner.onadvertisement = () => n++
    await scanner.startScan()
    // startScan() resolves before its startScanning callback adds the `discover` listener.
    await until(() => noble.listenerCount('discover') > 0 && device.scanEnabled, 'node-beacon-scanner listening')
    return { count: () => n, stop: () => scanner.stopScan() }
  },
  async 'NobleSource on noble (`advertisement` event)'(device) {
    const source = new NobleSource({ hciDeviceId: device.id })
    let n = 0
    source.on('advertisement', () => n++)
    await source.start()
    return { count: () => n, stop: () => source.stop() }
  },
  async 'beaconkit: NobleSource + BeaconScanner (scanner events)'(device, beacons) {
    const source = new NobleSource({ hciDeviceId: device.id })
    const scanner = new BeaconScanner({ source })
    scanner.on('found', () => {})
    scanner.on('gone', () => {})
    scanner.on('updated', () => {})
    await scanner.start()
    return {
      count: () => scanner.stats.advertisements,
      stop: async () => {
        if (scanner.beacons().length !== beacons) throw new Error(`expected ${beacons} beacons in range, got ${scanner.beacons().length}`)
        await scanner.stop()
      },
    }
  },
}

/**
 * CPU µs per advertisement of each consumer, packets delivered one by one. All consumers are set
 * up and warmed first, then timed in turns (run 1 of each, run 2 of each, …), best of RUNS:
 * timing one consumer after the other would hand the later ones noble's code already
 * optimised and the earlier ones the host's slow minutes.
 */
async function measureAll(beacons, traffic) {
  const only = process.argv[2]
  const names = Object.keys(consumers).filter((name) => only === undefined || name.includes(only))
  const rigs = []
  for (const name of names) {
    const device = fake.device(nextAdapter++)
    rigs.push({ name, device, consumer: await consumers[name](device, beacons), best: Infinity })
  }
  const deliver = (device, list) => {
    for (let i = 0; i < list.length; i++) device.deliver(list[i])
  }
  for (const { device } of rigs) {
    deliver(device, traffic.first) // every beacon heard once: found, noble's peripheral created
    deliver(device, traffic.rest) // warm-up
  }
  for (let r = 0; r < RUNS; r++) {
    for (const rig of rigs) {
      const before = rig.consumer.count()
      // CPU time, not wall time: on a shared machine the wall clock also counts the minutes
      // another process had the core, which made columns timed moments apart incomparable.
      const cpu0 = process.cpuUsage()
      deliver(rig.device, traffic.rest)
      const cpu = process.cpuUsage(cpu0)
      const ns = (cpu.user + cpu.system) * 1000
      // Everything above is synchronous: the packets must all have arrived by now.
      const got = rig.consumer.count() - before
      if (got !== traffic.rest.length) throw new Error(`${rig.name}: ${got} of ${traffic.rest.length} advertisements arrived`)
      rig.best = Math.min(rig.best, ns)
      await sleep(20) // timers (noble's poll, the scanner's tick) run between runs
    }
  }
  for (const rig of rigs) await rig.consumer.stop()
  return rigs.map((rig) => ({ name: rig.name, us: rig.best / 1000 / traffic.rest.length }))
}

console.log('| measurement | CPU µs per advertisement | adverts/s (one core) |')
console.log('|---|---|---|')
for (const beacons of [1_000, 10_000]) {
  const results = await measureAll(beacons, packets(beacons, Math.max(1, Math.round(PACKETS / (2 * beacons)))))
  for (const { name, us } of results) {
    console.log(`| ${name}, ${beacons.toLocaleString('en-US')} beacons | ${us.toFixed(2)} | ${Math.round(1e6 / us).toLocaleString('en-US')} |`)
  }
  if (results.length !== Object.keys(consumers).length) continue
  const noble = results[0].us
  const stack = results.at(-1).us
  row(`beaconkit's share (stack − noble alone), ${beacons.toLocaleString('en-US')} beacons`, stack - noble, 'µs', stack - noble < noble ? '< noble alone ✓' : '< noble alone ✗')
}
process.exit(0) // noble's one-second poll and the fake sockets keep the loop alive
