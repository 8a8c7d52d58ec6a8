// Plan images as the editor stores and the map shows them (#40): what the bytes are (PNG, JPEG,
// SVG and their size), which names may be served, the map's plan naming `/plans/<file>` for a
// site file's images, the atomic write with its .bak, and `site check` on the editor's version.
import { afterEach, describe, expect, it } from 'vitest'
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkSiteJSON } from '../../src/fleet/site-check.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { removeStaleTemps, writeFileAtomic } from '../../src/util/atomic-file.js'
import { startMapServer } from '../../src/web/map-server.js'
import { SiteStore } from '../../src/web/site-store.js'
import { isPlanFileName, planFileNameFor, sniffPlanImage } from '../../src/web/plan-image.js'
import { planOf } from '../../src/web/view.js'

const PNG = readFileSync(fileURLToPath(new URL('../../docs/web-map.png', import.meta.url)))
const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

describe('plan image bytes', () => {
  it('knows PNG, JPEG and SVG by their bytes and nothing else', () => {
    expect(sniffPlanImage(PNG)).toEqual({ type: 'image/png', ext: 'png', width: 1060, height: 700 })
    // SOI, an APP1 to skip, then SOF2 (progressive) of 300 × 200.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0x00, 0x04, 1, 2, 0xff, 0xc2, 0x00, 0x11, 8, 0, 200, 1, 44, 3])
    expect(sniffPlanImage(jpeg)).toEqual({ type: 'image/jpeg', ext: 'jpg', width: 300, height: 200 })
    const doctype = '\uFEFF<?xml version="1.0"?><!DOCTYPE svg><!-- x --> <svg width="10px" height="20"/>'
    expect(sniffPlanImage(Buffer.from(doctype))).toMatchObject({ type: 'image/svg+xml', width: 10, height: 20 })
    expect(sniffPlanImage(Buffer.from('<svg width="10cm" height="5cm">'))).toMatchObject({ width: null, height: null })
    for (const bad of [
      PNG.subarray(0, 20), // cut before the size
      Buffer.from([0xff, 0xd8, 0xff, 0xd9]), // a JPEG that ends before a frame
      Buffer.from('<html><svg/></html>'),
      Buffer.from('<!-- never closed <svg/>'),
      Buffer.from('<svg/>', 'utf16le'),
      Buffer.from([0xc3, 0x28, 0x3c, 0x73, 0x76, 0x67]), // not UTF-8
    ])
      expect(sniffPlanImage(bad)).toBeUndefined()
  })

  it('serves only plain file names: no folder, no .., a plan extension', () => {
    expect(planFileNameFor('site.json', undefined, 'png')).toBe('site.plan.png')
    expect(planFileNameFor('office site.json', 'first', 'svg')).toBe('office_site.plan-first.svg')
    for (const name of ['site.plan.png', 'a-b_c.JPG'.toLowerCase(), 'x.svg'])
      expect(isPlanFileName(name), name).toBe(true)
    for (const name of ['../x.png', 'a/b.png', 'site.json', '..png', 'x.png.exe', '', `${'a'.repeat(129)}.png`])
      expect(isPlanFileName(name), name).toBe(false)
  })
})

describe("the map's plan with plan files", () => {
  const site = Site.fromJSON({
    floors: [
      { id: 'ground', name: 'Ground', image: 'site.plan-ground.png' },
      { id: 'first', name: 'First', image: 'plans/first.png' },
      { id: 'roof', name: 'Roof', image: 'https://plans.example/roof.svg' },
    ],
    gateways: { 'gw-a': { x: 2, y: 2, floor: 'ground' } },
  })

  it("names a floor's plan file /plans/<name> when the map serves them; a path with a folder never", () => {
    expect(planOf(site, undefined, true).floors?.map((f) => f.image)).toEqual([
      '/plans/site.plan-ground.png',
      undefined,
      'https://plans.example/roof.svg',
    ])
    expect(planOf(site, undefined).floors?.map((f) => f.image)).toEqual([
      undefined,
      undefined,
      'https://plans.example/roof.svg',
    ])
  })

  it('without edit mode, serves the plan files the site names from its folder, and shows them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-plans-'))
    writeFileSync(join(dir, 'site.plan-ground.png'), PNG)
    writeFileSync(join(dir, 'site.plan.png'), PNG)
    const fleet = new FleetTracker({ url: 'mqtt://127.0.0.1:1' })
    const map = await startMapServer({
      fleet,
      site,
      port: 0,
      siteFile: join(dir, 'site.json'),
      image: join(dir, 'site.plan.png'),
    })
    closers.push(() => map.close())
    const snapshot = (await (await fetch(new URL('/api/snapshot', map.url))).json()) as {
      plan: { image?: string; floors: { image?: string }[] }
    }
    expect(snapshot.plan.image).toBe('/plans/site.plan.png')
    expect(snapshot.plan.floors[0].image).toBe('/plans/site.plan-ground.png')
    for (const name of ['site.plan.png', 'site.plan-ground.png']) {
      const res = await fetch(new URL(`/plans/${name}`, map.url))
      expect(res.status, name).toBe(200)
      expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true)
    }
    // Edits are not taken without edit mode.
    const put = await fetch(new URL('/api/plan', map.url), {
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      body: PNG,
    })
    expect(put.status).toBe(404)
    expect(((await put.json()) as { code: string }).code).toBe('not_editable')
  })
})

