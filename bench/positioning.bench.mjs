// Positioning on real data: every method on every track of the tetam data set (12 fixed
// receivers, one carried beacon, camera ground truth), calibrated on the site survey only —
// the tracks are never used for fitting. One estimate a second; 2-D error against the true
// position at that moment. Then leave-one-track-out (positioning-loo.mjs): each method's settings
// chosen on three tracks, scored on the fourth. Run: npm run bench:positioning
import { POSITIONING_METHODS, RadioMap } from '../dist/index.js'
import { cpuSeconds, loadTetam, run as runOn } from './positioning-data.mjs'
import { SETTINGS, leaveOneOut, quantile, summary } from './positioning-loo.mjs'

const data = await loadTetam()
if (data === undefined) process.exit(0)
const { site, grid, survey, rows } = data
const calib0 = process.cpuUsage()
const map = RadioMap.fromSurvey(site, survey, { grid, tagHeight: data.tagHeight })
const calibCpu = cpuSeconds(process.cpuUsage(calib0))
console.log(`survey: ${rows} packets, ${survey.size} reference points, read in ${data.readSeconds.toFixed(1)} s; radio map built in ${calibCpu.toFixed(2)} CPU s`)
console.log(`interpolation chosen by leave-one-point-out on the survey: length scale ${map.interpolation.lengthScale} m, shrinkage ${map.interpolation.shrinkage}, LOO RMS ${map.interpolation.looRmsDb.toFixed(2)} dB; weak/strong spread ratio (skew) ${map.skew.toFixed(2)}`)

const run = (method, track, settings) => runOn(site, map, method, track, settings)
const trackData = data.tracks
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
  for (const [t, name] of data.names.entries()) {
    const r = run(method, trackData[t])
    const s = [...r.errors].sort((a, b) => a - b)
    all.push(...r.errors)
    perTrack.push(r.errors)
    inside += r.inside
    estimates += r.estimates
    cpu += r.cpu
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
