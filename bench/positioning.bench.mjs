// Positioning on real data: every method on every track of the tetam data set (12 fixed
// receivers, one carried beacon, camera ground truth), calibrated on the site survey only —
// the tracks are never used for fitting. One estimate a second; 2-D error against the true
// position at that moment. Then leave-one-track-out (positioning-loo.mjs): each method's settings
// chosen on three tracks, scored on the fourth. Run: npm run bench:positioning
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { createGunzip } from 'node:zlib'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { POSITIONING_METHODS, Positioner, RadioMap, Site, SurveyPoints, WalkableGrid } from '../dist/index.js'
import { SETTINGS, leaveOneOut, quantile, summary } from './positioning-loo.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const dir = resolve(process.env.BEACONKIT_TETAM ?? join(here, '..', '..', 'shared', 'datasets', 'tetam'))

if (!existsSync(join(dir, 'fingerprints.csv.gz'))) {
  console.log(`positioning: no data set at ${dir}; skipped.
To run it, obtain the public (CC0) data set "Position Annotated BLE RSSI Dataset for Indoor Localization"
(F. S. Daniş, A. T. Naskali, A. T. Cemgil, C. Ersoy, Pervasive and Mobile Computing 81, 2022), convert it to
the layout described in docs/positioning.md (site.json, occupancy-0.5.txt, fingerprints.csv.gz, track-*.csv),
and point BEACONKIT_TETAM at the folder (default: ../shared/datasets/tetam from the repository).`)
  process.exit(0)
}

const site = Site.fromJSON(JSON.parse(readFileSync(join(dir, 'site.json'), 'utf8')))
const { grid } = WalkableGrid.parseOccupancy(readFileSync(join(dir, 'occupancy-0.5.txt'), 'utf8'))

// The survey, reduced while it streams (5 M rows never sit in memory).
const survey = new SurveyPoints()
let zSum = 0
let rows = 0
const t0 = Date.now()
const lines = createInterface({ input: createReadStream(join(dir, 'fingerprints.csv.gz')).pipe(createGunzip()), crlfDelay: Infinity })
let header = true
for await (const line of lines) {
  if (header) {
    header = false
    continue
  }
  const f = line.split(',')
  // set,x,y,z,timestamp,sensor,beacon,rssi
  survey.add({ x: Number(f[1]), y: Number(f[2]), anchor: f[5], rssi: Number(f[7]) })
  zSum += Number(f[3])
  rows++
}
const calib0 = process.cpuUsage()
const map = RadioMap.fromSurvey(site, survey, { grid, tagHeight: zSum / rows })
const calibCpu = cpuSeconds(process.cpuUsage(calib0))
console.log(`survey: ${rows} packets, ${survey.size} reference points, read in ${((Date.now() - t0) / 1000).toFixed(1)} s; radio map built in ${calibCpu.toFixed(2)} CPU s`)
console.log(`interpolation chosen by leave-one-point-out on the survey: length scale ${map.interpolation.lengthScale} m, shrinkage ${map.interpolation.shrinkage}, LOO RMS ${map.interpolation.looRmsDb.toFixed(2)} dB; weak/strong spread ratio (skew) ${map.skew.toFixed(2)}`)

function cpuSeconds(u) {
  return (u.user + u.system) / 1e6
}

function readTrack(file) {
  const out = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = line.split(',')
    if (f.length < 7) continue
    const time = Number(f[0]) * 1000
    if (!Number.isFinite(time)) continue
    out.push({ time, anchor: f[1], beacon: f[2], rssi: Number(f[3]), x: Number(f[4]), y: Number(f[5]) })
  }
  return out
}

function run(method, track, settings = {}) {
  const p = new Positioner({ site, radioMap: map, method, ...settings })
  const errors = []
  let inside = 0
  const c0 = process.cpuUsage()
  // Whole seconds of the clock, as a live tracker ticks.
  let next = Math.ceil(track[0].time / 1000) * 1000 + 1000
  let estimates = 0
  for (let i = 0; i < track.length; i++) {
    // Estimate at each whole second before this packet: only packets up to then are in.
    while (track[i].time > next) {
      const e = p.estimate(track[i].beacon, next)
      estimates++
      const truth = track[i - 1]
      if (e !== undefined) {
        const err = Math.hypot(e.x - truth.x, e.y - truth.y)
        errors.push(err)
        if (err <= e.accuracy) inside++
      }
      next += 1000
    }
    p.observe(track[i])
  }
  const cpu = cpuSeconds(process.cpuUsage(c0))
  return { errors, inside, estimates, cpu }
}

const tracks = readdirSync(dir).filter((f) => /^track-.*\.csv$/.test(f)).sort()
const trackData = tracks.map((file) => readTrack(join(dir, file)))
const inSample = {}
const fmt = (v) => v.toFixed(2)
console.log('\n| method | track | estimates | median m | p90 m | p95 m | within accuracy | estimates / CPU s |')
console.log('|---|---|---|---|---|---|---|---|')
for (const method of POSITIONING_METHODS) {
  const all = []
  let inside = 0
  let estimates = 0
  let cpu = 0
  const perTrack = []
  for (const file of tracks) {
    const r = run(method, trackData[tracks.indexOf(file)])
    const s = [...r.errors].sort((a, b) => a - b)
    all.push(...r.errors)
    perTrack.push(r.errors)
    inside += r.inside
    estimates += r.estimates
    cpu += r.cpu
    const name = file.replace(/^track-|\.csv$/g, '')
    console.log(`| ${method} | ${name} | ${r.estimates} | ${fmt(quantile(s, 0.5))} | ${fmt(quantile(s, 0.9))} | ${fmt(quantile(s, 0.95))} | ${Math.round((100 * r.inside) / Math.max(1, r.errors.length))} % | ${Math.round(r.estimates / Math.max(1e-6, r.cpu))} |`)
  }
  inSample[method] = summary(perTrack)
  const s = all.sort((a, b) => a - b)
  console.log(`| **${method}** | **all** | ${estimates} | **${fmt(quantile(s, 0.5))}** | **${fmt(quantile(s, 0.9))}** | ${fmt(quantile(s, 0.95))} | ${Math.round((100 * inside) / Math.max(1, s.length))} % | ${Math.round(estimates / Math.max(1e-6, cpu))} |`)
}

console.log('\nLeave-one-track-out: settings chosen on three tracks (median of track medians + p90 / 2), the fourth scored; median of the held-out track medians, p90 of the held-out errors pooled.')
console.log('\n| method | in-sample median | in-sample p90 | LOO median | LOO p90 | settings tried | chosen per held-out track |')
console.log('|---|---|---|---|---|---|---|')
for (const method of POSITIONING_METHODS) {
  const loo = leaveOneOut(SETTINGS[method], trackData, (settings, track) => run(method, track, settings).errors)
  const chosen = loo.chosen.map((c) => JSON.stringify(c.filter ?? c).replace(/"/g, '')).join(' ')
  console.log(`| ${method} | ${fmt(inSample[method].median)} | ${fmt(inSample[method].p90)} | **${fmt(loo.median)}** | **${fmt(loo.p90)}** | ${SETTINGS[method].length} | ${chosen} |`)
}
