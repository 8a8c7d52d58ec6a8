// Private broadcast: key parsing, keyring loading, and encrypted 0x81E7 frame throughput.
// Every encrypted frame needs its own AES key (broadcast key ‖ the frame's random code), so
// the rows with distinct random codes pay a key expansion and a block decryption each; the
// repeated rows show what the keyring's repeat cache and the Decoder's per-address cache save.
// Baseline: the obvious opener with node:crypto (a new decipher per frame) and no caches.
import { createDecipheriv, createHash } from 'node:crypto'
import { Decoder, Keyring, decodeAdvertisement, encodeE781, parseBroadcastKey } from '../dist/index.js'
import { bestMs, macAddress, opsPerSecond, row, settledHeap, seededData } from './lib.mjs'

const { rand, hexBytes } = seededData(0x9e3779b9)
function rawKey(keyId) {
  const body = hexBytes(14) + keyId.toString(16).padStart(4, '0')
  return body + createHash('sha1').update(Buffer.from(body, 'hex')).digest('hex').slice(0, 8)
}

// ---- keys --------------------------------------------------------------------------------
const RAW = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const WRAPPED = '01Y2GLh1yw3+6Aq0RsnOQ8xNvXTnDUTTLE937Yedd/DnlcV0ixCWo7JQ+VEWRSya80yea6u5aWgnW1ACjKNzFnig=='
const before = new Date('2015-01-01T00:00:00Z')
row('parseBroadcastKey, raw form', opsPerSecond((n) => { for (let i = 0; i < n; i++) parseBroadcastKey(RAW) }, 50_000), 'keys/s')
row('parseBroadcastKey, wrapped form', opsPerSecond((n) => { for (let i = 0; i < n; i++) parseBroadcastKey(WRAPPED, { now: before }) }, 20_000), 'keys/s')
const fleetText = Array.from({ length: 10_000 }, (_, i) => `${rawKey(i + 1)}  # key ${i + 1}`).join('\n')
row('Keyring.fromText, 10,000 keys', bestMs(() => Keyring.fromText(fleetText)), 'ms')

// ---- frames ------------------------------------------------------------------------------
const keyStrings = Array.from({ length: 16 }, (_, i) => rawKey(0x1000 + i))
const keys = keyStrings.map((s) => parseBroadcastKey(s))
const keyring = new Keyring(keys)
const DISTINCT = 16_384 // well beyond the repeat cache (1,024 slots), so these all decrypt
const MODES = [0x10, 0x20, 0x41, 0x42]
const frames = Array.from({ length: DISTINCT }, (_, i) => {
  const mode = MODES[i % 4]
  const identity = mode === 0x10 || mode === 0x41
  const fields = {
    mode, hardwareModelName: 'C8', firmwareVersion: '4.1', serialNumber: `0117C5${hexBytes(3).toUpperCase()}`,
    batteryLevel: rand(101), transmitPower: rand(12), advertisingInterval: 760, measuredPower: -40 - rand(60),
    ...(identity ? { major: rand(65536), minor: rand(65536) } : { temperature: rand(40), light: 12.96, accelerometerCount: rand(65536), movingState: 'still' }),
  }
  // distinct random codes: i runs through 1..16384
  const data = encodeE781(fields, { key: keys[i % keys.length], randomCode: i + 1 })
  return { address: macAddress(0xc8, 0, 0, 0, i >> 8, i), rssi: -60, timestamp: i, serviceData: [{ uuid: '81e7', data }] }
})
const check = decodeAdvertisement(frames[0], { keyring })
if (check?.secure?.verified !== true) throw new Error('bench frames do not verify')

// The obvious opener: node:crypto per frame, hex key ids, a Map of Buffers; no caches.
const naiveKeys = new Map(keyStrings.map((s) => [s.slice(28, 32), Buffer.from(s.slice(0, 28), 'hex')]))
function naiveOpen(data) {
  const key14 = naiveKeys.get(Buffer.from(data.subarray(3, 5)).toString('hex'))
  if (key14 === undefined) return null
  const d = createDecipheriv('aes-128-ecb', Buffer.concat([key14, data.subarray(5, 7)]), null)
  d.setAutoPadding(false)
  const block = Buffer.concat([d.update(data.subarray(7, 23)), d.final()])
  let crc = 0
  for (let i = 0; i < 3; i++) {
    crc ^= block[i]
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x8c : crc >>> 1
  }
  return crc === block[15] ? block : null
}
const datas = frames.map((f) => f.serviceData[0].data)
if (naiveOpen(datas[0]) === null) throw new Error('naive baseline does not verify')

const N = 200_000
row('baseline: node:crypto decipher per frame + CRC, distinct random codes', opsPerSecond((n) => {
  for (let i = 0; i < n; i++) naiveOpen(datas[i % DISTINCT])
}, N), 'frames/s')
row('decodeAdvertisement, encrypted, distinct random codes', opsPerSecond((n) => {
  for (let i = 0; i < n; i++) decodeAdvertisement(frames[i % DISTINCT], { keyring })
}, N), 'frames/s', 'target >= 500,000')
// One address whose payload changes every frame, so the Decoder's per-address cache never hits.
const decoder = new Decoder({ keyring })
const oneDevice = frames.map((f) => ({ ...f, address: 'c8:00:00:00:00:01' }))
row('Decoder.decode, encrypted, distinct random codes', opsPerSecond((n) => {
  for (let i = 0; i < n; i++) decoder.decode(oneDevice[i % DISTINCT])
}, N), 'frames/s', 'target >= 500,000')

const HOT = 64 // devices repeating their current frame, as between two changes
row('decodeAdvertisement, encrypted, repeated frames (keyring repeat cache)', opsPerSecond((n) => {
  for (let i = 0; i < n; i++) decodeAdvertisement(frames[i % HOT], { keyring })
}, 1_000_000), 'frames/s')
const hotDecoder = new Decoder({ keyring })
row('Decoder.decode, encrypted, repeated frames (per-address cache)', opsPerSecond((n) => {
  for (let i = 0; i < n; i++) hotDecoder.decode(frames[i % HOT])
}, 2_000_000), 'frames/s', 'target >= 5,000,000')

// The repeat cache is fixed-size: a million distinct frames must not grow the heap.
const ring2 = new Keyring(keys)
for (let i = 0; i < 2048; i++) decodeAdvertisement(frames[i], { keyring: ring2 })
const h0 = settledHeap()
for (let i = 0; i < 1_000_000; i++) decodeAdvertisement(frames[i % DISTINCT], { keyring: ring2 })
row('heap growth after 1,000,000 distinct encrypted frames (one keyring)', Math.max(0, settledHeap() - h0) / 1024, 'KB')
