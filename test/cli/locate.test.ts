// `beaconkit locate` as a real child process on the tetam subset: the track CSV and the
// multi-gateway JSON lines format give the same positions, close to the ground truth; bad
// lines are skipped and counted; a missing site is a usage error that says what to give.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from './run-cli.js'

const FIX = 'test/fixtures/positioning'
const BASE = ['locate', '--site', `${FIX}/site.json`, '--survey', `${FIX}/survey-summary.csv`, '--occupancy', `${FIX}/occupancy-0.5.txt`]
const track = readFileSync(join(FIX, 'track-straight_01-40s.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','))

interface Out {
  time: number
  beacon: string
  x: number
  y: number
  accuracy: number
  room: string | null
}

function truthAt(time: number): [number, number] {
  let at = track[0]
  for (const f of track) if (Number(f[0]) * 1000 <= time) at = f
  return [Number(at[4]), Number(at[5])]
}

describe('beaconkit locate', () => {
  it('positions the track CSV close to the ground truth, one JSON line a second', async () => {
    const r = await startCli([...BASE, `${FIX}/track-straight_01-40s.csv`]).done
    expect(r.code).toBe(0)
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Out)
    expect(out.length).toBeGreaterThanOrEqual(39)
    expect(Object.keys(out[0]).sort()).toEqual(['accuracy', 'beacon', 'room', 'time', 'x', 'y'])
    const errors = out.map((o) => Math.hypot(o.x - truthAt(o.time)[0], o.y - truthAt(o.time)[1])).sort((a, b) => a - b)
    expect(errors[Math.floor(errors.length / 2)]).toBeLessThan(1.5)
    expect(r.stderr).toMatch(/skipped 0 unreadable lines/)
  }, 60_000)

  it('reads the multi-gateway JSON lines format alike, and skips what is not a reading', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locate-'))
    const jsonl = track.map((f) => JSON.stringify({ time: Number(f[0]) * 1000, gateway: f[1], id: f[2], rssi: Number(f[3]) }))
    jsonl.splice(5, 0, '{"time": 1, "gateway": 7}', 'not json', '{"time": "yesterday", "gateway": "a", "id": "b", "rssi": -60}')
    writeFileSync(join(dir, 'rec.jsonl'), `${jsonl.join('\n')}\n`)
    const [csv, json] = await Promise.all([startCli([...BASE, `${FIX}/track-straight_01-40s.csv`]).done, startCli([...BASE, join(dir, 'rec.jsonl')]).done])
    expect(json.code).toBe(0)
    expect(json.stdout).toBe(csv.stdout)
    expect(json.stderr).toMatch(/skipped 3 unreadable lines/)
  }, 60_000)

  it('a reading at −1e20 ms is skipped and counted, not stepped through (it used to step forever)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locate-'))
    const jsonl = track.map((f) => JSON.stringify({ time: Number(f[0]) * 1000, gateway: f[1], id: f[2], rssi: Number(f[3]) }))
    jsonl.unshift(JSON.stringify({ time: -1e20, gateway: track[0][1], id: track[0][2], rssi: -60 }))
    writeFileSync(join(dir, 'rec.jsonl'), `${jsonl.join('\n')}\n`)
    const run = startCli([...BASE, join(dir, 'rec.jsonl')])
    // A regression loops for good: end the child so the test fails instead of hanging.
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 40_000)
    const [r, csv] = await Promise.all([run.done, startCli([...BASE, `${FIX}/track-straight_01-40s.csv`]).done])
    clearTimeout(timer)
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(csv.stdout)
    expect(r.stderr).toMatch(/skipped 1 unreadable lines/)
  }, 60_000)

  it('without --site: exit code 2 and what to give', async () => {
    const r = await startCli(['locate', `${FIX}/track-straight_01-40s.csv`]).done
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--site is required/)
  }, 30_000)
})
