// The ideas tried for issue #28, each judged as the issue asks: the filter's leave-one-track-out
// median and p90 on the tetam tracks (positioning-loo.mjs), with the idea off (the baseline)
// and on; the same settings grid for both. Data set: Daniş et al., CC0 (positioning-data.mjs).
// Run: npm run build && node bench/positioning-ideas.bench.mjs [name…]
import { RadioMap } from '../dist/index.js'
import { loadTetam, run } from './positioning-data.mjs'
import { SETTINGS, leaveOneOut, summary } from './positioning-loo.mjs'

/** Each idea: how it builds the radio map and what it adds to the filter's settings. */
const IDEAS = [
  { name: 'baseline (kernel map, causal filter as shipped)', map: {}, filter: {} },
  { name: 'kriging map with per-cell uncertainty', map: { model: 'kriging' }, filter: {} },
  { name: 'not heard = far (survey miss rates)', map: {}, filter: { missWeight: 1 } },
  { name: 'occupancy ignored (blocked weight 1)', map: {}, filter: { blockedWeight: 1 } },
  { name: 'occupancy stricter (blocked weight 0.05)', map: {}, filter: { blockedWeight: 0.05 } },
  { name: 'walk round blocked cells (blocked weight 0.2)', map: {}, filter: { walls: 1 } },
  { name: 'walk round blocked cells (blocked weight 0.05)', map: {}, filter: { walls: 1, blockedWeight: 0.05 } },
  { name: 'blocked weight chosen in the LOO too (0.05, 0.1, 0.2)', map: {}, filter: {}, grid: [0.05, 0.1, 0.2].map((blockedWeight) => ({ blockedWeight })) },
  { name: 'learned receiver offsets off (biasTau 0)', map: {}, filter: { biasTau: 0 } },
]

const data = await loadTetam()
if (data === undefined) process.exit(0)
const only = process.argv.slice(2)
const maps = new Map()
const mapFor = (options) => {
  const key = JSON.stringify(options)
  if (!maps.has(key)) maps.set(key, RadioMap.fromSurvey(data.site, data.survey, { grid: data.grid, tagHeight: data.tagHeight, ...options }))
  return maps.get(key)
}
const fmt = (v) => v.toFixed(2)
console.log('| idea | in-sample median | in-sample p90 | LOO median | LOO p90 | estimates / CPU s | chosen per held-out track (speed/dynamicSd/…) |')
console.log('|---|---|---|---|---|---|---|')
for (const idea of IDEAS) {
  if (only.length > 0 && !only.some((o) => idea.name.includes(o))) continue
  const map = mapFor(idea.map)
  let estimates = 0
  let cpu = 0
  const errorsOf = (settings, track) => {
    const r = run(data.site, map, 'filter', track, { filter: { ...idea.filter, ...settings.filter } })
    estimates += r.estimates
    cpu += r.cpu
    return r.errors
  }
  const inSample = summary(data.tracks.map((t) => errorsOf({ filter: {} }, t)))
  // An idea may widen the settings grid: every grid setting times every extra value.
  const settings = idea.grid === undefined ? SETTINGS.filter : SETTINGS.filter.flatMap((s) => idea.grid.map((g) => ({ filter: { ...s.filter, ...g } })))
  const loo = leaveOneOut(settings, data.tracks, errorsOf)
  const chosen = loo.chosen.map((c) => Object.values(c.filter).join('/')).join(' ')
  console.log(`| ${idea.name} | ${fmt(inSample.median)} | ${fmt(inSample.p90)} | **${fmt(loo.median)}** | **${fmt(loo.p90)}** | ${Math.round(estimates / cpu)} | ${chosen} |`)
}
