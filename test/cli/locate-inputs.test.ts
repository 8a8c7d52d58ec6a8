// `beaconkit locate` reads every file beaconkit writes that holds RSSI — a fleet recording, an
// advertisement recording, a survey — made by the built command itself as real processes, and
// refuses (exit 2, not_a_recording) a file of none of these, as `beaconkit replay` does.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/mosquitto.js'
import { runCli, startCli } from './run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'locate-inputs-'))
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})
const SITE = 'fixtures/site-demo.json'

function estimates(stdout: string): { beacon: string; x: number; y: number; room: string | null }[] {
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { beacon: string; x: number; y: number; room: string | null })
}

describe('beaconkit locate on the files beaconkit writes', () => {
  it('positions the beacons of a fleet recording (fleet --record) of a simulated site', async () => {
    const port = await freePort()
    const file = join(dir, 'day.jsonl')
    const fleet = startCli(['fleet', '--embedded-broker', String(port), '--site', SITE, '--record', file, '--json', '--duration', '12'])
    await fleet.waitFor('"event":"updated"')
    const sim = startCli(['simulate', '--site', SITE, '--mqtt', `mqtt://127.0.0.1:${port}`])
    const fleetDone = await fleet.done
    sim.child.kill('SIGTERM')
    await sim.done
    expect(fleetDone.code).toBe(0)
    expect(readFileSync(file, 'utf8')).toContain('"event":"beacons"')
    const r = await runCli(['locate', '--site', SITE, file])
    expect(r.stderr).not.toMatch(/skipped [1-9]/)
    expect(r.code).toBe(0)
    const out = estimates(r.stdout)
    // The laptop stands still in the office (6.5, 8.0): most of its estimates say so.
    const laptop = out.filter((o) => o.beacon === '0117C5D00003')
    expect(laptop.length).toBeGreaterThan(0)
    expect(laptop.filter((o) => o.room === 'Office').length).toBeGreaterThan(laptop.length / 2)
    expect(r.stderr).toMatch(/locate: [1-9]\d* observations, [1-9]\d* estimates; skipped 0 unreadable lines/)
  }, 90_000)

  it('reads an advertisement recording (record) as heard by one site anchor: --gateway, or the site of one', async () => {
    const file = join(dir, 'adverts.jsonl')
    const rec = await runCli(['record', '--simulate', '--duration', '3', '--json', file])
    expect(rec.code).toBe(0)
    const several = await runCli(['locate', '--site', SITE, file])
    expect(several.code).toBe(2)
    expect(several.stderr).toMatch(/advertisement recording, made by one scanner: say which anchor of the site it is with --gateway <id> \(one of kitchen-pi, living-pi/)
    const given = await runCli(['locate', '--site', SITE, '--gateway', 'office-pi', file])
    expect(given.code).toBe(0)
    expect(estimates(given.stdout).length).toBeGreaterThan(0)
    expect(given.stderr).toMatch(/skipped 0 unreadable lines/)
    const one = join(dir, 'one.json')
    writeFileSync(one, JSON.stringify({ gateways: { 'hall-pi': { x: 2, y: 2 } }, area: { minX: 0, minY: 0, maxX: 6, maxY: 5 }, rooms: [{ name: 'Hall' }] }))
    const single = await runCli(['locate', '--site', one, file])
    expect(single.code).toBe(0)
    expect(estimates(single.stdout)[0]?.beacon).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/)
  }, 60_000)

  it('reads a survey (x,y,anchor,rssi): each surveyed point positioned as a beacon named x,y', async () => {
    const file = join(dir, 'survey.csv')
    const rows = ['x,y,anchor,rssi']
    for (let i = 0; i < 20; i++) rows.push(`2,1.5,kitchen-pi,${-50 - (i % 3)}`, `2,1.5,living-pi,-80`, `2,1.5,office-pi,-82`, `2,1.5,bedroom-pi,-88`)
    writeFileSync(file, `${rows.join('\n')}\n`)
    const r = await runCli(['locate', '--site', SITE, file])
    expect(r.code).toBe(0)
    const out = estimates(r.stdout)
    expect(out.length).toBeGreaterThan(0)
    expect(new Set(out.map((o) => o.beacon))).toEqual(new Set(['2,1.5']))
    expect(r.stderr).toMatch(/skipped 0 unreadable lines/)
  }, 30_000)

  it('refuses a file of none of these kinds, an empty one, and one without a reading: exit 2, not_a_recording', async () => {
    const other = join(dir, 'other.jsonl')
    writeFileSync(other, '{"hello": "world"}\n{"hello": 2}\n')
    const empty = join(dir, 'empty.jsonl')
    writeFileSync(empty, '\n')
    const headerOnly = join(dir, 'header.jsonl')
    writeFileSync(headerOnly, '{"format":"beaconkit-fleet","version":1}\n{"t":5,"event":"gateway","gateway":"a","state":"online"}\nnot json\n')
    for (const [file, what] of [
      [other, /is none of the files locate reads: expected a fleet recording \(beaconkit fleet --record\), an advertisement recording/],
      [empty, /is empty/],
      [headerOnly, /holds no RSSI reading \(1 unreadable lines\)/],
    ] as const) {
      const r = await runCli(['locate', '--site', SITE, file])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(what)
      expect(r.stderr).toContain('[not_a_recording]')
    }
  }, 30_000)
})
