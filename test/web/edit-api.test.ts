// The site editor's HTTP API (#40) over real HTTP on loopback, on a real site file in a temp
// folder: the round trip, stale and invalid saves that write nothing, the .bak, two racing saves,
// the token, Origin and Content-Type rules, the size bounds, plan uploads and the plan files.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { VirtualClock } from '../../src/clock.js'
import type { Site } from '../../src/positioning/site.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer, MapServerOptions } from '../../src/web/map-server.js'
import type { SiteEditing } from '../../src/web/edit-routes.js'
import { SiteStore } from '../../src/web/site-store.js'
import { SITE_JSON } from './fleet-driver.js'

const here = dirname(fileURLToPath(import.meta.url))
const main = join(here, '..', '..', 'dist', 'cli', 'main.js')
const PNG = readFileSync(join(here, '..', '..', 'docs', 'web-map.png'))

beforeAll(() => {
  if (!existsSync(main)) throw new Error('dist/cli/main.js is missing: run npx tsup first')
})

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  json: Record<string, unknown>
}

/** Any request with any headers (Origin and Host included, which fetch would decide itself). */
function call(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        let json: Record<string, unknown> = {}
        try {
          json = JSON.parse(body.toString('utf8')) as Record<string, unknown>
        } catch {
          // not JSON: the body is there for the test to read
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json })
      })
    })
    // A server that answers 413 and ends the connection may do it while the body is still going out.
    req.on('error', reject)
    req.end(options.body)
  })
}

const JSON_TYPE = { 'Content-Type': 'application/json' }

function putSite(base: string, version: number, site: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(base, 'PUT', '/api/site', {
    headers: { ...JSON_TYPE, ...headers },
    body: JSON.stringify({ version, site }),
  })
}

interface Editor {
  map: MapServer
  base: string
  dir: string
  file: string
  saved: Site[]
}

/** A map server in edit mode on `site.json` in a fresh temp folder (written first when `initial` is given). */
async function editor(initial?: unknown, options: Partial<MapServerOptions> & { teach?: SiteEditing['teach'] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'beaconkit-edit-'))
  const file = join(dir, 'site.json')
  if (initial !== undefined) writeFileSync(file, `${JSON.stringify(initial, null, 2)}\n`)
  const store = await SiteStore.open(file)
  const saved: Site[] = []
  const fleet = new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(0) })
  const { teach, ...rest } = options
  const map = await startMapServer({
    fleet,
    port: 0,
    edit: { store, saved: (site) => saved.push(site), ...(teach === undefined ? {} : { teach }) },
    ...rest,
  })
  closers.push(() => map.close())
  const result: Editor = { map, base: map.url, dir, file, saved }
  return result
}

