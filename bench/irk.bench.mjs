// Identity resolving keys (issue 37): what resolving costs, per CPU second (process.cpuUsage,
// user + system, so the other core's load does not count). Resolution runs once per new
// address (IdentityResolver's bounded cache) with one AES key schedule kept per key, so the
// rows that matter are new addresses: a street of strangers rotating addresses.
//   npm run build && node --expose-gc bench/irk.bench.mjs
import {
  BeaconScanner,
  IdentityKeyring,
  IdentityResolver,
  ReplaySource,
  parseIdentityKey,
  rpaFor,
} from '../dist/index.js'
import { phonesRecording } from '../scripts/make-phones-recording.mjs'
import { appScanner, feed, row, seededData, settledHeap, SITE_T0 } from './lib.mjs'

const { rand, hexBytes } = seededData(0x1d3)

function cpuNs(fn) {
  const before = process.cpuUsage()
  fn()
  const d = process.cpuUsage(before)
  return (d.user + d.system) * 1000
}

/** Best of `runs` CPU times of `fn`, in ns. */
function bestCpuNs(fn, runs = 5) {
  fn()
  let best = Infinity
  for (let i = 0; i < runs; i++) best = Math.min(best, cpuNs(fn))
  return best
}

function keyring(n, ours = []) {
  const keys = [...ours]
  for (let i = keys.length; i < n; i++) keys.push(parseIdentityKey(`key-${i}`, hexBytes(16)))
  return new IdentityKeyring(keys)
}

/** `n` resolvable addresses (top bits 01) under keys nobody holds. */
function strangers(n) {
  return Array.from({ length: n }, () => {
    const b = Array.from({ length: 6 }, () => rand(256))
    b[0] = 0x40 | (b[0] & 0x3f)
    return b.map((x) => x.toString(16).padStart(2, '0')).join(':')
  })
}

// ---- resolution alone ------------------------------------------------------------------------
const NEW = strangers(100_000)
for (const keys of [1, 10, 50, 100]) {
  const ring = keyring(keys)
  const count = keys >= 50 ? 20_000 : 100_000
  const ns = bestCpuNs(() => {
    const r = new IdentityResolver(ring, { cacheSize: 10_000 })
    for (let i = 0; i < count; i++) r.resolve(NEW[i], 'random')
  })
  row(`IdentityResolver, new addresses, ${keys} key${keys === 1 ? '' : 's'}`, (count * 1e9) / ns, 'addresses/CPU s')
  if (keys === 100)
    row('…the same as ah() blocks (one per key per new address)', (count * keys * 1e9) / ns, 'blocks/CPU s')
}
{
  const ring = keyring(50)
  const r = new IdentityResolver(ring)
  const known = NEW.slice(0, 5000)
  for (const a of known) r.resolve(a, 'random')
  const ns = bestCpuNs(() => {
    for (let k = 0; k < 20; k++) for (const a of known) r.resolve(a, 'random')
  })
  row('IdentityResolver, cached addresses (hits), 50 keys', (100_000 * 1e9) / ns, 'addresses/CPU s')
}

// ---- the scanner's ingest at 10,000 new addresses a second ----------------------------------
// 10 s of traffic: each second 10,000 strangers' new addresses (frame-less, 3 packets each over
// the second, as a phone's Nearby Info), plus 10 phones of ours at 10 packets a second.
const NEARBY = Uint8Array.from([0x4c, 0x00, 0x10, 0x05, 0x01, 0x18, 0x2c, 0x9a, 0x3e])
const OURS = Array.from({ length: 10 }, (_, i) => parseIdentityKey(`phone-${i}`, hexBytes(16)))
const SECONDS = 10
const traffic = []
const crowd = strangers(SECONDS * 10_000)
for (let s = 0; s < SECONDS; s++) {
  for (let i = 0; i < 10_000; i++) {
    const address = crowd[s * 10_000 + i]
    for (let p = 0; p < 3; p++) {
      const timestamp = SITE_T0 + s * 1000 + Math.floor((i / 10_000) * 1000) + p * 300
      traffic.push({ address, addressType: 'random', rssi: -90, timestamp, manufacturerData: NEARBY })
    }
  }
  for (const [j, key] of OURS.entries()) {
    const address = rpaFor(key, 100 + Math.floor(s / 4) + j * 1000)
    for (let p = 0; p < 10; p++) {
      traffic.push({
        address,
        addressType: 'random',
        rssi: -60,
        timestamp: SITE_T0 + s * 1000 + p * 100,
        manufacturerData: NEARBY,
      })
    }
  }
}
traffic.sort((a, b) => a.timestamp - b.timestamp)
globalThis.benchTraffic = traffic

