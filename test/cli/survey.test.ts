// `beaconkit survey` as a real child process driven through its stdin, against an embedded
// broker: two gateways publish RSSI batches of the carried beacon whose values depend on the
// point the person stands at; the samples file gets exactly those, per point, in the format
// `RadioMap.fromSurvey` reads.
import { spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { SurveyPoints } from '../../src/positioning/survey.js'
import { CLI, ROOT, requireBuild } from './run-cli.js'
import { waitFor } from '../integration/wait.js'

/** What each gateway hears of the beacon at each point (the test's ground truth). */
const HEARS: Record<string, Record<string, number>> = { '1,2': { gwA: -60, gwB: -80 }, '5,2.5': { gwA: -75, gwB: -58 }, '3,4': { gwA: -66, gwB: -70 } }

let broker: RunningBroker
let raw: MqttClient
let pusher: NodeJS.Timeout | undefined
/** The point the person stands at now ("x,y"), or undefined between points. */
let standing: string | undefined
let pushed = 0

beforeAll(async () => {
  broker = await startBroker({ port: 0 })
  raw = await mqtt.connectAsync(broker.url, { clientId: 'survey-test-gateways', reconnectPeriod: 0 })
  pusher = setInterval(() => {
    const now = Date.now()
    pushed++
    for (const gw of ['gwA', 'gwB']) {
      const readings = [{ id: 'other-tag', rssi: -50, lastSeen: now, count: 1 }]
      // Between points the beacon is being carried: not reported, so nothing can leak into a point.
      if (standing !== undefined) readings.push({ id: 'tag-1', rssi: HEARS[standing][gw], lastSeen: now, count: 2 })
      raw.publish(`beaconkit/gateways/${gw}/rssi`, JSON.stringify({ gateway: gw, time: now, readings }), { qos: 0 })
    }
    raw.publish('beaconkit/gateways/gwA/rssi', 'not json', { qos: 0 })
  }, 50)
})

afterAll(async () => {
  if (pusher !== undefined) clearInterval(pusher)
  await raw?.endAsync()
  await broker?.close()
})

interface Run {
  child: ChildProcessWithoutNullStreams
  stdout: () => string
  done: Promise<{ code: number | null; stderr: string }>
}

function survey(args: string[]): Run {
  requireBuild()
  const child = spawn(process.execPath, [CLI, 'survey', '--mqtt', broker.url, '--beacon', 'tag-1', '--seconds', '0.5', ...args], { cwd: ROOT })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })))
  return { child, stdout: () => stdout, done }
}

/** Waits for the `n`-th occurrence of `text` on the command's stdout. */
async function nth(run: Run, text: string, n: number): Promise<void> {
  await waitFor(() => run.stdout().split(text).length > n, `"${text}" #${n} from beaconkit survey (stdout so far: ${run.stdout()})`, 30_000)
}

/** Stands at `point` and presses Enter (typing `line`); returns once the point is recorded. */
async function stand(run: Run, point: string, line: string, recorded: number): Promise<void> {
  // The beacon was unreported for a few batches: none of the previous point's is still in flight.
  const from = pushed
  await waitFor(() => pushed >= from + 3, 'three batches without the beacon', 10_000)
  standing = point
  run.child.stdin.write(`${line}\n`)
  await nth(run, ' readings from ', recorded)
  standing = undefined
}

function rows(file: string): string[][] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(','))
}

