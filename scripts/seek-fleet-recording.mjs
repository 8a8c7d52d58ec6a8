// Measures FleetTimeline.snapshot() (the replay slider's seek) on a generated 400,000-line fleet
// recording. FleetTimeline is not in the package's exports, so bundle it first:
//   npx esbuild src/web/timeline.ts --bundle --platform=node --format=esm --outfile=/tmp/timeline.mjs
//   node scripts/seek-fleet-recording.mjs /tmp/timeline.mjs
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
const { FleetTimeline } = await import(pathToFileURL(resolve(process.argv[2])).href)
const dir = mkdtempSync(join(tmpdir(), 'seek-'))
const file = join(dir, 'fleet.jsonl')
const lines = [JSON.stringify({ format: 'beaconkit-fleet', version: 1 })]
let t = 1_700_000_000_000
const beacon = (id) => ({ id, gateways: [{ gateway: 'g1', rssi: -60 }], firstSeen: t, lastSeen: t, position: { x: 1, y: 2, accuracy: 1 } })
for (let i = 1; lines.length < 400_000; i++) {
  t += 100
  if (i % 600 === 0) lines.push(JSON.stringify({ t, event: 'keyframe', beacons: [beacon('b1'), beacon('b2')] }))
  else if (i % 7 === 0) lines.push(JSON.stringify({ t, event: 'found', id: `b${i % 50}` }))
  else if (i % 11 === 0) lines.push(JSON.stringify({ t, event: 'gateway', gateway: `g${i % 5}`, state: i % 2 ? 'online' : 'offline' }))
  else lines.push(JSON.stringify({ t, event: 'beacons', beacons: [beacon(`b${i % 50}`)] }))
}
writeFileSync(file, lines.join('\n') + '\n')
const tl = await FleetTimeline.load(file)
const n = 40
const t0 = process.hrtime.bigint()
for (let k = 0; k < n; k++) tl.snapshot(tl.start + ((tl.end - tl.start) * (k + 0.5)) / n)
const per = Number(process.hrtime.bigint() - t0) / 1e6 / n
const t1 = process.hrtime.bigint()
for (let k = 0; k < n; k++) tl.snapshot(tl.end)
const atEnd = Number(process.hrtime.bigint() - t1) / 1e6 / n
console.log(`${lines.length} lines: ${per.toFixed(2)} ms per snapshot across the recording, ${atEnd.toFixed(2)} ms at its end`)
rmSync(dir, { recursive: true, force: true })
