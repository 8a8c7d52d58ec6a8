// `beaconkit fleet --http --edit` as a real process (#40): refused without --http, started in a
// folder without site.json (the empty site, version 0), and SIGKILLed while it saves: the site
// file it leaves is always a whole one, the old or the new, never a torn one.
import { afterEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, ROOT, requireBuild, runCli } from './run-cli.js'
import { seededRandom } from '../../src/util/random.js'

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

/** Starts `fleet --embedded-broker 0 --http 127.0.0.1:0 --edit` in `dir`; resolves with the map's and broker's URLs. */
async function startFleet(
  dir: string,
  extra: string[] = [],
  edit = true,
): Promise<{ child: ChildProcess; url: string; broker: string; stderr: () => string }> {
  requireBuild()
  const args = ['fleet', '--embedded-broker', '0', '--http', '127.0.0.1:0', ...(edit ? ['--edit'] : []), '--json', ...extra]
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir })
  children.push(child)
  child.stdout?.resume()
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const deadline = Date.now() + 30_000
  for (;;) {
    const m = /live map at (http:\/\/[^\s"]+)/.exec(stderr)
    const b = /listening on (mqtt:\/\/[^\s";]+);/.exec(stderr)
    if (m !== null && b !== null) return { child, url: m[1], broker: b[1], stderr: () => stderr }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the fleet did not start: ${stderr}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function getSite(url: string): Promise<{ version: number; site: Record<string, unknown> }> {
  const res = await fetch(new URL('/api/site', url))
  expect(res.status).toBe(200)
  return (await res.json()) as { version: number; site: Record<string, unknown> }
}

/** A valid site large enough that a save takes a while: `n` rooms of 100 corners each. */
function bigSite(n: number, tag: number): Record<string, unknown> {
  const rooms = Array.from({ length: n }, (_, i) => ({
    name: `Room ${i} of save ${tag}`,
    polygon: Array.from({ length: 100 }, (_, k) => {
      const a = (k / 100) * 2 * Math.PI
      return [10 * i + 4 + 3 * Math.cos(a), 4 + 3 * Math.sin(a)]
    }),
  }))
  return { gateways: { 'gw-1': { x: 1, y: 1 } }, rooms }
}

describe('beaconkit fleet --edit', () => {
  it('without --http exits 2 and says to give --http', async () => {
    const run = await runCli(['fleet', '--embedded-broker', '0', '--edit'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('`--edit` serves the editor on the live map: give --http too')
  })

  it('starts without site.json on the empty site (version 0), making the file at the first save', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-fleet-edit-'))
    const { url } = await startFleet(dir)
    const got = await getSite(url)
    expect(got.version).toBe(0)
    expect(got.site).toEqual({ version: 0, gateways: {}, rooms: [] })
    expect(existsSync(join(dir, 'site.json'))).toBe(false)
    const put = await fetch(new URL('/api/site', url), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        version: 0,
        site: { gateways: { 'gw-1': {} }, rooms: [{ name: 'Hall', gateways: ['gw-1'] }] },
      }),
    })
    expect(put.status).toBe(200)
    expect(JSON.parse(readFileSync(join(dir, 'site.json'), 'utf8'))).toMatchObject({ version: 1 })
  })

  it('a plan uploaded and saved into the site shows on the running map at once, from /plans/', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-fleet-plan-'))
    const { url } = await startFleet(dir)
    const png = readFileSync(join(ROOT, 'docs', 'web-map.png'))
    const up = await fetch(new URL('/api/plan', url), {
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      body: png,
    })
    expect(await up.json()).toEqual({ image: 'site.plan.png', width: 1060, height: 700 })
    const area = { minX: 0, minY: 0, maxX: 10.6, maxY: 7 }
    const site = {
      image: 'site.plan.png',
      area,
      gateways: { 'gw-1': {} },
      rooms: [{ name: 'Hall', gateways: ['gw-1'] }],
    }
    const put = await fetch(new URL('/api/site', url), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ version: 0, site }),
    })
    expect(put.status).toBe(200)
    const snapshot = (await (await fetch(new URL('/api/snapshot', url))).json()) as {
      plan: { image?: string; area?: object; rooms: { name: string }[] }
    }
    expect(snapshot.plan).toMatchObject({ image: '/plans/site.plan.png', area, rooms: [{ name: 'Hall' }] })
    const served = await fetch(new URL('/plans/site.plan.png', url))
    expect(served.status).toBe(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true)
  })

  it("teach from the editor reaches the fleet's room method: an unknown room 422, a beacon not heard 409", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-fleet-teach-'))
    copyFileSync(join(ROOT, 'fixtures', 'site-demo.json'), join(dir, 'site.json'))
    const { url } = await startFleet(dir, ['--site', 'site.json', '--rooms', 'plan', '--fingerprints', 'fp.json'])
    const teach = (room: string): Promise<Response> =>
      fetch(new URL('/api/teach', url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ room, beacon: '0117C5400001', seconds: 5 }),
      })
    const unknown = await teach('Cellar')
    expect(unknown.status).toBe(422)
    expect(await unknown.json()).toMatchObject({ code: 'unknown_room' })
    const unheard = await teach('Kitchen')
    expect(unheard.status).toBe(409)
    expect(await unheard.json()).toMatchObject({ code: 'beacon_not_heard' })
  })

  it('teach with the tag heard is taken (202), and the room lands in the fingerprint file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-fleet-teach-'))
    copyFileSync(join(ROOT, 'fixtures', 'site-demo.json'), join(dir, 'site.json'))
    const fp = join(dir, 'fp.json')
    const { url, broker } = await startFleet(dir, ['--site', 'site.json', '--rooms', 'plan', '--fingerprints', fp])
    // The demo site's gateways, simulated, publish to the fleet's broker; the kettle stands in the kitchen.
    const gateways = spawn(process.execPath, [CLI, 'simulate', '--site', 'fixtures/site-demo.json', '--mqtt', broker], {
      cwd: ROOT,
      stdio: 'ignore',
    })
    children.push(gateways)
    const kettle = '0117C5D00002'
    await expect
      .poll(
        async () => {
          const snapshot = (await (await fetch(new URL('/api/snapshot', url))).json()) as { beacons: { id: string }[] }
          return snapshot.beacons.some((b) => b.id === kettle)
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(true)
    const res = await fetch(new URL('/api/teach', url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ room: 'Kitchen', beacon: kettle, seconds: 2 }),
    })
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ ok: true })
    await expect
      .poll(() => (existsSync(fp) ? readFileSync(fp, 'utf8') : ''), { timeout: 30_000, interval: 250 })
      .toContain('"room":"Kitchen"')
  }, 90_000)

  it('takes a hand edit of site.json without a restart; an edit with errors is refused, an editor on the old version too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-fleet-edit-'))
    const file = join(dir, 'site.json')
    writeFileSync(file, JSON.stringify({ version: 3, gateways: { 'gw-1': {} }, rooms: [{ name: 'Hall', gateways: ['gw-1'] }] }))
    const { url, stderr } = await startFleet(dir)
    const rooms = async (): Promise<string[]> => {
      const snapshot = (await (await fetch(new URL('/api/snapshot', url))).json()) as { plan: { rooms: { name: string }[] } }
      return snapshot.plan.rooms.map((r) => r.name)
    }
    expect(await rooms()).toEqual(['Hall'])
    // A text editor's save, the version number left as it was: taken as a new version (4).
    writeFileSync(file, JSON.stringify({ version: 3, gateways: { 'gw-1': {}, 'gw-2': {} }, rooms: [{ name: 'Hall', gateways: ['gw-1'] }, { name: 'Study', gateways: ['gw-2'] }] }))
    await expect.poll(rooms, { timeout: 10_000 }).toEqual(['Hall', 'Study'])
    expect((await getSite(url)).version).toBe(4)
    expect(stderr()).toContain('site.json was changed on disk; the fleet takes it as version 4')
    // An editor that read version 3 cannot overwrite the hand edit.
    const stale = await fetch(new URL('/api/site', url), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ version: 3, site: { gateways: { 'gw-1': {} }, rooms: [{ name: 'Hall', gateways: ['gw-1'] }] } }),
    })
    expect(stale.status).toBe(409)
    // A hand edit with an error (a room without a name) is refused with where it is: the fleet keeps its site.
    writeFileSync(file, JSON.stringify({ version: 4, gateways: { 'gw-1': {} }, rooms: [{ gateways: ['gw-1'] }] }))
    await expect.poll(stderr, { timeout: 10_000 }).toContain('site.json was changed on disk, but site: rooms[0] has no name')
    expect(await rooms()).toEqual(['Hall', 'Study'])
    expect((await getSite(url)).version).toBe(4)
  }, 60_000)

  it('without --edit, a hand edit of the --site file is taken too, and one with errors refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-fleet-site-'))
    const file = join(dir, 'flat.json')
    writeFileSync(file, JSON.stringify({ gateways: { 'gw-1': {} }, rooms: [{ name: 'Hall', gateways: ['gw-1'] }] }))
    const { url, stderr } = await startFleet(dir, ['--site', 'flat.json'], false)
    const rooms = async (): Promise<string[]> => {
      const snapshot = (await (await fetch(new URL('/api/snapshot', url))).json()) as { plan: { rooms: { name: string }[] } }
      return snapshot.plan.rooms.map((r) => r.name)
    }
    expect(await rooms()).toEqual(['Hall'])
    writeFileSync(file, JSON.stringify({ gateways: { 'gw-1': {} }, rooms: [{ name: 'Hall', gateways: ['gw-1'] }, { name: 'Porch' }] }))
    await expect.poll(rooms, { timeout: 10_000 }).toEqual(['Hall', 'Porch'])
    expect(stderr()).toContain('site: flat.json was changed on disk; the fleet takes it as version 1')
    writeFileSync(file, '{ "gateways": ')
    await expect.poll(stderr, { timeout: 10_000 }).toContain('the site file flat.json is not JSON')
    expect(await rooms()).toEqual(['Hall', 'Porch'])
    // Still no editor: the file is only read.
    expect((await fetch(new URL('/api/site', url))).status).toBe(404)
  }, 60_000)

  it('SIGKILLed while saving leaves the old or the new site file whole, and starts from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-fleet-crash-'))
    const file = join(dir, 'site.json')
    const random = seededRandom(40)
    let acknowledged = 0
    for (let round = 0; round < 4; round++) {
      const { child, url } = await startFleet(dir, ['--site', 'site.json'])
      // The fleet starts from what the last kill left, and clears the temporary files it left.
      expect(readdirSync(dir).filter((e) => e.endsWith('.tmp'))).toEqual([])
      expect((await getSite(url)).version).toBeGreaterThanOrEqual(acknowledged)
      let version = (await getSite(url)).version
      acknowledged = version
      const save = async (): Promise<void> => {
        const res = await fetch(new URL('/api/site', url), {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ version, site: bigSite(60, version + 1) }),
        })
        if (res.status !== 200) throw new Error(`save answered ${res.status}`)
        version = ((await res.json()) as { version: number }).version
        acknowledged = version
      }
      // The first round makes the file, so the kill has something to tear.
      if (!existsSync(file)) await save()
      const saving = (async () => {
        for (;;) await save()
      })().catch(() => undefined)
      await new Promise((r) => setTimeout(r, 150 + Math.floor(random() * 400)))
      child.kill('SIGKILL')
      await new Promise((r) => child.once('exit', r))
      await saving
      const left = JSON.parse(readFileSync(file, 'utf8')) as { version: number; rooms: { name: string }[] }
      // A save the fleet acknowledged is on disk; one under way at the kill is either wholly there or not.
      expect([acknowledged, acknowledged + 1]).toContain(left.version)
      expect(left.rooms).toHaveLength(60)
      expect(left.rooms[0].name).toBe(`Room 0 of save ${left.version}`)
      if (existsSync(`${file}.bak`)) expect(() => JSON.parse(readFileSync(`${file}.bak`, 'utf8'))).not.toThrow()
      acknowledged = left.version
    }
    expect(acknowledged).toBeGreaterThan(4)
  }, 120_000)
})
