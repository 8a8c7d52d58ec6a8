// The site editor (#40) on a site with floors: it edits the floor the map's switch shows. A room
// drawn upstairs is the upper floor's, a plan uploaded there is that floor's picture, a gateway
// placed downstairs stands on the ground floor; switching back shows only what is on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { CHROMIUM, consoleErrors, launch, needsChromium } from './browser.js'
import { floorPlanPng } from './plan-picture.js'
import {
  at,
  drawRoom,
  openEditor,
  placeGateway,
  saves,
  siteOnDisk,
  startEditorStack,
  tab,
  WAIT,
} from './editor-driver.js'
import type { EditorStack } from './editor-driver.js'

describe.skipIf(CHROMIUM === undefined)(needsChromium('the site editor on a site with floors'), () => {
  let stack: EditorStack
  let browser: Browser

  beforeAll(async () => {
    stack = await startEditorStack({
      version: 0,
      area: { minX: 0, minY: 0, maxX: 16, maxY: 10 },
      floors: [
        { id: 'ground', name: 'Ground floor' },
        { id: 'first', name: 'First floor' },
      ],
      gateways: {},
      rooms: [],
    })
    browser = await launch()
  })

  afterAll(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('edits the floor shown: rooms, its plan picture and gateways go on that floor', async () => {
    const page = await openEditor(browser, stack)
    const errors = consoleErrors(page)
    const pressed = (): Promise<string | null> => page.locator('#floors button[aria-pressed="true"]').textContent()
    await expect.poll(pressed, WAIT).toBe('Ground floor')
    await page.locator('#floors button[data-floor="first"]').click()
    await expect.poll(pressed, WAIT).toBe('First floor')

    await drawRoom(page, 'Bedroom', [
      [1, 1],
      [7, 1],
      [7, 5],
      [1, 5],
    ])
    await tab(page, 'plan')
    await saves(page, () =>
      page
        .locator('#plan-file')
        .setInputFiles({ name: 'up.png', mimeType: 'image/png', buffer: floorPlanPng(320, 200) }),
    )
    let site = siteOnDisk(stack) as ReturnType<typeof siteOnDisk> & { floors: { id: string; image?: string }[] }
    expect(site.rooms).toEqual([{ name: 'Bedroom', polygon: expect.any(Array), floor: 'first' }])
    expect(site.floors.find((f) => f.id === 'first')?.image).toBe('site.plan-first.png')
    expect(site.image).toBeUndefined()
    await page.locator('#plan image.plan-image').waitFor(WAIT)

    await page.locator('#floors button[data-floor="ground"]').click()
    await expect.poll(pressed, WAIT).toBe('Ground floor')
    await placeGateway(page, 'kitchen-pi', 3, 3)
    site = siteOnDisk(stack) as typeof site
    expect(site.gateways['kitchen-pi']).toMatchObject({ floor: 'ground' })
    // A placed gateway is dragged on the plan to move it, and removed from the list.
    const from = await at(page, 3, 3)
    const to = await at(page, 6, 4)
    await saves(page, async () => {
      await page.mouse.move(from.x, from.y)
      await page.mouse.down()
      await page.mouse.move(to.x, to.y, { steps: 4 })
      await page.mouse.up()
    })
    expect(siteOnDisk(stack).gateways['kitchen-pi'].x).toBeCloseTo(6, 0)
    expect(siteOnDisk(stack).gateways['kitchen-pi'].y).toBeCloseTo(4, 0)
    await placeGateway(page, 'living-pi', 12, 3)
    await saves(page, () => page.locator('#edit-gateways li[data-gateway="living-pi"] button.danger').click())
    expect(Object.keys(siteOnDisk(stack).gateways)).toEqual(['kitchen-pi'])
    // Downstairs: no upper room, no upper picture.
    expect(await page.locator('#plan polygon.room').count()).toBe(0)
    expect(await page.locator('#plan image.plan-image').count()).toBe(0)
    await tab(page, 'rooms')
    expect(await page.locator('#edit-rooms li').count()).toBe(0)
    expect(errors).toEqual([])
  })
})