async function ingest(keys) {
  let best = Infinity
  let tracked = 0
  for (let run = 0; run < 3; run++) {
    const identities = keys === 0 ? undefined : keyring(keys, OURS)
    const { scanner, source, clock } = appScanner(identities === undefined ? {} : { identities })
    await scanner.start()
    best = Math.min(
      best,
      cpuNs(() => feed(source, clock, traffic)),
    )
    tracked = scanner.beacons().length
    await scanner.stop()
  }
  return { rate: (traffic.length * 1e9) / best, share: (best / 1e9 / SECONDS) * 100, tracked }
}

for (const keys of [0, 10, 100]) {
  const { rate, share, tracked } = await ingest(keys)
  row(`scanner ingest, 10,000 new addresses/s, ${keys} keys (${tracked} irk devices tracked)`, rate, 'adverts/CPU s')
  row(`…CPU share of one core for that traffic (${keys} keys)`, share, '%')
}

// ---- memory: 20,000 new addresses with 50 keys ------------------------------------------------
// The scanner's own per-address decoder cache (two generations of 50,000 addresses) holds
// strangers with or without keys; the resolver adds its bounded answers (10,000 by default).
async function heapAfter(keys, addresses) {
  const identities = keys === 0 ? undefined : keyring(keys, OURS)
  const { scanner, source, clock } = appScanner(identities === undefined ? {} : { identities })
  await scanner.start()
  const advs = strangers(addresses).map((address, i) => ({
    address,
    addressType: 'random',
    rssi: -90,
    timestamp: SITE_T0 + Math.floor((i * 10_000) / addresses),
    manufacturerData: NEARBY,
  }))
  const before = settledHeap()
  feed(source, clock, advs)
  const grown = settledHeap() - before
  const cached = scanner.stats.identities?.cached ?? 0
  await scanner.stop()
  return { grown, cached }
}
for (const [keys, n] of [
  [0, 20_000],
  [50, 20_000],
  [0, 200_000],
  [50, 200_000],
]) {
  const { grown, cached } = await heapAfter(keys, n)
  const label = `heap growth, ${n.toLocaleString('en-US')} new addresses in 10 s, ${keys} keys (${cached} answers cached)`
  row(label, grown / 1024, 'KB')
}

// ---- the Done-when recording, replayed in virtual time ----------------------------------------
const { lines } = phonesRecording()
for (const keys of [0, 2, 50]) {
  const ring = keys === 0 ? undefined : keyring(keys, await phoneKeys())
  const ns = await replayCpuNs(ring)
  row(`replay --virtual of the phones recording (${lines.length - 1} adverts), ${keys} keys`, ns / 1e6, 'CPU ms')
}

async function phoneKeys() {
  const { IRK_FILE_TEXT } = await import('../scripts/make-phones-recording.mjs')
  return IdentityKeyring.fromText(IRK_FILE_TEXT).keys()
}

async function replayCpuNs(identities) {
  let best = Infinity
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage()
    const source = new ReplaySource(lines, { virtual: true })
    const scanner = new BeaconScanner({ source, ...(identities === undefined ? {} : { identities }) })
    scanner.on('found', () => {})
    scanner.on('gone', () => {})
    await scanner.start()
    await scanner.drain()
    await scanner.stop()
    const d = process.cpuUsage(before)
    best = Math.min(best, (d.user + d.system) * 1000)
  }
  return best
}