describe('site editor API: GET and PUT /api/site', () => {
  it('starts from the empty site (version 0) without a file, and writes nothing until a save', async () => {
    const e = await editor()
    const got = await call(e.base, 'GET', '/api/site')
    expect(got.status).toBe(200)
    expect(got.json).toEqual({
      version: 0,
      site: { version: 0, gateways: {}, rooms: [] },
      problems: [],
      editable: true,
      file: 'site.json',
    })
    expect(existsSync(e.file)).toBe(false)
  })

  it('a save round-trips: version N+1 first, 2-space JSON, the old file as .bak, site check passes', async () => {
    const e = await editor({ ...SITE_JSON, version: 3 })
    const before = readFileSync(e.file, 'utf8')
    const site = {
      ...SITE_JSON,
      rooms: [
        ...SITE_JSON.rooms,
        {
          name: 'Store',
          polygon: [
            [14, 0],
            [16, 0],
            [16, 2],
          ],
        },
      ],
    }
    const put = await putSite(e.base, 3, site)
    expect(put.status).toBe(200)
    expect(put.json.version).toBe(4)
    const text = readFileSync(e.file, 'utf8')
    expect(Object.keys(JSON.parse(text) as object)[0]).toBe('version')
    expect(text).toBe(`${JSON.stringify({ version: 4, ...site }, null, 2)}\n`)
    expect(readFileSync(`${e.file}.bak`, 'utf8')).toBe(before)
    const got = await call(e.base, 'GET', '/api/site')
    expect(got.json.version).toBe(4)
    expect(got.json.site).toEqual({ version: 4, ...site })
    // The running fleet was handed the new site.
    expect(e.saved.map((s) => s.rooms.map((r) => r.name))).toEqual([['Kitchen', 'Hall', 'Lab', 'Office', 'Store']])
    const check = await promisify(execFile)(process.execPath, [main, 'site', 'check', e.file])
    expect(check.stdout).toContain('no problems found')
  })

  it('a stale version is refused 409 with the current version, and nothing is written', async () => {
    const e = await editor({ ...SITE_JSON, version: 5 })
    const before = statSync(e.file)
    const put = await putSite(e.base, 4, { ...SITE_JSON, rooms: [] })
    expect(put.status).toBe(409)
    expect(put.json).toMatchObject({ code: 'stale_site', version: 5 })
    expect(put.json.message).toContain('changed in another editor (now version 5)')
    expect(statSync(e.file).mtimeMs).toBe(before.mtimeMs)
    expect(existsSync(`${e.file}.bak`)).toBe(false)
    expect(e.saved).toHaveLength(0)
  })

  it('an invalid site is refused 422 with its problems where they are, and nothing is written', async () => {
    const e = await editor({ ...SITE_JSON, version: 1 })
    const before = readFileSync(e.file, 'utf8')
    const bad = { ...SITE_JSON, rooms: [{ name: 'Ghost', gateways: ['gw-nowhere'] }] }
    const put = await putSite(e.base, 1, bad)
    expect(put.status).toBe(422)
    expect(put.json.code).toBe('invalid_site')
    expect(put.json.problems).toContainEqual(
      expect.objectContaining({ severity: 'error', where: 'rooms[0].gateways[0]' }),
    )
    // The editor's own bounds: a room of 501 corners.
    const corners = Array.from({ length: 501 }, (_, i) => [Math.cos(i), Math.sin(i)])
    const big = await putSite(e.base, 1, { ...SITE_JSON, rooms: [{ name: 'Round', polygon: corners }] })
    expect(big.status).toBe(422)
    expect(big.json.problems).toContainEqual(expect.objectContaining({ where: 'rooms[0].polygon' }))
    expect(readFileSync(e.file, 'utf8')).toBe(before)
    expect(existsSync(`${e.file}.bak`)).toBe(false)
  })

  it('two saves racing on one version: exactly one wins, the other is told the new version', async () => {
    const e = await editor({ ...SITE_JSON, version: 7 })
    const a = { ...SITE_JSON, rooms: SITE_JSON.rooms.slice(0, 1) }
    const b = { ...SITE_JSON, rooms: SITE_JSON.rooms.slice(0, 2) }
    const answers = await Promise.all([putSite(e.base, 7, a), putSite(e.base, 7, b)])
    expect(answers.map((x) => x.status).sort()).toEqual([200, 409])
    const winner = answers[0].status === 200 ? a : b
    const lost = answers.find((x) => x.status === 409)
    expect(lost?.json.version).toBe(8)
    expect(JSON.parse(readFileSync(e.file, 'utf8'))).toEqual({ version: 8, ...winner })
  })
})

