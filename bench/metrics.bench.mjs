// The cost of Prometheus metrics on the scanner's ingest (issue #26): the scanner table's
// traffic (10,000 simulated beacons in range, iBeacon + 0x81E7 scan response each, one per
// second, virtual time) into a gateway built by startGateway, with found/gone/updated
// listeners as an app has, metrics off and metrics on (the registry built, prom-client's
// default process metrics included, and the whole registry scraped once per virtual second
// inside the timed loop). Off and on alternate, 3 runs each, every run reported. A virtual
// second passes in ~20 ms here, so the loop scrapes ~50 times as often per real second as a
// 1 s scrape interval would; the row without the scrapes' own time shows the ingest path alone.
//   npm run build && node --expose-gc bench/metrics.bench.mjs
import { SimulatedSource, VirtualClock, startGateway } from '../dist/index.js'
import { PushSource, SITE_T0, siteDevices } from './lib.mjs'

const BEACONS = 10_000
const RUNS = 3
const T0 = SITE_T0
const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

const advs = [...new SimulatedSource({ devices: siteDevices(BEACONS), seed: 1, lossRate: 0 }).advertisements(12_000, T0)]
const warm = advs.findIndex((a) => a.timestamp >= T0 + 2000)
const hooks = { warn: () => {}, stderr: { write: () => true } }

/** One run: advertisements per second over `advs[warm…]`, scraping at each new virtual second when `metrics`. */
async function run(metrics) {
  const clock = new VirtualClock(T0)
  const source = new PushSource(clock)
  const gateway = await startGateway({ source, ...(metrics ? { metrics: { listen: '127.0.0.1:0' } } : {}) }, hooks)
  const { scanner } = gateway
  scanner.on('found', () => {})
  scanner.on('gone', () => {})
  scanner.on('updated', () => {})
  await gateway.start()
  let scrapes = 0
  let bytes = 0
  let scrapeNs = 0
  // Both arms run the same loop; only the scrape itself differs.
  const scrape = metrics
    ? async () => {
        const t = process.hrtime.bigint()
        bytes += (await gateway.metrics.metrics()).length
        scrapeNs += Number(process.hrtime.bigint() - t)
        scrapes++
      }
    : async () => {}
  const feed = async (from, to) => {
    let second = Math.floor((advs[from].timestamp - T0) / 1000)
    for (let i = from; i < to; i++) {
      const adv = advs[i]
      const s = Math.floor((adv.timestamp - T0) / 1000)
      if (s > second) {
        second = s
        await scrape()
      }
      clock.advanceTo(adv.timestamp)
      source.emit('advertisement', adv)
    }
  }
  await feed(0, warm)
  scrapes = 0
  bytes = 0
  scrapeNs = 0
  const t = process.hrtime.bigint()
  await feed(warm, advs.length)
  const ns = Number(process.hrtime.bigint() - t)
  if (scanner.beacons().length !== BEACONS) throw new Error(`expected ${BEACONS} beacons in range, got ${scanner.beacons().length}`)
  if (metrics && scrapes < 9) throw new Error(`expected a scrape per virtual second, got ${scrapes}`)
  await gateway.stop()
  return { rate: ((advs.length - warm) * 1e9) / ns, ingestRate: ((advs.length - warm) * 1e9) / (ns - scrapeNs), scrapes, bytes: scrapes === 0 ? 0 : bytes / scrapes, scrapeMs: scrapes === 0 ? 0 : scrapeNs / scrapes / 1e6 }
}

const off = []
const on = []
for (let r = 0; r < RUNS; r++) {
  off.push(await run(false))
  on.push(await run(true))
}
const list = (xs) => xs.map((x) => fmt.format(x.rate)).join(' / ')
const median = (xs) => xs.map((x) => x.rate).sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log('| measurement | runs (adverts/s) | median |')
console.log('|---|---|---|')
console.log(`| ingest via startGateway, metrics off | ${list(off)} | ${fmt.format(median(off))} |`)
console.log(`| ingest via startGateway, metrics on, scraped every virtual second (${on[0].scrapes} scrapes of ~${fmt.format(on[0].bytes)} bytes per run) | ${list(on)} | ${fmt.format(median(on))} |`)
console.log(`| on / off (medians) | | ${(median(on) / median(off)).toFixed(3)} |`)
const ingestOnly = on.map((x) => ({ rate: x.ingestRate }))
console.log(`| metrics on, the time spent in scrapes left out (the ingest path alone) | ${list(ingestOnly)} | ${fmt.format(median(ingestOnly))} |`)
console.log(`| one scrape at 10,000 beacons (mean per run, ms) | ${on.map((x) => x.scrapeMs.toFixed(2)).join(' / ')} | |`)
