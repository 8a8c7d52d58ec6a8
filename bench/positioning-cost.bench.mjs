// What positioning costs on one site: 500 tags on the tetam hall (12 receivers, 1,591 cells),
// each replaying 30 s of one of the data set's tracks (Daniş et al., CC0; positioning-data.mjs)
// shifted by a fraction of a second so their packets interleave; every tag estimated every
// second as a fleet tracker does. Reports estimates per CPU second (packets included) and the
// CPU share of one core that real time needs. Run: npm run build && node bench/positioning-cost.bench.mjs [tags]
import { POSITIONING_METHODS, Positioner, RadioMap } from '../dist/index.js'
import { cpuSeconds, loadTetam } from './positioning-data.mjs'

const TAGS = Number(process.argv[2] ?? 500)
const SECONDS = 30

const data = await loadTetam()
if (data === undefined) process.exit(0)
const map = RadioMap.fromSurvey(data.site, data.survey, { grid: data.grid, tagHeight: data.tagHeight })

// Every tag's packets on one time line starting at 0.
const packets = []
for (let k = 0; k < TAGS; k++) {
  const track = data.tracks[k % data.tracks.length]
  const shift = ((k * 137) % 1000) - track[0].time
  for (const p of track) {
    const time = p.time + shift
    if (time >= SECONDS * 1000) break
    packets.push({ time, anchor: p.anchor, beacon: `tag-${k}`, rssi: p.rssi })
  }
}
packets.sort((a, b) => a.time - b.time)

console.log(`| method | tags | anchors | cells | packets | estimates | CPU s | estimates / CPU s | CPU share of real time |`)
console.log('|---|---|---|---|---|---|---|---|---|')
for (const method of POSITIONING_METHODS) {
  const p = new Positioner({ site: data.site, radioMap: map, method })
  let estimates = 0
  let i = 0
  const c0 = process.cpuUsage()
  for (let s = 1; s <= SECONDS; s++) {
    for (; i < packets.length && packets[i].time <= s * 1000; i++) p.observe(packets[i])
    for (let k = 0; k < TAGS; k++) if (p.estimate(`tag-${k}`, s * 1000) !== undefined) estimates++
  }
  const cpu = cpuSeconds(process.cpuUsage(c0))
  console.log(`| ${method} | ${TAGS} | ${map.anchors.length} | ${map.grid.size} | ${packets.length} | ${estimates} | ${cpu.toFixed(1)} | ${Math.round(estimates / cpu)} | ${Math.round((100 * cpu) / SECONDS)} % |`)
}