describe('site editor API: who may edit', () => {
  it('with a token (on loopback too) every edit path needs it: 401 JSON without, served with it', async () => {
    const token = 'edit-token-0123456789abcdef'
    const e = await editor({ ...SITE_JSON, version: 0 }, { token, host: '127.0.0.1' })
    const auth = { Authorization: `Bearer ${token}` }
    for (const [method, path] of [
      ['GET', '/api/site'],
      ['PUT', '/api/site'],
      ['PUT', '/api/plan'],
      ['POST', '/api/teach'],
    ] as const) {
      const refused = await call(e.base, method, path, {
        headers: JSON_TYPE,
        body: method === 'GET' ? undefined : '{}',
      })
      expect(refused.status, `${method} ${path}`).toBe(401)
      expect(refused.json.code).toBe('unauthorized')
      expect(refused.body.toString()).not.toContain(token)
    }
    expect((await call(e.base, 'GET', '/api/site', { headers: auth })).status).toBe(200)
    expect((await putSite(e.base, 0, SITE_JSON, auth)).status).toBe(200)
    expect((await call(e.base, 'GET', `/api/site?token=${token}`)).json.version).toBe(1)
  })

  it("refuses an Origin other than the server's own (403 cross_origin); its own is taken", async () => {
    const e = await editor({ ...SITE_JSON, version: 0 })
    const foreign = await putSite(e.base, 0, SITE_JSON, { Origin: 'http://evil.example' })
    expect(foreign.status).toBe(403)
    expect(foreign.json.code).toBe('cross_origin')
    const plan = await call(e.base, 'PUT', '/api/plan', {
      headers: { Origin: 'http://localhost:1', 'Content-Type': 'image/png' },
      body: PNG,
    })
    expect(plan.status).toBe(403)
    const own = await putSite(e.base, 0, SITE_JSON, { Origin: `http://127.0.0.1:${e.map.port}` })
    expect(own.status).toBe(200)
  })

  it('takes JSON only as application/json (415 for text/plain, which a foreign form could send)', async () => {
    const e = await editor({ ...SITE_JSON, version: 0 })
    const body = JSON.stringify({ version: 0, site: SITE_JSON })
    const plain = await call(e.base, 'PUT', '/api/site', { headers: { 'Content-Type': 'text/plain' }, body })
    expect(plain.status).toBe(415)
    expect(plain.json.code).toBe('not_json')
    const teach = await call(e.base, 'POST', '/api/teach', { headers: { 'Content-Type': 'text/plain' }, body: '{}' })
    expect(teach.status).toBe(415)
    expect(JSON.parse(readFileSync(e.file, 'utf8')).version).toBe(0)
  })

  it('refuses a body over 1 MiB with 413 too_large, and writes nothing', async () => {
    const e = await editor({ ...SITE_JSON, version: 0 })
    const before = readFileSync(e.file, 'utf8')
    const padding = 'x'.repeat(1024 * 1024)
    const put = await putSite(e.base, 0, { ...SITE_JSON, note: padding })
    expect(put.status).toBe(413)
    expect(put.json.code).toBe('too_large')
    expect(readFileSync(e.file, 'utf8')).toBe(before)
  })

  it('without edit mode the edit paths are 404 not_editable; other paths still take GET only', async () => {
    const fleet = new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(0) })
    const map = await startMapServer({ fleet, port: 0 })
    closers.push(() => map.close())
    const got = await call(map.url, 'GET', '/api/site')
    expect(got.status).toBe(404)
    expect(got.json.code).toBe('not_editable')
    const put = await putSite(map.url, 0, SITE_JSON)
    expect(put.status).toBe(404)
    expect(put.json.code).toBe('not_editable')
    expect((await call(map.url, 'POST', '/api/snapshot', { body: '{}' })).status).toBe(405)
  })

  it('teach: 409 no_room_method without a room method, 422 for a bad request, 202 when started', async () => {
    const e = await editor({ ...SITE_JSON, version: 0 })
    const ask = (body: unknown): Promise<Answer> =>
      call(e.base, 'POST', '/api/teach', { headers: JSON_TYPE, body: JSON.stringify(body) })
    const none = await ask({ room: 'Kitchen', beacon: '0117C5400001', seconds: 30 })
    expect(none.status).toBe(409)
    expect(none.json.code).toBe('no_room_method')
    expect((await ask({ room: 'Kitchen', beacon: '0117C5400001', seconds: 9999 })).status).toBe(422)
    const asked: unknown[] = []
    const t = await editor(
      { ...SITE_JSON, version: 0 },
      { teach: (room, beacon, seconds) => (asked.push({ room, beacon, seconds }), { ok: true }) },
    )
    const ok = await call(t.base, 'POST', '/api/teach', {
      headers: JSON_TYPE,
      body: JSON.stringify({ room: 'Lab', beacon: '0117C5400005', seconds: 20 }),
    })
    expect(ok.status).toBe(202)
    expect(ok.json).toEqual({ ok: true })
    expect(asked).toEqual([{ room: 'Lab', beacon: '0117C5400005', seconds: 20 }])
  })
})

/** The first bytes of a baseline JPEG: SOI, a JFIF APP0, and a SOF0 of 640 × 480. */
function jpegBytes(): Buffer {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0, 0]
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
  return Buffer.from([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9])
}

const HOSTILE_SVG =
  '<?xml version="1.0"?>\n<!-- a plan -->\n<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">' +
  '<script>alert(document.cookie)</script><rect width="10" height="10"/></svg>'

