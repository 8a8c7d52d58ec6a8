// Times that come from the network must not stall the positioner: a step loop at a time of
// −1e20 ms rounded back to the same time (1000 is below a double's resolution there) and never
// ended, freezing the tracker. The loop runs in a child process, so a regression fails the test
// instead of hanging the runner; it uses dist/ (build with `npx tsup` first).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Positioner } from '../../src/positioning/positioner.js'
import { site } from './synthetic.js'

const dist = join(import.meta.dirname, '..', '..', 'dist', 'index.js')

/** Runs `body` (with Positioner and Site in scope) in a child process; its stdout, or why it did not finish. */
function inChild(body: string): { stdout: string; finished: boolean } {
  const script = `import { Positioner, Site } from ${JSON.stringify(dist)}\n${body}`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' })
  return { stdout: r.stdout, finished: r.status === 0 && r.signal === null }
}

describe('positioner time bounds', () => {
  it('a packet at −1e20 ms (and other extreme times) is refused, and estimating after it returns', () => {
    const r = inChild(`
      const site = Site.fromJSON({ area: { minX: 0, minY: 0, maxX: 10, maxY: 8 }, receivers: { a: { x: 0, y: 0 }, b: { x: 10, y: 0 }, c: { x: 0, y: 8 } } })
      const p = new Positioner({ site })
      p.observe({ time: -1e20, anchor: 'a', beacon: 'P6', rssi: -60 })
      p.observe({ time: 1e20, anchor: 'b', beacon: 'P7', rssi: -60 })
      const now = Date.now()
      const out = [p.estimate('P6', now), p.estimate('P7', now), p.stats.invalid]
      console.log(JSON.stringify(out))
    `)
    expect(r.finished).toBe(true)
    expect(JSON.parse(r.stdout)).toEqual([null, null, 2])
  })

  it('folding steps always advances, even where the step arithmetic cannot (a step below the time resolution)', () => {
    // A step of 1e-9 ms at times of 1.7e12 ms rounds back to the same slot: still one update per
    // packet at most, and an answer.
    const r = inChild(`
      const site = Site.fromJSON({ area: { minX: 0, minY: 0, maxX: 10, maxY: 8 }, receivers: { a: { x: 0, y: 0 }, b: { x: 10, y: 0 }, c: { x: 0, y: 8 } } })
      const p = new Positioner({ site, stepMs: 1e-9 })
      const t0 = 1_700_000_000_000
      for (let i = 0; i < 30; i++) p.observe({ time: t0 + i * 100, anchor: ['a', 'b', 'c'][i % 3], beacon: 'tag', rssi: -60 - (i % 3) })
      console.log(JSON.stringify(p.estimate('tag', t0 + 5000) !== undefined))
    `)
    expect(r.finished).toBe(true)
    expect(JSON.parse(r.stdout)).toBe(true)
  })

  it('counts a time outside the range of a Date as invalid, in this thread too', () => {
    const p = new Positioner({ site })
    p.observe({ time: 8.7e15, anchor: 'sw', beacon: 'tag', rssi: -60 })
    p.observe({ time: -8.7e15, anchor: 'sw', beacon: 'tag', rssi: -60 })
    expect(p.stats.invalid).toBe(2)
    expect(p.size).toBe(0)
  })
})
