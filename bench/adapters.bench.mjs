// Several adapters feeding one scanner: the same 10,000 beacons as scanner.bench.mjs, each
// packet heard by two adapters (hci1 6 dB weaker, 1 ms later), tagged as a CombinedSource tags
// them. Ingest rate and heap per tracked beacon, beside the same traffic from one adapter
// (tagged with its name, so per-adapter state exists) for the cost of that state.
//   npm run build && node --expose-gc bench/adapters.bench.mjs
import { SimulatedSource } from '../dist/index.js'
import { appScanner, bestIngestRate, row, settledHeap, siteDevices, SITE_T0, feed } from './lib.mjs'

const T0 = SITE_T0
const BEACONS = 10_000

function makeAdverts(seconds) {
  const devices = siteDevices(BEACONS)
  return [...new SimulatedSource({ devices, seed: 1, lossRate: 0 }).advertisements(seconds * 1000, T0)]
}

const plain = makeAdverts(12)
const one = plain.map((a) => ({ ...a, adapter: 'hci0' }))
const two = []
for (const a of plain) two.push({ ...a, adapter: 'hci0' }, { ...a, rssi: a.rssi - 6, timestamp: a.timestamp + 1, adapter: 'hci1' })
two.sort((a, b) => a.timestamp - b.timestamp)
globalThis.benchAdverts = [plain, one, two]

async function newScanner() {
  const made = appScanner()
  await made.scanner.start()
  return made
}

const warmOf = (advs) => advs.findIndex((a) => a.timestamp >= T0 + 2000)

function ingestRate(advs, runs = 5) {
  return bestIngestRate(newScanner, advs, warmOf(advs), BEACONS, runs)
}

async function heap(advs) {
  const { scanner, source, clock } = await newScanner()
  const before = settledHeap()
  feed(source, clock, advs, 0, warmOf(advs))
  const after = settledHeap()
  if (scanner.beacons().length !== BEACONS) throw new Error('not all beacons tracked')
  await scanner.stop()
  return (after - before) / BEACONS
}

console.log('| measurement | value | target |')
console.log('|---|---|---|')
row('ingest, 10,000 beacons, one adapter, unnamed (as scanner.bench)', await ingestRate(plain), 'adverts/s', '')
row('ingest, same, one adapter named (per-adapter state)', await ingestRate(one), 'adverts/s', '')
row('ingest, same, every packet heard by two adapters', await ingestRate(two), 'adverts/s', '')
row('heap per tracked beacon, one adapter, unnamed', await heap(plain), 'bytes', '<= 1,024 bytes')
row('heap per tracked beacon, one adapter, named', await heap(one), 'bytes', '')
row('heap per tracked beacon, two adapters', await heap(two), 'bytes', '')
