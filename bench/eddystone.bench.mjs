// Eddystone decode throughput per frame type over many distinct payloads (so no cache or
// branch predictor sees the same bytes twice in a row), against a naive decoder written the
// obvious way (Buffer hex strings, DataView, array joins) as the baseline.
import {
  decodeEddystone,
  encodeEddystoneEid,
  encodeEddystoneTlm,
  encodeEddystoneUid,
  encodeEddystoneUrl,
} from '../dist/index.js'
import { opsPerSecond, row, seededData } from './lib.mjs'

const DISTINCT = 4096
const ITERATIONS = 200_000

const { rand, hexBytes: hex } = seededData(0x2545f491)
const tx = () => rand(256) - 128
const HOSTS = ['example', 'goo.gl/', 'radius', 'a.b', 'beacon-kit', 'x1y2z3']
const TLDS = ['.com/', '.org', '.info/', '.net', '/', '']

const payloads = {
  uid: Array.from({ length: DISTINCT }, () =>
    encodeEddystoneUid({ namespace: hex(10), instance: hex(6), txPowerAt0m: tx() }),
  ),
  url: Array.from({ length: DISTINCT }, (_, i) =>
    encodeEddystoneUrl({
      url: `${rand(2) ? 'https://' : 'http://www.'}${HOSTS[rand(HOSTS.length)]}${TLDS[rand(TLDS.length)]}${i.toString(36)}`,
      txPowerAt0m: tx(),
    }),
  ),
  tlm: Array.from({ length: DISTINCT }, () =>
    encodeEddystoneTlm({
      version: 0,
      batteryMilliVolts: 2000 + rand(1500),
      temperature: rand(8) === 0 ? null : (rand(16000) - 4000) / 256,
      advertisingCount: rand(1e9),
      secondsSinceBoot: rand(1e8) / 10,
    }),
  ),
  eid: Array.from({ length: DISTINCT }, () => encodeEddystoneEid({ ephemeralId: hex(8), txPowerAt0m: tx() })),
}

// ---- the naive baseline -------------------------------------------------------------------
const SCHEMES = ['http://www.', 'https://www.', 'http://', 'https://']
const EXPANSIONS = ['.com/', '.org/', '.edu/', '.net/', '.info/', '.biz/', '.gov/', '.com', '.org', '.edu', '.net', '.info', '.biz', '.gov']
function naiveDecode(data) {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  const h = buf.toString('hex')
  switch (data[0]) {
    case 0x00:
      if (data.length !== 18 && data.length !== 20) return null
      return { uid: { namespace: h.slice(4, 24), instance: h.slice(24, 36), txPowerAt0m: view.getInt8(1) } }
    case 0x10: {
      if (data.length < 3 || data.length > 20 || data[2] > 3) return null
      const parts = [SCHEMES[data[2]]]
      for (const b of data.subarray(3)) {
        if (b < EXPANSIONS.length) parts.push(EXPANSIONS[b])
        else if (b > 0x20 && b < 0x7f) parts.push(String.fromCharCode(b))
        else return null
      }
      return { url: { url: parts.join(''), txPowerAt0m: view.getInt8(1) } }
    }
    case 0x20: {
      if (data[1] === 1) return data.length === 18 ? { tlm: { encrypted: true } } : null
      if (data[1] !== 0 || data.length !== 14) return null
      const t = view.getUint16(4)
      return {
        tlm: {
          version: 0,
          batteryMilliVolts: view.getUint16(2),
          temperature: t === 0x8000 ? null : view.getInt16(4) / 256,
          advertisingCount: view.getUint32(6),
          secondsSinceBoot: view.getUint32(10) / 10,
        },
      }
    }
    case 0x30:
      return data.length === 10 ? { eid: { ephemeralId: h.slice(4, 20), txPowerAt0m: view.getInt8(1) } } : null
    default:
      return null
  }
}

// Results are stored where the JIT can see them escape, so it can neither drop the calls
// nor scalar-replace the result objects away.
const kept = new Array(1024).fill(null)
function loop(decode, list) {
  return (n) => {
    for (let i = 0; i < n; i++) kept[i & 1023] = decode(list[i & (DISTINCT - 1)])
  }
}

// Sanity: both decoders agree on every payload before anything is timed.
for (const [kind, list] of Object.entries(payloads)) {
  for (const p of list) {
    if (JSON.stringify(decodeEddystone(p)) !== JSON.stringify(naiveDecode(p))) {
      throw new Error(`baseline disagrees on a ${kind} payload ${Buffer.from(p).toString('hex')}`)
    }
  }
}

console.log('| measurement | value | target |')
console.log('| --- | --- | --- |')
for (const [kind, list] of Object.entries(payloads)) {
  row(`eddystone ${kind} decode (${DISTINCT} distinct)`, opsPerSecond(loop(decodeEddystone, list), ITERATIONS), 'ops/s')
  row(`eddystone ${kind} decode, naive baseline`, opsPerSecond(loop(naiveDecode, list), ITERATIONS), 'ops/s')
}
const mixed = [...payloads.uid, ...payloads.url, ...payloads.tlm, ...payloads.eid].filter((_, i) => i % 4 === 0)
mixed.sort(() => rand(3) - 1)
row(`eddystone mixed decode (${mixed.length} distinct)`, opsPerSecond(loop(decodeEddystone, mixed), ITERATIONS), 'ops/s')
row('eddystone mixed decode, naive baseline', opsPerSecond(loop(naiveDecode, mixed), ITERATIONS), 'ops/s')
if (kept.every((r) => r === null)) throw new Error('no payload decoded')
