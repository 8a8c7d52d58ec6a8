// `beaconkit replay … --metrics 0.0.0.0:0` as a user runs it (the built command): off loopback a
// token is generated and printed once on stderr; Prometheus's Bearer header opens /metrics, which
// counts the replay's advertisements, and nothing opens it without the token.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { replayFleet } from '../../src/cli/commands/fleet-replay.js'
import { FleetRecorder } from '../../src/fleet/fleet-recorder.js'
import { CLI, requireBuild, ROOT } from '../cli/run-cli.js'
import { get, sample } from './scrape.js'

describe('beaconkit replay --metrics', () => {
  it('serves /metrics and /healthz with a generated token off loopback, printed once', async () => {
    requireBuild()
    const child = spawn(process.execPath, [CLI, 'replay', 'fixtures/demo.jsonl', '--json', '--metrics', '0.0.0.0:0'], { cwd: ROOT })
    let stdout = ''
    let stderr = ''
    let onOutput: () => void = () => undefined
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      onOutput()
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d
      onOutput()
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    const until = (test: () => boolean): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (test()) resolve()
        }
        onOutput = check
        void exited.then(() => reject(new Error(`the command ended first; stderr: ${stderr}`)))
        check()
      })
    const line = /metrics at http:\/\/0\.0\.0\.0:(\d+)\/metrics and \/healthz; a generated access token \(send it as Authorization: Bearer <token>\): ([A-Za-z0-9_-]+)(?=["\n])/
    try {
      // The address line, then a first beacon found: advertisements have been counted.
      await until(() => line.test(stderr) && stdout.includes('"event":"found"'))
      const [, port, token] = line.exec(stderr) as RegExpExecArray
      const url = `http://127.0.0.1:${port}/metrics`
      expect((await get(url)).status).toBe(401)
      const answer = await get(url, token)
      expect(answer.status).toBe(200)
      expect(sample(answer.body, 'beaconkit_advertisements_total{source="replay"}')).toBeGreaterThan(0)
      const health = await get(url.replace('/metrics', '/healthz'), token)
      expect(health.status).toBe(200)
      expect(JSON.parse(health.body)).toEqual({ status: 'ok', checks: { source: { ok: true, state: 'running' } } })
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      // The one line that shows it, and nowhere else.
      expect(stderr.split(token).length - 1).toBe(1)
      expect(stdout).not.toContain(token)
    } finally {
      child.kill('SIGKILL')
    }
  })
})

describe('beaconkit replay <fleet recording> --metrics', () => {
  it('is refused: a recording has no live parts to measure', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-metrics-'))
    try {
      const file = join(dir, 'fleet.jsonl')
      await (await FleetRecorder.create(file, { force: false })).close()
      const view = { json: false, keys: [], filter: {}, http: { host: '127.0.0.1', port: 0 }, metrics: { host: '127.0.0.1', port: 0 } }
      await expect(replayFleet(file, view, { write: () => true })).rejects.toMatchObject({ code: 'invalid_option', option: 'metrics' })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