describe('site editor API: plan images', () => {
  it('stores PNG, JPEG and SVG beside the site file with their size in pixels', async () => {
    const e = await editor({ ...SITE_JSON, version: 0 })
    const upload = (type: string, body: Buffer | string): Promise<Answer> =>
      call(e.base, 'PUT', '/api/plan', { headers: { 'Content-Type': type }, body })
    const png = await upload('image/png', PNG)
    expect(png.status).toBe(200)
    expect(png.json).toEqual({ image: 'site.plan.png', width: 1060, height: 700 })
    expect(readFileSync(join(e.dir, 'site.plan.png')).equals(PNG)).toBe(true)
    expect((await upload('image/jpeg', jpegBytes())).json).toEqual({ image: 'site.plan.jpg', width: 640, height: 480 })
    expect((await upload('image/svg+xml', HOSTILE_SVG)).json).toEqual({
      image: 'site.plan.svg',
      width: 800,
      height: 600,
    })
    const boxed = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120.5 80"></svg>'
    expect((await upload('image/svg+xml', boxed)).json).toMatchObject({ width: 120.5, height: 80 })
    // The upload does not change the site: the page sets the image and saves.
    expect(JSON.parse(readFileSync(e.file, 'utf8')).image).toBeUndefined()
  })

  it('refuses a PNG sent as SVG, text that is no image, 9 MiB, and a floor that is not one of the site', async () => {
    const e = await editor({ ...SITE_JSON, version: 0 })
    const mislabelled = await call(e.base, 'PUT', '/api/plan', {
      headers: { 'Content-Type': 'image/svg+xml' },
      body: PNG,
    })
    expect(mislabelled.status).toBe(415)
    expect(mislabelled.json.code).toBe('unsupported_image')
    const html = await call(e.base, 'PUT', '/api/plan', {
      headers: { 'Content-Type': 'image/svg+xml' },
      body: '<html><svg></svg></html>',
    })
    expect(html.status).toBe(415)
    const huge = Buffer.concat([PNG, Buffer.alloc(9 * 1024 * 1024)])
    const big = await call(e.base, 'PUT', '/api/plan', { headers: { 'Content-Type': 'image/png' }, body: huge })
    expect(big.status).toBe(413)
    expect(big.json.code).toBe('too_large')
    for (const floor of ['../x', 'ground'])
      expect(
        (
          await call(e.base, 'PUT', `/api/plan?floor=${encodeURIComponent(floor)}`, {
            headers: { 'Content-Type': 'image/png' },
            body: PNG,
          })
        ).status,
        floor,
      ).toBe(400)
    const floors = await editor({
      ...SITE_JSON,
      version: 0,
      floors: [{ id: 'ground', name: 'Ground' }],
      rooms: SITE_JSON.rooms.map((r) => ({ ...r, floor: 'ground' })),
    })
    const onFloor = (floor: string): Promise<Answer> =>
      call(floors.base, 'PUT', `/api/plan?floor=${encodeURIComponent(floor)}`, {
        headers: { 'Content-Type': 'image/png' },
        body: PNG,
      })
    expect((await onFloor('../x')).status).toBe(400)
    expect((await onFloor('ground')).json.image).toBe('site.plan-ground.png')
    expect(existsSync(join(dirname(floors.dir), 'x.png'))).toBe(false)
  })

  it('serves only plan files the site names, nothing out of its folder; an SVG with a CSP that runs none', async () => {
    const e = await editor({ ...SITE_JSON, version: 0 })
    await call(e.base, 'PUT', '/api/plan', { headers: { 'Content-Type': 'image/svg+xml' }, body: HOSTILE_SVG })
    writeFileSync(join(e.dir, 'other.png'), PNG)
    // Uploaded but not yet in the site: not served.
    expect((await call(e.base, 'GET', '/plans/site.plan.svg')).status).toBe(404)
    expect((await putSite(e.base, 0, { ...SITE_JSON, image: 'site.plan.svg' })).status).toBe(200)
    const svg = await call(e.base, 'GET', '/plans/site.plan.svg')
    expect(svg.status).toBe(200)
    expect(svg.headers['content-type']).toBe('image/svg+xml')
    expect(svg.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:")
    expect(svg.headers['x-content-type-options']).toBe('nosniff')
    expect(svg.body.toString()).toBe(HOSTILE_SVG)
    for (const path of [
      '/plans/other.png',
      '/plans/../../etc/passwd',
      '/plans/..%2F..%2Fetc%2Fpasswd',
      '/plans/site.json',
    ])
      expect((await call(e.base, 'GET', path)).status, path).toBe(404)
  })
})
