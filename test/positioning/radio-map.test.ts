// Calibration: the path-loss fit recovers known parameters from a synthetic survey, the radio
// map reproduces the field, the survey reduction is exact, and bad input is skipped or refused.
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { fitPathLoss } from '../../src/positioning/path-loss.js'
import { RadioMap } from '../../src/positioning/radio-map.js'
import { SurveyPoints } from '../../src/positioning/survey.js'
import { gaussian, N, P0, rssi, site, survey, TAG } from './synthetic.js'

describe('RadioMap.fromSurvey', () => {
  it('recovers each anchor’s path loss from a noisy survey', () => {
    const map = RadioMap.fromSurvey(site, survey(20, 4), { tagHeight: TAG })
    expect(map.anchors.map((a) => a.id).sort()).toEqual(['ne', 'nw', 'se', 'sw'])
    for (const a of map.anchors) {
      expect(Math.abs(a.pathLoss.p0 - P0)).toBeLessThan(1)
      expect(Math.abs(a.pathLoss.n - N)).toBeLessThan(0.15)
      // Packet spread: the 4 dB put in.
      expect(a.packetSd).toBeGreaterThan(3.5)
      expect(a.packetSd).toBeLessThan(4.5)
    }
  })

  it('reproduces the true field on the grid to within a dB', () => {
    const map = RadioMap.fromSurvey(site, survey(50, 3), { tagHeight: TAG })
    const g = map.grid
    let worst = 0
    for (let a = 0; a < map.anchors.length; a++) {
      for (let c = 0; c < g.size; c++) {
        const x = g.x(c % g.nx)
        const y = g.y(Math.floor(c / g.nx))
        if (Math.hypot(map.anchors[a].x - x, map.anchors[a].y - y) < 1) continue
        worst = Math.max(worst, Math.abs(map.mean[a * g.size + c] - rssi(map.anchors[a].id, x, y)))
      }
    }
    expect(worst).toBeLessThan(1)
    expect(map.interpolation?.looRmsDb).toBeLessThan(1)
  })

  it('learns what the path loss cannot: a wall that costs 10 dB', () => {
    const walled = survey(5, 1).map((s) => (s.anchor === 'sw' && s.x > 5 ? { ...s, rssi: s.rssi - 10 } : s))
    const map = RadioMap.fromSurvey(site, walled, { tagHeight: TAG })
    const sw = map.index('sw')
    const at = (x: number, y: number): number => map.mean[sw * map.grid.size + map.grid.cellAt(x, y)]
    expect(at(8, 4) - rssi('sw', 8, 4)).toBeLessThan(-7)
    expect(Math.abs(at(2, 4) - rssi('sw', 2, 4))).toBeLessThan(2.5)
  })

  it('skips survey samples that are not numbers, and ignores anchors the site does not place', () => {
    const points = new SurveyPoints()
    points.add({ x: Number.NaN, y: 1, anchor: 'sw', rssi: -60 })
    points.add({ x: 1, y: 1, anchor: '', rssi: -60 })
    for (const s of survey(3, 2)) points.add(s)
    points.add({ x: 1, y: 1, anchor: 'elsewhere', rssi: -60 })
    expect(points.skipped).toBe(2)
    const map = RadioMap.fromSurvey(site, points, { tagHeight: TAG })
    expect(map.index('elsewhere')).toBe(-1)
    expect(map.anchors).toHaveLength(4)
  })

  it('a summary adds up like the packets it summarises', () => {
    const packets = new SurveyPoints()
    for (const r of [-60, -62, -70]) packets.add({ x: 1, y: 2, anchor: 'sw', rssi: r })
    const summary = new SurveyPoints()
    summary.addAggregate(1, 2, 'sw', { count: 2, mean: -61, sd: 1 })
    summary.addAggregate(1, 2, 'sw', { count: 1, mean: -70, sd: 0 })
    const [a] = packets.points()
    const [b] = summary.points()
    expect(b.anchors.get('sw')?.count).toBe(3)
    expect(b.anchors.get('sw')?.mean).toBeCloseTo(a.anchors.get('sw')?.mean ?? 0, 9)
    expect(b.anchors.get('sw')?.sd).toBeCloseTo(a.anchors.get('sw')?.sd ?? 0, 9)
  })

  it('refuses a survey that hears none of the site’s anchors, saying what to check', () => {
    expect(() => RadioMap.fromSurvey(site, [{ x: 1, y: 1, anchor: 'other', rssi: -60 }])).toThrow(InvalidOptionError)
    expect(() => RadioMap.fromSurvey(site, [{ x: 1, y: 1, anchor: 'other', rssi: -60 }])).toThrow(/name the anchors alike/)
  })

  it('measures how much further weak packets stray than strong ones (the skew)', () => {
    const g = gaussian(3)
    const skewed = survey(40, 2).map((s, i) => {
      // Deep fades: one packet in four loses a further 8·|noise| dB, so the low tail is the long one.
      return i % 4 === 0 ? { ...s, rssi: s.rssi - 8 * Math.abs(g()) } : s
    })
    expect(RadioMap.fromSurvey(site, skewed, { tagHeight: TAG }).skew).toBeGreaterThan(1.2)
    const symmetric = RadioMap.fromSurvey(site, survey(40, 3), { tagHeight: TAG }).skew
    expect(symmetric).toBeGreaterThanOrEqual(1)
    expect(symmetric).toBeLessThan(1.1)
    // A survey of summaries cannot tell: symmetric.
    const summary = new SurveyPoints()
    summary.addAggregate(1, 1, 'sw', { count: 100, mean: -60, sd: 4 })
    expect(RadioMap.fromSurvey(site, summary, { tagHeight: TAG }).skew).toBe(1)
  })

  it('default physics works without a survey', () => {
    const map = RadioMap.defaultPhysics(site)
    expect(map.surveyed).toBe(false)
    expect(map.references).toHaveLength(0)
    expect(map.anchors[0].pathLoss).toEqual({ p0: -59, n: 2.2, sigma: 6 })
  })
})

describe('fitPathLoss', () => {
  it('is exact on noiseless pairs and holds the exponent in range', () => {
    const pairs = [1, 2, 4, 8, 16].map((d) => ({ d, rssi: -55 - 30 * Math.log10(d) }))
    const fit = fitPathLoss(pairs)
    expect(fit.p0).toBeCloseTo(-55, 6)
    expect(fit.n).toBeCloseTo(3, 6)
    expect(fitPathLoss([1, 2, 4].map((d) => ({ d, rssi: -50 - 200 * Math.log10(d) }))).n).toBe(6)
    expect(fitPathLoss([]).n).toBe(2.2)
  })
})
