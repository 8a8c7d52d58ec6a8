// The site editor (#40) with more than one person at it, and on a phone: two editors at once do
// not lose each other's changes (a stale save is refused with a clear message and a Reload
// button); hostile room and beacon names typed in one browser are text in another, and run
// nothing; at 390 px with touch, a gateway is placed and a beacon named by tapping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'
import {
  at,
  drawRoom,
  nameBeacon,
  openEditor,
  picture,
  placeGateway,
  saves,
  siteOnDisk,
  startEditorStack,
  tab,
  WAIT,
} from './editor-driver.js'
import type { EditorStack } from './editor-driver.js'

const HOSTILE_ROOM = '<img src=x onerror="window.__pwned=1">'
const HOSTILE_BEACON = '"><script>window.__pwned=2</script>'

describe.skipIf(CHROMIUM === undefined)(needsChromium('the site editor: two editors, hostile names, a phone'), () => {
  let stack: EditorStack
  let browser: Browser

  beforeAll(async () => {
    // A site begun earlier: its area set (16 × 10 m), nothing placed yet.
    stack = await startEditorStack({
      version: 0,
      area: { minX: 0, minY: 0, maxX: 16, maxY: 10 },
      gateways: {},
      rooms: [],
    })
    browser = await launch()
  })

  afterAll(async () => {
    await browser?.close()
    await stack?.close()
  })

  it("refuses a stale save with a clear message; after Reload both editors' changes are on disk", async () => {
    const a = await openEditor(browser, stack)
    const b = await openEditor(browser, stack)
    // B starts naming the cat (the form open: the page does not pull the site from under it)…
    await tab(b, 'beacons')
    await b.locator('#edit-beacons li[data-beacon="TAG-CAT"] .edit-item').click()
    await b.locator('#beacon-name').fill('Cat')
    // … while A draws a room and saves it.
    await drawRoom(a, 'Hall', [
      [1, 1],
      [6, 1],
      [6, 4],
      [1, 4],
    ])
    await b.keyboard.press('Enter')
    const banner = b.locator('#edit-banner')
    await expect.poll(() => banner.textContent(), WAIT).toMatch(/^Changed in another editor — reload/)
    await screenshot(b, 'editor-stale.png')
    expect(siteOnDisk(stack).beacons ?? []).toEqual([])
    await b.locator('#edit-banner button', { hasText: 'Reload' }).click()
    await expect.poll(() => banner.count(), WAIT).toBe(0)
    await nameBeacon(b, 'TAG-CAT', 'Cat')
    const site = siteOnDisk(stack)
    expect(site.rooms.map((r) => r.name)).toEqual(['Hall'])
    expect(site.beacons).toEqual([{ id: 'TAG-CAT', name: 'Cat', announce: true }])
    await a.context().close()
    await b.context().close()
  })

  it('shows hostile room and beacon names as text in another browser, and runs nothing', async () => {
    const a = await openEditor(browser, stack)
    await drawRoom(a, HOSTILE_ROOM, [
      [8, 1],
      [14, 1],
      [14, 4],
      [8, 4],
    ])
    await placeGateway(a, 'office-pi', 11, 2.5)
    await nameBeacon(a, 'TAG-LAPTOP', HOSTILE_BEACON)
    await a.context().close()

    const b = await openEditor(browser, stack)
    const errors = consoleErrors(b)
    const dialogs: string[] = []
    b.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await tab(b, 'rooms')
    await expect.poll(() => b.locator('#edit-rooms .edit-item').allTextContents(), WAIT).toContain(HOSTILE_ROOM)
    const labels = await b.locator('#plan text.room-label').allTextContents()
    expect(labels).toContain(HOSTILE_ROOM)
    await tab(b, 'beacons')
    await expect
      .poll(() => b.locator('#edit-beacons li[data-beacon="TAG-LAPTOP"] b').textContent(), WAIT)
      .toBe(HOSTILE_BEACON)
    // The plan names the beacon by its new name, as text (its label shortened, its tooltip whole).
    const dot = b.locator('#plan g.beacon[data-id="TAG-LAPTOP"]')
    await expect.poll(() => dot.locator('title').textContent(), WAIT).toMatch(/^"><script>window\.__pwned=2<\/script>/)
    expect(await dot.locator('text').textContent()).toMatch(/^"><script/)
    expect(await b.evaluate('window.__pwned')).toBeUndefined()
    expect(await b.evaluate("document.querySelectorAll('img, script:not([src]), [onerror]').length")).toBe(0)
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await b.context().close()
  })

  it('works at 390 px with touch: a gateway placed and a beacon named by tapping', async () => {
    const page = await openEditor(browser, stack, {
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      deviceScaleFactor: 2,
    })
    const errors = consoleErrors(page)
    // The page fits the phone: nothing wider than the screen, the panel below the plan.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    const plan = await page.locator('#plan').boundingBox()
    const panel = await page.locator('#edit-panel').boundingBox()
    expect(panel !== null && plan !== null && panel.y >= plan.y + plan.height).toBe(true)

    await page.locator('#edit-panel [data-tab="gateways"]').tap()
    await page.locator('#edit-gateways li[data-gateway="office-pi"] .edit-carry').tap()
    await expect
      .poll(() => page.locator('#edit-gateways li.selected .hint').textContent(), WAIT)
      .toMatch(/tap the plan/)
    await page.locator('#plan').scrollIntoViewIfNeeded()
    const spot = await at(page, 3, 7.5)
    await saves(page, () => page.touchscreen.tap(spot.x, spot.y))
    const placed = siteOnDisk(stack).gateways['office-pi']
    expect(placed.x).toBeCloseTo(3, 0)
    expect(placed.y).toBeCloseTo(7.5, 0)

    await page.locator('#edit-panel [data-tab="beacons"]').tap()
    await page.locator('#edit-beacons li[data-beacon="TAG-KETTLE"] .edit-item').tap()
    await page.locator('#beacon-name').fill('Kettle')
    await page.locator('#beacon-announce').tap()
    await picture(page, 'editor-phone.png')
    await saves(page, () => page.locator('#beacon-save').tap())
    expect(siteOnDisk(stack).beacons).toContainEqual({ id: 'TAG-KETTLE', name: 'Kettle', announce: false })

    // Two fingers spread apart on the plan zoom it in (Chromium's own touch input, through CDP).
    const width = (): Promise<number> =>
      page.locator('#plan').evaluate((el) => Number((el.getAttribute('viewBox') ?? '').split(' ')[2]))
    const before = await width()
    const c = await at(page, 8, 5)
    const cdp = await page.context().newCDPSession(page)
    const fingers = (d: number): { x: number; y: number; id: number }[] => [
      { x: c.x - d, y: c.y, id: 1 },
      { x: c.x + d, y: c.y, id: 2 },
    ]
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(20) })
    for (const d of [40, 60, 80])
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(d) })
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] })
    expect(await width()).toBeLessThan(before / 2)
    expect(errors).toEqual([])
  })
})
