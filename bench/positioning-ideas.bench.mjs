// The ideas tried for issue #28, each judged as the issue asks: the filter's leave-one-track-out
// median and p90 on the tetam tracks (positioning-loo.mjs), before and after. Ideas that did not
// help were removed from the code; their numbers are in BENCHMARKS.md and their code at
// commits aafe9d2 and 1bf776f (this file there runs them). Data set: Daniş et al., CC0 (positioning-data.mjs).
// Run: npm run build && node bench/positioning-ideas.bench.mjs [part of a name…]
import { RadioMap } from '../dist/index.js'
import { loadTetam, run } from './positioning-data.mjs'
import { SETTINGS, combinations, leaveOneOut } from './positioning-loo.mjs'

const physical = combinations({ speed: [0.7, 1.0, 1.4], dynamicSd: [2, 3, 4] })
const grid = (extra) => physical.flatMap((p) => extra.map((e) => ({ filter: { ...p, ...e } })))

/** Each idea: the settings its leave-one-out chooses among (the rest are the defaults). */
const IDEAS = [
  { name: 'before #28: blocked weight fixed at 0.2', settings: grid([{ blockedWeight: 0.2 }]) },
  { name: 'occupancy ignored (blocked weight 1)', settings: grid([{ blockedWeight: 1 }]) },
  { name: 'occupancy weighed more, chosen in the LOO (0.05, 0.1, 0.2): shipped', settings: SETTINGS.filter },
  { name: 'learned receiver offsets off (biasTau 0)', settings: SETTINGS.filter.map((s) => ({ filter: { ...s.filter, biasTau: 0 } })) },
]

const data = await loadTetam()
if (data === undefined) process.exit(0)
const only = process.argv.slice(2)
const map = RadioMap.fromSurvey(data.site, data.survey, { grid: data.grid, tagHeight: data.tagHeight })
const fmt = (v) => v.toFixed(2)
console.log('| idea | LOO median | LOO p90 | estimates / CPU s | chosen per held-out track (speed/dynamicSd/blockedWeight…) |')
console.log('|---|---|---|---|---|')
for (const idea of IDEAS) {
  if (only.length > 0 && !only.some((o) => idea.name.includes(o))) continue
  let estimates = 0
  let cpu = 0
  const errorsOf = (settings, track) => {
    const r = run(data.site, map, 'filter', track, settings)
    estimates += r.estimates
    cpu += r.cpu
    return r.errors
  }
  const loo = leaveOneOut(idea.settings, data.tracks, errorsOf)
  const chosen = loo.chosen.map((c) => Object.values(c.filter).join('/')).join(' ')
  console.log(`| ${idea.name} | **${fmt(loo.median)}** | **${fmt(loo.p90)}** | ${Math.round(estimates / cpu)} | ${chosen} |`)
}