describe('a new site on a map in edit mode', () => {
  it("shows the edited site's plan files (its own and its floors') from /plans/", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-plans-'))
    const file = join(dir, 'site.json')
    const json = {
      version: 1,
      image: 'site.plan.png',
      floors: [{ id: 'ground', name: 'Ground', image: 'site.plan-ground.png' }],
      gateways: { 'gw-a': { x: 2, y: 2, floor: 'ground' } },
    }
    writeFileSync(file, JSON.stringify(json))
    const store = await SiteStore.open(file)
    const map = await startMapServer({
      fleet: new FleetTracker({ url: 'mqtt://127.0.0.1:1' }),
      port: 0,
      edit: { store },
    })
    closers.push(() => map.close())
    // What the fleet does after a save (RunningFleet.applySite): the map takes the new site.
    map.setSite(Site.fromJSON(json))
    const snapshot = (await (await fetch(new URL('/api/snapshot', map.url))).json()) as {
      plan: { image?: string; floors: { image?: string }[] }
    }
    expect(snapshot.plan.image).toBe('/plans/site.plan.png')
    expect(snapshot.plan.floors[0].image).toBe('/plans/site.plan-ground.png')
  })
})

describe('the atomic write', () => {
  it('replaces the file whole, keeps the previous one as .bak, leaves nothing when the folder is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-atomic-'))
    const file = join(dir, 'site.json')
    await writeFileAtomic(file, 'one\n', { backup: true })
    expect(existsSync(`${file}.bak`)).toBe(false)
    await writeFileAtomic(file, 'two\n', { backup: true })
    await writeFileAtomic(file, 'three\n', { backup: true })
    expect(readFileSync(file, 'utf8')).toBe('three\n')
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('two\n')
    // A file made private stays private.
    chmodSync(file, 0o600)
    await writeFileAtomic(file, 'four\n', { backup: true })
    expect(statSync(file).mode & 0o777).toBe(0o600)
    await expect(writeFileAtomic(join(dir, 'missing', 'x.json'), 'x')).rejects.toMatchObject({ code: 'ENOENT' })
    expect(readdirSync(dir).sort()).toEqual(['site.json', 'site.json.bak'])
  })

  it("removes a killed writer's temporary files, never a running one's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-atomic-'))
    const file = join(dir, 'site.json')
    // A process that has ended: its pid is free.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
    const stale = [`site.json.${gone}.0a1b2c3d.tmp`, `site.json.bak.${gone}.0a1b2c3d.tmp`]
    const running = `site.json.${process.pid}.0a1b2c3d.tmp`
    for (const name of [...stale, running, 'other.json.1.0a1b2c3d.tmp']) writeFileSync(join(dir, name), 'x')
    expect(await removeStaleTemps(file)).toBe(2)
    expect(readdirSync(dir).sort()).toEqual(['other.json.1.0a1b2c3d.tmp', running].sort())
  })
})

describe('site check: the editor version', () => {
  it('accepts a whole version from 0, and warns of any other', () => {
    const site = { gateways: { a: {} }, rooms: [{ name: 'Hall', gateways: ['a'] }] }
    expect(checkSiteJSON({ version: 12, ...site }).problems).toEqual([])
    for (const version of [-1, 1.5, '3'])
      expect(checkSiteJSON({ version, ...site }).problems, String(version)).toEqual([
        expect.objectContaining({ severity: 'warning', where: 'version' }),
      ])
  })
})
