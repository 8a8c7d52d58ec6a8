// A receiver whose readings sit a few dB off the survey (a drifted or replaced receiver, a survey
// from another day): the grid filter learns the offset from its own confident steps and tracks
// as if the map were right, where a filter that trusts the map stays pulled off.
import { describe, expect, it } from 'vitest'
import { RadioMap } from '../../src/positioning/radio-map.js'
import { Positioner } from '../../src/positioning/positioner.js'
import type { Observation } from '../../src/positioning/types.js'
import { gaussian, rssi, site, survey, TAG } from './synthetic.js'

const map = RadioMap.fromSurvey(site, survey(5, 2), { tagHeight: TAG })
const ANCHORS = ['sw', 'se', 'nw', 'ne']

/** Where the walker is at `t` ms: laps of the rectangle (2, 2)–(8, 6) at 1 m/s (20 s a lap). */
function at(t: number): { x: number; y: number } {
  const s = (t / 1000) % 20
  if (s < 6) return { x: 2 + s, y: 2 }
  if (s < 10) return { x: 8, y: 2 + (s - 6) }
  if (s < 16) return { x: 8 - (s - 10), y: 6 }
  return { x: 2, y: 6 - (s - 16) }
}

/** Laps for `seconds`, every anchor heard twice a second with 3 dB of noise; `ne` reads `offset` dB off. */
function laps(seconds: number, offset: number): Observation[] {
  const g = gaussian(11)
  const out: Observation[] = []
  for (let t = 0; t < seconds * 1000; t += 125) {
    const anchor = ANCHORS[(t / 125) % 4]
    const { x, y } = at(t)
    out.push({ time: t, anchor, beacon: 'tag', rssi: rssi(anchor, x, y) + 3 * g() + (anchor === 'ne' ? offset : 0) })
  }
  return out
}

/** Median 2-D error over the last minute of three minutes, one estimate a second. */
function lastMinuteMedian(offset: number, biasTau?: number): number {
  const p = new Positioner({ site, radioMap: map, filter: biasTau === undefined ? {} : { biasTau } })
  const errors: number[] = []
  let next = 1000
  for (const o of laps(180, offset)) {
    while (o.time > next) {
      const e = p.estimate('tag', next)
      const truth = at(next)
      if (next > 120_000 && e !== undefined) errors.push(Math.hypot(e.x - truth.x, e.y - truth.y))
      next += 1000
    }
    p.observe(o)
  }
  expect(errors.length).toBeGreaterThanOrEqual(55)
  errors.sort((a, b) => a - b)
  return errors[Math.floor(errors.length / 2)]
}

describe('grid filter: a receiver off the survey', () => {
  // Measured (seeded noise, so fixed): clean 1.30 m; +6 dB: 1.40 m learned, 1.89 m trusting the
  // map; −6 dB: 1.41 m learned, 1.64 m trusting.
  const clean = lastMinuteMedian(0)

  it('learns a receiver reading 6 dB stronger than the survey and tracks nearly as without it', () => {
    const trusting = lastMinuteMedian(6, 0)
    expect(trusting).toBeGreaterThan(clean + 0.4)
    expect(lastMinuteMedian(6)).toBeLessThan(clean + 0.25)
  })

  it('learns a receiver reading 6 dB weaker than the survey', () => {
    expect(lastMinuteMedian(-6)).toBeLessThan(lastMinuteMedian(-6, 0) - 0.1)
  })
})
