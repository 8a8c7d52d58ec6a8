// Issue 40: an open map page follows an edited site. The map server of a fleet and headless
// Chromium: `MapServer.setSite` with a renamed room (a hostile name), a room drawn anew and a
// gateway moved; the page, without a reload, draws the new rooms (names as text, never markup),
// lists them, moves the gateway's marker, and tells an editor on the page ('beaconkit:site').
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { VirtualClock } from '../../src/clock.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'
import { SITE, SITE_JSON } from './fleet-driver.js'

const HOSTILE = '<img src=x onerror=alert(1)>Lab'
const WAIT = { timeout: 20_000 }

describe.skipIf(CHROMIUM === undefined)(needsChromium('an open map page follows an edited site in Chromium'), () => {
  let tracker: FleetTracker
  let map: MapServer
  let browser: Browser
  let page: Page
  const dialogs: string[] = []

  beforeAll(async () => {
    tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', site: SITE, clock: new VirtualClock(0) })
    map = await startMapServer({ fleet: tracker, site: SITE, port: 0, flushIntervalMs: 200 })
    browser = await launch()
    page = await browser.newPage({ viewport: { width: 1100, height: 700 } })
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
  })

  afterAll(async () => {
    await browser?.close()
    await map?.close()
  })

  it('redraws rooms and gateways from the new plan without a reload', async () => {
    const errors = consoleErrors(page)
    await page.goto(map.pageUrl)
    const drawnRooms = (): Promise<string[]> =>
      page.locator('#plan polygon.room').evaluateAll((els) => els.map((e) => e.getAttribute('data-room') ?? ''))
    const listedRooms = (): Promise<string[]> =>
      page.locator('#rooms .room-name').evaluateAll((els) => els.map((e) => e.textContent ?? ''))
    const gatewayAt = (): Promise<string | null> =>
      page.locator('#plan g.gateway[data-id="gw-kitchen"]').evaluate((e) => e.getAttribute('transform') ?? e.innerHTML)
    await expect.poll(drawnRooms, WAIT).toEqual(['Kitchen', 'Hall', 'Lab', 'Office'])
    const before = await gatewayAt()
    await page.evaluate(
      "window.heard = []; document.addEventListener('beaconkit:site', (e) => window.heard.push(e.detail.rooms.length))",
    )

    const edited = {
      ...SITE_JSON,
      gateways: { ...SITE_JSON.gateways, 'gw-kitchen': { x: 6, y: 4 } },
      rooms: [...SITE_JSON.rooms.map((r) => (r.name === 'Lab' ? { ...r, name: HOSTILE } : r)), { name: 'Annex', polygon: [[14, 0], [18, 0], [18, 5], [14, 5]] }],
      area: { minX: 0, minY: 0, maxX: 18, maxY: 10 },
    }
    map.setSite(Site.fromJSON(edited))
    await expect.poll(drawnRooms, WAIT).toEqual(['Kitchen', 'Hall', HOSTILE, 'Office', 'Annex'])
    await expect.poll(listedRooms, WAIT).toEqual(['Kitchen', 'Hall', HOSTILE, 'Office', 'Annex'])
    await expect.poll(gatewayAt, WAIT).not.toBe(before)
    expect(await page.evaluate<number[]>('window.heard')).toEqual([5])
    await screenshot(page, 'map-live-site.png')
    // The hostile name is text wherever it shows: no element was made from it, nothing ran.
    expect(await page.locator('#plan text.room-label', { hasText: HOSTILE }).count()).toBeGreaterThan(0)
    expect(await page.evaluate<number>("document.querySelectorAll('img, iframe, object, embed, [onerror]').length")).toBe(0)
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
  }, 60_000)
})
