// The tetam data set for the positioning benches (public, CC0: "Position Annotated BLE RSSI
// Dataset for Indoor Localization", F. S. Daniş, A. T. Naskali, A. T. Cemgil, C. Ersoy,
// Pervasive and Mobile Computing 81, 2022): the site, the grid, the survey reduced while it
// streams, the tracks, and the scorer — the one place the ground truth is read.
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { createGunzip } from 'node:zlib'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Positioner, Site, SurveyPoints, WalkableGrid } from '../dist/index.js'

const here = dirname(fileURLToPath(import.meta.url))

export function cpuSeconds(u) {
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

/** The data set, or undefined (with how to get it printed) when the folder is absent. */
export async function loadTetam() {
  const dir = resolve(process.env.BKDEV_TETAM ?? join(here, '..', '..', 'shared', 'datasets', 'tetam'))
  if (!existsSync(join(dir, 'fingerprints.csv.gz'))) {
    console.log(`positioning: no data set at ${dir}; skipped.
To run it, obtain the public (CC0) data set "Position Annotated BLE RSSI Dataset for Indoor Localization"
(F. S. Daniş, A. T. Naskali, A. T. Cemgil, C. Ersoy, Pervasive and Mobile Computing 81, 2022), convert it to
the layout described in docs/positioning.md (site.json, occupancy-0.5.txt, fingerprints.csv.gz, track-*.csv),
and point BKDEV_TETAM at the folder (default: ../shared/datasets/tetam from the repository).`)
    return undefined
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
  const files = readdirSync(dir).filter((f) => /^track-.*\.csv$/.test(f)).sort()
  return {
    site,
    grid,
    survey,
    rows,
    readSeconds: (Date.now() - t0) / 1000,
    tagHeight: zSum / rows,
    names: files.map((f) => f.replace(/^track-|\.csv$/g, '')),
    tracks: files.map((f) => readTrack(join(dir, f))),
  }
}

/**
 * One method with `settings` on one track: an estimate at each whole second of the clock (as a
 * live tracker ticks) from the packets up to then only, its 2-D error against the truth then.
 */
export function run(site, map, method, track, settings = {}) {
  const p = new Positioner({ site, radioMap: map, method, ...settings })
  const errors = []
  let inside = 0
  const c0 = process.cpuUsage()
  let next = Math.ceil(track[0].time / 1000) * 1000 + 1000
  let estimates = 0
  for (let i = 0; i < track.length; i++) {
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
