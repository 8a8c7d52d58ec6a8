// The site editor (#40) in Chromium against the real map server in edit mode: a new user's site
// made from a picture, without a text editor. A floor plan is uploaded and scaled, two rooms
// drawn, two of the gateways the fleet hears placed, a beacon named; after a reload every one
// is there, the file on disk passes `beaconkit site check`, and a refused save shows its problem
// on the room it concerns. It runs `beaconkit fleet --http --edit` as a user does: the fleet
// takes each save without a restart and reports the named beacon in the drawn room.
// EDITOR_SCREENSHOTS=1 (npm run docs:screenshots) writes the docs' pictures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import type { Browser } from 'playwright-core'
import { CLI, requireBuild } from '../cli/run-cli.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'
import { floorPlanPng } from './plan-picture.js'
import {
  at,
  drawRoom,
  nameBeacon,
  openEditor,
  picture,
  placeGateway,
  saves,
  siteOnDisk,
  startFleetCli,
  TOKEN,
  tab,
  WAIT,
} from './editor-driver.js'
import type { EditorStack } from './editor-driver.js'

describe.skipIf(CHROMIUM === undefined)(needsChromium('the site editor in Chromium'), () => {
  let stack: EditorStack
  let browser: Browser

  beforeAll(async () => {
    stack = await startFleetCli()
    browser = await launch()
  })

  afterAll(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('makes a site from a picture: plan, scale, two rooms, two gateways, a name; all there after a reload', async () => {
    const page = await openEditor(browser, stack)
    const errors = consoleErrors(page)
    // Before any picture, the plan's hint leads to the editor (not to a file to write).
    await expect.poll(() => page.locator('#legend .no-plan').textContent(), WAIT).toContain('Press Edit: load a picture')

    // The picture: 400 × 250 px, taken at 50 px a metre until the scale is set (8 × 5 m).
    await saves(page, () =>
      page
        .locator('#plan-file')
        .setInputFiles({ name: 'flat.png', mimeType: 'image/png', buffer: floorPlanPng(400, 250) }),
    )
    expect(siteOnDisk(stack).image).toBe('site.plan.png')
    expect(siteOnDisk(stack).area).toEqual({ minX: 0, minY: 0, maxX: 8, maxY: 5 })
    await page.locator('#plan image.plan-image').waitFor(WAIT)

    // The scale: a line along the whole width (8 m as the picture was taken) is really 16 m.
    await page.locator('#scale-start').click()
    const from = await at(page, 0.5, 2.5)
    const to = await at(page, 7.5, 2.5)
    await page.mouse.move(from.x, from.y)
    await page.mouse.down()
    await page.mouse.move(to.x, to.y, { steps: 4 })
    await page.mouse.up()
    await page.locator('#scale-length').fill('14')
    await saves(page, () => page.keyboard.press('Enter'))
    expect(siteOnDisk(stack).area).toEqual({ minX: 0, minY: 0, maxX: 16, maxY: 10 })

    await drawRoom(page, 'Kitchen', [
      [0.3, 0.3],
      [7.9, 0.3],
      [7.9, 4.9],
      [0.3, 4.9],
    ])
    await drawRoom(page, 'Living room', [
      [8.1, 0.3],
      [15.7, 0.3],
      [15.7, 4.9],
      [8.1, 4.9],
    ])
    await picture(page, 'editor-rooms.png')

    // Teaching asks the running fleet; this one decides rooms by the strongest gateway, and the
    // page says what the fleet answered. (The room just drawn is the one selected.)
    expect(await page.locator('#edit-rooms li.selected .edit-item').textContent()).toBe('Living room')
    await page.locator('#edit-rooms button', { hasText: 'Teach this room with a tag' }).click()
    await expect.poll(() => page.locator('#edit-rooms .teach-answer').textContent(), WAIT).toMatch(/--rooms plan/)

    // The gateways the fleet hears are listed, online first; two are dragged onto the plan.
    await tab(page, 'gateways')
    await expect.poll(() => page.locator('#edit-gateways li[data-state="online"]').count(), WAIT).toBe(3)
    await placeGateway(page, 'kitchen-pi', 2, 1.5)
    await placeGateway(page, 'living-pi', 14, 1.5, () => picture(page, 'editor-gateways.png'))

    await tab(page, 'beacons')
    await page.locator('#edit-beacons li[data-beacon="TAG-KETTLE"]').waitFor(WAIT)
    await page.locator('#edit-beacons li[data-beacon="TAG-KETTLE"] .edit-item').click()
    await page.locator('#beacon-name').fill('Kettle')
    await picture(page, 'editor-beacon.png')
    await saves(page, () => page.keyboard.press('Enter'))
    await nameBeacon(page, 'TAG-CAT', 'Cat')

    const site = siteOnDisk(stack)
    expect(site.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Living room'])
    expect(site.gateways['kitchen-pi'].x).toBeCloseTo(2, 0)
    expect(site.gateways['living-pi'].y).toBeCloseTo(1.5, 0)
    expect(site.beacons).toEqual([
      { id: 'TAG-KETTLE', name: 'Kettle', announce: true },
      { id: 'TAG-CAT', name: 'Cat', announce: true },
    ])

    // A reload finds everything: drawn from the stored site, not from what this page held.
    await page.reload()
    await page.locator('#edit-toggle').click()
    await tab(page, 'rooms')
    await expect
      .poll(() => page.locator('#edit-rooms .edit-item').allTextContents(), WAIT)
      .toEqual(['Kitchen', 'Living room'])
    await expect
      .poll(() => page.locator('#plan polygon.room').evaluateAll((els) => els.map((e) => e.getAttribute('data-room'))))
      .toEqual(['Kitchen', 'Living room'])
    await tab(page, 'gateways')
    expect(await page.locator('#edit-gateways li[data-gateway="kitchen-pi"] .muted').textContent()).toMatch(
      /^2(\.\d+)?, 1\.\d+ m$/,
    )
    expect(await page.locator('#plan g.gateway[data-id="living-pi"]').count()).toBe(1)
    await tab(page, 'beacons')
    await expect
      .poll(() => page.locator('#edit-beacons li[data-beacon="TAG-KETTLE"] b').textContent(), WAIT)
      .toBe('Kettle')
    expect(await page.locator('#plan image.plan-image').getAttribute('href')).toMatch(/^plans\/site\.plan\.png\?token=/)

    // The file is one `beaconkit site check` passes (the plan picture beside it).
    requireBuild()
    const check = spawnSync(process.execPath, [CLI, 'site', 'check', stack.file], { encoding: 'utf8' })
    expect(check.stderr + check.stdout).not.toMatch(/error/i)
    expect(check.status).toBe(0)

    // The running fleet took every save: it reports the kettle by its new name in the drawn
    // kitchen (no restart), and the page lists it there.
    const fleetSays = async (): Promise<{ name?: string; room?: string } | undefined> => {
      const res = await fetch(new URL('api/snapshot', stack.map.url), { headers: { Authorization: `Bearer ${TOKEN}` } })
      const snapshot = (await res.json()) as { beacons: { id: string; name?: string; room?: string }[] }
      return snapshot.beacons.find((b) => b.id === 'TAG-KETTLE')
    }
    await expect.poll(fleetSays, WAIT).toMatchObject({ name: 'Kettle', room: 'Kitchen' })
    await expect
      .poll(() => page.locator('#rooms li[data-room="Kitchen"] li[data-beacon="TAG-KETTLE"]').textContent(), WAIT)
      .toBe('Kettle')
    await screenshot(page, 'editor-live.png')
    // The one error the browser logs is the fleet's refusal to teach (409), which the page showed.
    expect(errors).toEqual(['Failed to load resource: the server responded with a status of 409 (Conflict)'])
  }, 60_000)

  it('shows a refused save on the room it concerns, and undoes it', async () => {
    const page = await openEditor(browser, stack)
    // Escape gives up a drawing: nothing is drawn, nothing saved.
    const version = siteOnDisk(stack).version
    await tab(page, 'rooms')
    await page.locator('#room-draw').click()
    for (const [x, y] of [
      [1, 6],
      [5, 6],
    ]) {
      const p = await at(page, x, y)
      await page.mouse.click(p.x, p.y)
    }
    expect(await page.locator('#plan .edit-drawing').count()).toBe(1)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('#plan .edit-drawing').count(), WAIT).toBe(0)
    await page.locator('#room-draw').waitFor(WAIT)
    expect(siteOnDisk(stack).version).toBe(version)
    await drawRoom(page, 'Store', [
      [1, 6],
      [5, 6],
      [3, 9],
    ])
    const index = siteOnDisk(stack).rooms.findIndex((r) => r.name === 'Store')
    // The new room is selected: its corners are handles. One dragged moves; chosen and deleted, two are left.
    const corner = await at(page, 3, 9)
    const moved = await at(page, 4, 9.5)
    await saves(page, async () => {
      await page.mouse.move(corner.x, corner.y)
      await page.mouse.down()
      await page.mouse.move(moved.x, moved.y, { steps: 4 })
      await page.mouse.up()
    })
    const dragged = siteOnDisk(stack).rooms[index].polygon[2]
    expect(dragged[0]).toBeCloseTo(4, 0)
    expect(dragged[1]).toBeCloseTo(9.5, 0)
    await page.mouse.click(moved.x, moved.y)
    await page.locator('#edit-panel button', { hasText: 'Delete corner' }).waitFor(WAIT)
    const before = siteOnDisk(stack).version
    await page.keyboard.press('Delete')
    const shown = page.locator(`#edit-rooms li[data-room-index="${index}"] .problem`)
    await expect.poll(() => shown.textContent(), WAIT).toMatch(/polygon/)
    await expect.poll(() => page.locator('#plan .problem-text').first().textContent(), WAIT).toMatch(/polygon/)
    expect(await page.locator('#plan .problem-outline').count()).toBeGreaterThan(0)
    expect(await page.locator('#edit-banner').textContent()).toMatch(/^Not saved/)
    await picture(page, 'editor-problem.png')
    expect(siteOnDisk(stack).version).toBe(before)
    await page.locator('#edit-banner button', { hasText: 'Undo my changes' }).click()
    await expect.poll(() => shown.count(), WAIT).toBe(0)
    expect(siteOnDisk(stack).rooms[index].polygon).toHaveLength(3)
  })

  it('zooms the plan with the buttons and the wheel, pans it by a drag, and fits it again', async () => {
    const page = await openEditor(browser, stack)
    await tab(page, 'beacons')
    const box = (): Promise<number[]> =>
      page.locator('#plan').evaluate((el) => (el.getAttribute('viewBox') ?? '').split(' ').map(Number))
    const whole = await box()
    expect(whole).toEqual([0, 0, 16, 10])
    await page.locator('#zoom button[aria-label="zoom in"]').click()
    const [, , w1] = await box()
    expect(w1).toBeCloseTo(16 / 1.4, 5)
    const centre = await at(page, 8, 5)
    await page.mouse.move(centre.x, centre.y)
    await page.mouse.wheel(0, -200)
    await expect.poll(async () => (await box())[2], WAIT).toBeLessThan(w1)
    // A drag on an empty part of the plan (no room there) moves the view with the pointer.
    const [x0] = await box()
    const from = await at(page, 8, 7)
    await page.mouse.move(from.x, from.y)
    await page.mouse.down()
    await page.mouse.move(from.x + 80, from.y, { steps: 4 })
    await page.mouse.up()
    expect((await box())[0]).toBeLessThan(x0)
    // The plan keeps its zoom through the page's redraws, until ⤢ fits it whole again.
    await page.waitForTimeout(600)
    expect((await box())[2]).toBeLessThan(w1)
    await page.locator('#zoom button[aria-label="fit the plan"]').click()
    expect(await box()).toEqual(whole)
  })
})
