// `beaconkit fleet --survey --occupancy` builds the positioner `locate` and bench:positioning
// build from the same files (#28): the survey's radio map on the occupancy grid. Checked on the
// committed tetam subset (test/fixtures/positioning; Daniş et al., CC0) against a Positioner made
// by hand from those files: same grid, same estimates second by second.
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { readFile } from 'node:fs/promises'
import { fleetPositioner } from '../../src/cli/commands/fleet-view.js'
import { readSurvey } from '../../src/cli/commands/radio-map-files.js'
import { InvalidOptionError } from '../../src/errors.js'
import { WalkableGrid } from '../../src/positioning/grid.js'
import { Positioner } from '../../src/positioning/positioner.js'
import { RadioMap } from '../../src/positioning/radio-map.js'
import { Site } from '../../src/positioning/site.js'
import { loadFixture } from '../positioning/fixture.js'

const dir = join(import.meta.dirname, '..', 'fixtures', 'positioning')
const files = { survey: join(dir, 'survey-summary.csv'), occupancy: join(dir, 'occupancy-0.5.txt') }

describe('fleet --survey --occupancy', () => {
  it('positions on the survey’s radio map over the occupancy grid, as the offline engine does', async () => {
    const site = Site.fromJSON(JSON.parse(await readFile(join(dir, 'site.json'), 'utf8')))
    const fleet = await fleetPositioner(site, files.survey, files.occupancy)
    const { grid } = WalkableGrid.parseOccupancy(await readFile(files.occupancy, 'utf8'))
    const offline = new Positioner({ site, radioMap: RadioMap.fromSurvey(site, (await readSurvey(files.survey)).survey, { grid }) })
    expect(fleet?.radioMap.surveyed).toBe(true)
    expect(fleet?.radioMap.grid.walkable).toEqual(grid.walkable)
    // The fixture's grid blocks cells (walls, desks): without --occupancy every cell is walkable.
    expect(grid.walkable.includes(0)).toBe(true)
    expect((await fleetPositioner(site, files.survey))?.radioMap.grid.walkable.includes(0)).toBe(false)

    const { track } = loadFixture()
    const beacon = track[0].beacon
    let compared = 0
    let i = 0
    for (let s = Math.ceil(track[0].time / 1000) * 1000 + 1000; s <= track[track.length - 1].time; s += 1000) {
      for (; i < track.length && track[i].time <= s; i++) {
        fleet?.observe(track[i])
        offline.observe(track[i])
      }
      const a = fleet?.estimate(beacon, s)
      const b = offline.estimate(beacon, s)
      expect(a).toEqual(b)
      if (b !== undefined) compared++
    }
    expect(compared).toBeGreaterThanOrEqual(35)
  })

  it('refuses an unreadable occupancy grid with code invalid_option on option occupancy', async () => {
    const site = Site.fromJSON(JSON.parse(await readFile(join(dir, 'site.json'), 'utf8')))
    const refused = await fleetPositioner(site, undefined, join(dir, 'no-such-grid.txt')).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(InvalidOptionError)
    expect((refused as InvalidOptionError).code).toBe('invalid_option')
    expect((refused as InvalidOptionError).message).toMatch(/fleet: cannot read the occupancy grid/)
  })
})