describe('beaconkit survey', () => {
  it('walks the points of a points file: Enter at each, every gateway recorded, appended as x,y,anchor,rssi', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'survey-'))
    writeFileSync(join(dir, 'points.csv'), 'name,x,y\nA,1,2\nbroken line\nB,5,2.5\n')
    const out = join(dir, 'samples.csv')
    const run = survey(['--points', join(dir, 'points.csv'), out])
    await nth(run, 'point A (1, 2), 1 of 2', 1)
    await stand(run, '1,2', '', 1)
    await nth(run, 'point B (5, 2.5), 2 of 2', 1)
    await stand(run, '5,2.5', '', 2)
    const { code, stderr } = await run.done
    expect(code).toBe(0)
    expect(stderr).toMatch(/skipped 1 unreadable lines/)
    expect(stderr).toMatch(/survey: 2 points, \d+ samples appended/)
    const r = rows(out)
    expect(r[0]).toEqual(['x', 'y', 'anchor', 'rssi'])
    const body = r.slice(1)
    expect(body.length).toBeGreaterThanOrEqual(4)
    for (const [x, y, anchor, rssi] of body) expect(Number(rssi)).toBe(HEARS[`${x},${y}`][anchor])
    expect(new Set(body.map((f) => `${f[0]},${f[1]},${f[2]}`))).toEqual(new Set(['1,2,gwA', '1,2,gwB', '5,2.5,gwA', '5,2.5,gwB']))

    // What RadioMap.fromSurvey reads: one reference point per spot, each gateway's mean.
    const survey2 = new SurveyPoints()
    for (const [x, y, anchor, rssi] of body) survey2.add({ x: Number(x), y: Number(y), anchor, rssi: Number(rssi) })
    expect(survey2.skipped).toBe(0)
    const b = survey2.points().find((p) => p.x === 5)
    expect(b?.anchors.get('gwB')?.mean).toBe(-58)
  }, 90_000)

  it('asks for x,y when there is no points file, refuses what is not x,y, and appends to an existing file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'survey-'))
    const out = join(dir, 'samples.csv')
    writeFileSync(out, 'x,y,anchor,rssi\n9,9,gwC,-70\n')
    const run = survey([out])
    await nth(run, 'point 1: stand there', 1)
    run.child.stdin.write('three,four\n')
    await nth(run, 'is not x,y', 1)
    await stand(run, '3,4', '3,4', 1)
    await nth(run, 'point 2: stand there', 1)
    run.child.stdin.end('\n')
    const { code, stderr } = await run.done
    expect(code).toBe(0)
    expect(stderr).toMatch(/survey: 1 points/)
    const r = rows(out)
    expect(r.slice(0, 2)).toEqual([['x', 'y', 'anchor', 'rssi'], ['9', '9', 'gwC', '-70']])
    expect(r.filter((f) => f[0] === 'x')).toHaveLength(1)
    const added = r.slice(2)
    expect(added.length).toBeGreaterThanOrEqual(2)
    for (const [x, y, anchor, rssi] of added) expect(Number(rssi)).toBe(HEARS[`${x},${y}`][anchor])
  }, 90_000)

  it('with --site prints the survey quality (leave-one-point-out error) and its judgement at the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'survey-'))
    writeFileSync(join(dir, 'points.csv'), 'name,x,y\nA,1,2\nB,5,2.5\nC,3,4\n')
    writeFileSync(join(dir, 'site.json'), JSON.stringify({ gateways: { gwA: { x: 0, y: 2 }, gwB: { x: 6, y: 2 } }, area: { minX: 0, minY: 0, maxX: 6, maxY: 5 }, rooms: [{ name: 'Hall' }] }))
    const out = join(dir, 'samples.csv')
    const run = survey(['--points', join(dir, 'points.csv'), '--site', join(dir, 'site.json'), out])
    for (const [i, point] of ['1,2', '5,2.5', '3,4'].entries()) {
      await nth(run, `${i + 1} of 3`, 1)
      await stand(run, point, '', i + 1)
    }
    const { code } = await run.done
    expect(code).toBe(0)
    expect(run.stdout()).toMatch(/survey quality: leave-one-point-out error \d+\.\d dB RMS over 3 points: (good \(under ~5 dB\)|above ~5 dB, the survey is too sparse or a gateway moved)/)
  }, 90_000)

  it('without --beacon or --mqtt: exit code 2 and what to give', async () => {
    const r1 = survey([])
    r1.child.stdin.end()
    const noOut = await r1.done
    expect(noOut.code).toBe(2)
    const child = spawn(process.execPath, [CLI, 'survey', '--mqtt', 'mqtt://127.0.0.1:1', 'out.csv'], { cwd: ROOT })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code).toBe(2)
    expect(stderr).toMatch(/--beacon <id> is required/)
  }, 30_000)
})
