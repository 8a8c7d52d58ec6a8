// Loads the committed tetam subset (test/fixtures/positioning, see its README): the site, the
// walkable grid, a sparse survey summary and 40 s of one track.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Site } from '../../src/positioning/site.js'
import { WalkableGrid } from '../../src/positioning/grid.js'
import { RadioMap } from '../../src/positioning/radio-map.js'
import { SurveyPoints } from '../../src/positioning/survey.js'

const dir = join(import.meta.dirname, '..', 'fixtures', 'positioning')

export interface TrackRow {
  time: number
  anchor: string
  beacon: string
  rssi: number
  x: number
  y: number
}

export function loadFixture(): { site: Site; grid: WalkableGrid; map: RadioMap; track: TrackRow[] } {
  const site = Site.fromJSON(JSON.parse(readFileSync(join(dir, 'site.json'), 'utf8')))
  const { grid } = WalkableGrid.parseOccupancy(readFileSync(join(dir, 'occupancy-0.5.txt'), 'utf8'))
  const survey = new SurveyPoints()
  for (const line of readFileSync(join(dir, 'survey-summary.csv'), 'utf8').trim().split('\n').slice(1)) {
    const [x, y, anchor, count, mean, sd] = line.split(',')
    survey.addAggregate(Number(x), Number(y), anchor, { count: Number(count), mean: Number(mean), sd: Number(sd) })
  }
  const map = RadioMap.fromSurvey(site, survey, { grid, tagHeight: 1.85 })
  const track = readFileSync(join(dir, 'track-straight_01-40s.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const f = line.split(',')
      return { time: Number(f[0]) * 1000, anchor: f[1], beacon: f[2], rssi: Number(f[3]), x: Number(f[4]), y: Number(f[5]) }
    })
  return { site, grid, map, track }
}
