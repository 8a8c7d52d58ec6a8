// Regenerates fixtures/*.jsonl with the simulator, deterministically (fixed seeds, fixed start
// times): running it again produces the same bytes. fixtures/README.md describes each file.
//   npm run build && node scripts/make-fixtures.mjs
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SimulatedSource, formatAdvertisementLine, formatRecordingHeader, parseBroadcastKey } from '../dist/index.js'

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures')
const UUID = '23A01AF0-232A-4518-9C0E-323FB773F5EF'
const OTHER_UUID = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0'

/** The public sample key of PROTOCOL.md 3 (key id 0001): the demo's "configured" key. */
export const TEST_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'

/** A second, valid raw key (key id beef) that the demo does NOT configure: its device stays unverified. */
function rawKey(key14Hex, keyIdHex) {
  const digest = createHash('sha1').update(Buffer.from(key14Hex + keyIdHex, 'hex')).digest('hex').slice(0, 8)
  return key14Hex + keyIdHex + digest
}
export const UNLISTED_KEY = rawKey('000102030405060708090a0b0c0d', 'beef')

function write(name, { seed, startTime, durationMs, devices, about, noiseDb = 4, lossRate = 0.1 }) {
  const sim = new SimulatedSource({ seed, devices, noiseDb, lossRate })
  const lines = [formatRecordingHeader({ about, generator: 'scripts/make-fixtures.mjs', seed, startTime, durationMs })]
  for (const adv of sim.advertisements(durationMs, startTime)) lines.push(formatAdvertisementLine(adv))
  writeFileSync(join(out, name), `${lines.join('\n')}\n`)
  console.log(`${name}: ${lines.length - 1} advertisements`)
}

const ib = (major, minor, uuid = UUID) => ({ proximityUUID: uuid, major, minor, measuredPower: -59 })

write('demo.jsonl', {
  about: 'A mixed site for the demo: iBeacon-only, 0x80E7, 0x81E7 plaintext and encrypted devices, one walking away, one arriving late',
  seed: 2026,
  startTime: Date.UTC(2026, 0, 1, 8, 0, 0),
  durationMs: 90_000,
  devices: [
    { address: 'c0:00:00:00:00:01', ibeacon: ib(100, 1, OTHER_UUID), intervalMs: 1000, distance: 2.5 },
    { address: 'c0:00:00:00:00:02', ibeacon: ib(1, 2), vendor: [{ frame: 'e780' }], serialNumber: '0117C5000002', major: 1, minor: 2, intervalMs: 1000, distance: 4, temperature: 19 },
    { address: 'c0:00:00:00:00:03', ibeacon: ib(1, 3), vendor: [{ frame: 'e781', mode: 0x30 }], serialNumber: '0117C5000003', major: 1, minor: 3, intervalMs: 500, distance: 1.2, temperature: 23, light: 300 },
    { address: 'c0:00:00:00:00:04', ibeacon: ib(1, 4), vendor: [{ frame: 'e781', mode: 0x10 }, { frame: 'e781', mode: 0x20 }], serialNumber: '0117C5000004', major: 1, minor: 4, intervalMs: 1000, distance: 6, batteryLevel: 64 },
    { address: 'c0:00:00:00:00:05', ibeacon: ib(7, 7), vendor: [{ frame: 'e781', mode: 0x41 }, { frame: 'e781', mode: 0x42 }], serialNumber: '0117C5000005', major: 2, minor: 5, key: parseBroadcastKey(TEST_KEY), rotateIBeaconMs: 15_000, intervalMs: 1000, distance: 3 },
    { address: 'c0:00:00:00:00:06', vendor: [{ frame: 'e781', mode: 0x41 }, { frame: 'e781', mode: 0x42 }], serialNumber: '0117C5000006', major: 2, minor: 6, key: parseBroadcastKey(UNLISTED_KEY), intervalMs: 1000, distance: 5 },
    { address: 'c0:00:00:00:00:07', ibeacon: ib(1, 7), vendor: [{ frame: 'e781', mode: 0x30 }], serialNumber: '0117C5000007', major: 1, minor: 7, intervalMs: 500, distance: { from: 1, to: 25, startMs: 20_000, durationMs: 30_000 }, leaveAtMs: 50_000 },
    { address: 'c0:00:00:00:00:08', ibeacon: ib(1, 8), vendor: [{ frame: 'e781', mode: 0x30 }], serialNumber: '0117C5000008', major: 1, minor: 8, intervalMs: 500, distance: { from: 15, to: 1.5, startMs: 40_000, durationMs: 20_000 }, appearAtMs: 40_000 },
  ],
})

write('arrivals.jsonl', {
  about: 'Three iBeacons arriving and leaving at set times, no packet loss: for exact found/gone timelines',
  seed: 7,
  startTime: Date.UTC(2026, 0, 1, 9, 0, 0),
  durationMs: 30_000,
  lossRate: 0,
  devices: [
    { address: 'd0:00:00:00:00:01', ibeacon: ib(3, 1), intervalMs: 1000, distance: 1, leaveAtMs: 10_000 },
    { address: 'd0:00:00:00:00:02', ibeacon: ib(3, 2), intervalMs: 1000, distance: 2, appearAtMs: 5_000, leaveAtMs: 20_000 },
    { address: 'd0:00:00:00:00:03', ibeacon: ib(3, 3), intervalMs: 1000, distance: 3, appearAtMs: 12_000 },
  ],
})

write('walk-away.jsonl', {
  about: 'One still 0x81E7 beacon and one walking from 1 m to 30 m with 30 % packet loss, then gone',
  seed: 11,
  startTime: Date.UTC(2026, 0, 1, 10, 0, 0),
  durationMs: 40_000,
  lossRate: 0.3,
  devices: [
    { address: 'e0:00:00:00:00:01', ibeacon: ib(5, 1), vendor: [{ frame: 'e781', mode: 0x30 }], serialNumber: '0117C5E00001', major: 5, minor: 1, intervalMs: 500, distance: 2 },
    { address: 'e0:00:00:00:00:02', ibeacon: ib(5, 2), vendor: [{ frame: 'e781', mode: 0x30 }], serialNumber: '0117C5E00002', major: 5, minor: 2, intervalMs: 500, distance: { from: 1, to: 30, startMs: 5_000, durationMs: 20_000 }, leaveAtMs: 25_000 },
  ],
})
