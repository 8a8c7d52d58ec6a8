// Room flapping and false gones of the fleet, measured on the eight-gateway simulated site of the
// done-when test (fixtures/site-eight.json) over many seeds: every gateway a real BeaconScanner +
// MqttPublisher, one FleetTracker, all through the embedded broker (aedes, in this process) on one
// virtual clock stepped in lockstep with the broker. Per seed: the walker's room changes against
// the ground truth's (A → B → C: 2), the room changes of the beacons that never move (truth: 0),
// and gones of beacons a gateway heard within the gone timeout (must be 0), with gateway b1 killed
// at 50 s as in the test. Run: npm run build && node bench/fleet-rooms.bench.mjs [seeds]
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { FleetTracker, SiteSimulator, runSite, startBroker } from '../dist/index.js'

const SEEDS = Number(process.argv[2] ?? process.env.BEACONKIT_SEEDS ?? 20)
const RUN_MS = 130_000
const GONE_TIMEOUT_MS = 30_000
const json = JSON.parse(readFileSync(fileURLToPath(import.meta.resolve('../fixtures/site-eight.json')), 'utf8'))

async function until(check, what) {
  const deadline = Date.now() + 60_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(2)
  }
}

async function run(seed, url) {
  const sim = SiteSimulator.fromJSON(json, { virtual: true, seed })
  const clock = sim.clock
  const t0 = clock.now()
  const tracker = new FleetTracker({ url, clientId: `bench-rooms-${seed}`, site: sim.site, clock, goneTimeoutMs: GONE_TIMEOUT_MS })
  const changes = new Map()
  let falseGones = 0
  let gones = 0
  const settling = new Map()
  tracker.on('room', (b, change) => {
    if (change.from === undefined) return
    // The first room is taken from the first batch, often one gateway's alone: a correction in the
    // first 10 s is the placement settling, counted apart from flapping.
    const into = clock.now() - t0 < 10_000 ? settling : changes
    into.set(b.id, (into.get(b.id) ?? 0) + 1)
  })
  tracker.on('gone', (b) => {
    gones++
    const heard = sim.lastHeard(b.id)?.time ?? -Infinity
    if (clock.now() - heard < GONE_TIMEOUT_MS - 2000) falseGones++
  })
  await tracker.start()
  const site = await runSite({ simulator: sim, url, clientIdPrefix: `bench-rooms-${seed}` })
  const truthRooms = []
  for (let at = t0 + 1000; at <= t0 + RUN_MS; at += 1000) {
    if (at === t0 + 51_000) await site.kill('b1')
    await site.advanceTo(at)
    await until(() => tracker.stats.batches >= site.rssiBatches(), 'the tracker')
    for (let s = at - 900; s <= at; s += 100) truthRooms.push(sim.truth('walker', s)?.room)
  }
  await site.close()
  await tracker.stop()
  const truthChanges = truthRooms.filter((r, i) => i > 0 && r !== truthRooms[i - 1]).length
  const still = ['in-a', 'in-b', 'in-c', 'by-the-wall'].map((n) => changes.get(sim.idOf(n)) ?? 0)
  const settled = [...settling.values()].reduce((a, b) => a + b, 0)
  return { walker: (changes.get(sim.idOf('walker')) ?? 0) + (settling.get(sim.idOf('walker')) ?? 0), truthChanges, still: still.reduce((a, b) => a + b, 0), wall: changes.get(sim.idOf('by-the-wall')) ?? 0, settled, falseGones, gones }
}

const broker = await startBroker({ port: 0 })
const started = Date.now()
const rows = []
try {
  for (let seed = 1; seed <= SEEDS; seed++) rows.push(await run(seed, broker.url))
} finally {
  await broker.close()
}
const extra = rows.map((r) => r.walker - r.truthChanges)
const sum = (xs) => xs.reduce((a, b) => a + b, 0)
console.log(`fleet rooms: ${SEEDS} seeds × ${RUN_MS / 1000} s of the eight-gateway site (b1 killed at 50 s), ${((Date.now() - started) / 1000).toFixed(0)} s wall`)
console.log('| measure | mean | max |')
console.log('|---|---|---|')
console.log(`| walker room changes beyond the truth's ${rows[0].truthChanges} | ${(sum(extra) / SEEDS).toFixed(2)} | ${Math.max(...extra)} |`)
console.log(`| room changes after 10 s of the 4 beacons that never move | ${(sum(rows.map((r) => r.still)) / SEEDS).toFixed(2)} | ${Math.max(...rows.map((r) => r.still))} |`)
console.log(`| … of which the one 0.5 m from a wall | ${(sum(rows.map((r) => r.wall)) / SEEDS).toFixed(2)} | ${Math.max(...rows.map((r) => r.wall))} |`)
console.log(`| first-room corrections in the first 10 s (all beacons) | ${(sum(rows.map((r) => r.settled)) / SEEDS).toFixed(2)} | ${Math.max(...rows.map((r) => r.settled))} |`)
console.log(`| gones (the leaver: 1 expected) | ${(sum(rows.map((r) => r.gones)) / SEEDS).toFixed(2)} | ${Math.max(...rows.map((r) => r.gones))} |`)
console.log(`| gones while a gateway still heard the beacon | ${(sum(rows.map((r) => r.falseGones)) / SEEDS).toFixed(2)} | ${Math.max(...rows.map((r) => r.falseGones))} |`)
console.log(`per seed (walker extra changes): ${extra.join(' ')}`)
