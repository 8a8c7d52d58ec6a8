// Writes a recording of phones and watches for identity resolving keys (issue 37), and the IRK
// file that resolves them, deterministically (fixed seed and start time):
//   npm run build && node scripts/make-phones-recording.mjs [out.jsonl]   (default /tmp/phones.jsonl)
// then  beaconkit replay --virtual --json --irk-file /tmp/phones.irk /tmp/phones.jsonl
//
// Who is in it (the header's `expect` says when each resolved device is found and gone):
//   alice-phone  Apple Nearby Info, a packet about every second, a new address every 40 s, 0–300 s
//   bob-watch    Apple Nearby Info, every other packet an iBeacon frame instead, a new address
//                every 30 s, 20–250 s
//   a stranger   Apple Nearby Info under a key nobody holds, a new address every 40 s, 0–300 s
//   a crowd      20,000 strangers' resolvable addresses, one packet each, within 10 s (100–110 s)
// Without the IRK file the recording shows one thing only: the watch's iBeacon, as the beacon
// of its beaconID. With it, irk:alice-phone and irk:bob-watch, found once and gone once each.
import { chmodSync, writeFileSync } from 'node:fs'
import { formatAdvertisementLine, formatRecordingHeader, parseIdentityKey, rpaFor } from '../dist/index.js'

export const START = 1767254400000
export const GONE_TIMEOUT_MS = 8000
/** Test keys, public on purpose: never use them for a real device. */
export const IRK_FILE_TEXT = [
  '# The IRK file of scripts/make-phones-recording.mjs (test keys, public on purpose).',
  'alice-phone ec0234a357c8ad05341010a60a397d9b',
  'bob-watch 00112233445566778899aabbccddeeff',
  '',
].join('\n')
const STRANGER_KEY = 'ffeeddccbbaa99887766554433221100'
const WATCH_UUID = 'E2C56DB5DFFB48D2B060D0F5A71096E0'

/** A small seeded generator (mulberry32), so the file is the same bytes every run. */
function seeded(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Apple Nearby Info (type 0x10) after Apple's company id, its status byte varying as a phone's does. */
function nearby(rand) {
  const status = Math.floor(rand() * 256)
  return `4c001005${status.toString(16).padStart(2, '0')}1c${Math.floor(rand() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}`
}

const IBEACON = `4c000215${WATCH_UUID.toLowerCase()}00070009c5`

/** Every advertisement line of the recording (with its header), in time order. */
export function phonesRecording(seed = 37) {
  const rand = seeded(seed)
  const [phone, watch] = IRK_FILE_TEXT.split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => parseIdentityKey(...l.split(' ')))
  const stranger = parseIdentityKey('stranger', STRANGER_KEY)
  const ads = []
  const device = (key, fromS, toS, rotateS, payload) => {
    for (let t = fromS * 1000 + Math.floor(rand() * 300); t <= toS * 1000; t += 900 + Math.floor(rand() * 200)) {
      const address = rpaFor(key, 1000 * seed + Math.floor(t / (rotateS * 1000)))
      ads.push({ t: START + t, address, rssi: -55 - Math.floor(rand() * 20), addressType: 'random', ...payload(t) })
    }
  }
  let watchPacket = 0
  device(phone, 0, 300, 40, () => ({ manufacturerData: nearby(rand) }))
  device(watch, 20, 250, 30, () =>
    watchPacket++ % 2 === 0 ? { manufacturerData: nearby(rand) } : { manufacturerData: IBEACON },
  )
  device(stranger, 0, 300, 40, () => ({ manufacturerData: nearby(rand) }))
  // The crowd: resolvable addresses (top bits 01) under keys nobody here holds.
  for (let i = 0; i < 20_000; i++) {
    const bytes = Array.from({ length: 6 }, () => Math.floor(rand() * 256))
    bytes[0] = 0x40 | (bytes[0] & 0x3f)
    const address = bytes.map((b) => b.toString(16).padStart(2, '0')).join(':')
    ads.push({
      t: START + 100_000 + Math.floor((i * 10_000) / 20_000),
      address,
      rssi: -90,
      addressType: 'random',
      manufacturerData: nearby(rand),
    })
  }
  ads.sort((a, b) => a.t - b.t)
  const lastOf = (name) => {
    const key = name === 'alice-phone' ? phone : watch
    const mine = new Set()
    for (let r = 0; r < 400; r++) mine.add(rpaFor(key, 1000 * seed + r))
    return ads.filter((a) => mine.has(a.address))
  }
  const expect = ['alice-phone', 'bob-watch'].map((name) => {
    const heard = lastOf(name)
    return { id: `irk:${name}`, found: heard[0].t, gone: heard[heard.length - 1].t + GONE_TIMEOUT_MS }
  })
  const header = formatRecordingHeader({
    about: 'Phones and watches rotating resolvable private addresses, a stranger, and a crowd of 20,000 addresses',
    generator: 'scripts/make-phones-recording.mjs',
    seed,
    startTime: START,
    expect,
  })
  const lines = [header]
  for (const a of ads) {
    lines.push(
      formatAdvertisementLine({
        ...a,
        timestamp: a.t,
        manufacturerData: Uint8Array.from(Buffer.from(a.manufacturerData, 'hex')),
      }),
    )
  }
  return { lines, expect }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? '/tmp/phones.jsonl'
  const irk = out.replace(/\.jsonl$/, '') + '.irk'
  const { lines, expect } = phonesRecording()
  writeFileSync(out, `${lines.join('\n')}\n`)
  writeFileSync(irk, IRK_FILE_TEXT, { mode: 0o600 })
  chmodSync(irk, 0o600)
  console.log(`${out}: ${lines.length - 1} advertisements; ${irk}: 2 keys`)
  for (const e of expect) console.log(`  ${e.id}: found at ${e.found}, gone at ${e.gone}`)
}
