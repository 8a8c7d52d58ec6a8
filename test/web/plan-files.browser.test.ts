// Uploaded plans on the live map in headless Chromium (#40): a map in edit mode with a token, a
// plan uploaded through the API and set in the site, and a floor's plan file: the page loads
// both from /plans/ with its token (as it loads /floorplan), and the server serves them.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { SiteStore } from '../../src/web/site-store.js'
import { CHROMIUM, consoleErrors, launch, needsChromium } from './browser.js'

const PNG = readFileSync(fileURLToPath(new URL('../../docs/web-map.png', import.meta.url)))
const TOKEN = 'plan-token-0123456789abcdef'
const WAIT = { timeout: 20_000 }
const box = (x: number): [number, number][] => [
  [x, 0],
  [x + 5, 0],
  [x + 5, 4],
  [x, 4],
]

describe.skipIf(CHROMIUM === undefined)(needsChromium('plan files on the live map'), () => {
  let browser: Browser | undefined
  const maps: MapServer[] = []
  afterAll(async () => {
    await browser?.close()
    for (const m of maps) await m.close()
  })

  async function serve(json: Record<string, unknown>, files: Record<string, Buffer>): Promise<MapServer> {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-plan-page-'))
    const file = join(dir, 'site.json')
    writeFileSync(file, JSON.stringify(json))
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes)
    const store = await SiteStore.open(file)
    const map = await startMapServer({
      fleet: new FleetTracker({ url: 'mqtt://127.0.0.1:1' }),
      site: Site.fromJSON(json),
      port: 0,
      token: TOKEN,
      siteFile: file,
      ...(typeof json.image === 'string' ? { image: join(dir, json.image) } : {}),
      edit: { store },
    })
    maps.push(map)
    return map
  }

  it("loads an uploaded plan and a floor's plan file from /plans/ with the page's token", async () => {
    browser = await launch()
    // An upload through the API names the file; a map started on a site naming it shows it (a
    // running map taking a new site is the fleet's live side, not tested here).
    const first = await serve(
      { version: 0, gateways: { a: { x: 1, y: 1 } }, area: { minX: 0, minY: 0, maxX: 10, maxY: 4 } },
      {},
    )
    const auth = { Authorization: `Bearer ${TOKEN}` }
    const up = await fetch(new URL('/api/plan', first.url), {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'image/png' },
      body: PNG,
    })
    expect(((await up.json()) as { image: string }).image).toBe('site.plan.png')
    const onePlane = {
      gateways: { a: { x: 1, y: 1 } },
      area: { minX: 0, minY: 0, maxX: 10, maxY: 4 },
      image: 'site.plan.png',
    }
    const map = await serve({ version: 0, ...onePlane }, { 'site.plan.png': PNG })
    const floors = await serve(
      {
        version: 0,
        floors: [{ id: 'ground', name: 'Ground', image: 'site.plan-ground.png' }],
        gateways: { a: { x: 1, y: 1, floor: 'ground' } },
        area: { minX: 0, minY: 0, maxX: 10, maxY: 4 },
        rooms: [{ name: 'Kitchen', floor: 'ground', polygon: box(0) }],
      },
      { 'site.plan-ground.png': PNG },
    )
    for (const [server, name] of [
      [map, 'site.plan.png'],
      [floors, 'site.plan-ground.png'],
    ] as const) {
      const page = await browser.newPage()
      const errors = consoleErrors(page)
      const loaded = page.waitForResponse((r) => new URL(r.url()).pathname === `/plans/${name}`, WAIT)
      await page.goto(server.pageUrl)
      const response = await loaded
      expect(response.status(), name).toBe(200)
      expect(new URL(response.url()).searchParams.get('token')).toBe(TOKEN)
      await expect
        .poll(() => page.locator('#plan image.plan-image').getAttribute('href'), WAIT)
        .toBe(`plans/${name}?token=${TOKEN}`)
      expect(errors).toEqual([])
      await page.close()
    }
  })
})
