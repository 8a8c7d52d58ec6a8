// The map as a new user meets it (issue #24, items 3, 4 and 9), measured in a real headless
// Chromium: a fleet recording written as `beaconkit fleet --record` writes it, loaded by the real
// FleetTimeline and served by startMapServer; and a real BeaconScanner on simulated iBeacons
// for the range table. Screenshots: test-artifacts/plan-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { FleetTimeline } from '../../src/web/timeline.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { SimulatedSource } from '../../src/sources/simulated.js'
import { siteScenario } from '../../src/sources/scenario.js'
import { ROOT } from '../cli/run-cli.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'

const T0 = Date.UTC(2026, 10, 26, 9, 0, 0)
const WAIT = { timeout: 20_000 }
const dir = mkdtempSync(join(tmpdir(), 'beaconkit-plan-'))

interface Tag {
  id: string
  name?: string
  room?: string
  gateway: string
  position?: { x: number; y: number; accuracy: number }
}

/** A one-moment fleet recording of `tags` on `site`, every gateway online. */
async function recording(name: string, site: Record<string, unknown>, tags: Tag[]): Promise<FleetTimeline> {
  const gateways = Object.keys(site.gateways as Record<string, unknown>)
  const lines = [
    { format: 'beaconkit-fleet', version: 1, site },
    ...gateways.map((gateway) => ({ t: T0, event: 'gateway', gateway, state: 'online' })),
    {
      t: T0,
      event: 'keyframe',
      beacons: tags.map((b) => ({ id: b.id, ...(b.name === undefined ? {} : { name: b.name }), time: T0, present: true, ...(b.room === undefined ? {} : { room: b.room }), ...(b.position === undefined ? {} : { position: b.position }), gateways: [{ gateway: b.gateway, rssi: -62, distance: 1.8, lastSeen: T0 }], firstSeen: T0 - 60_000, lastSeen: T0 })),
    },
  ]
  const path = join(dir, `${name}.jsonl`)
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  return FleetTimeline.load(path)
}

/** The README's simple site form: rooms listing their gateways, no coordinates. */
const SIMPLE = { gateways: { 'kitchen-pi': {}, 'hall-pi': {}, 'lab-pi': {} }, rooms: { Kitchen: ['kitchen-pi'], Hall: ['hall-pi'], Lab: ['lab-pi'] } }
const SIMPLE_TAGS: Tag[] = [
  { id: '0117C5400001', room: 'Kitchen', gateway: 'kitchen-pi' },
  { id: '0117C5400002', room: 'Kitchen', gateway: 'kitchen-pi' },
  { id: '0117C5400003', room: 'Hall', gateway: 'hall-pi' },
  { id: 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|7', room: 'Hall', gateway: 'hall-pi' },
  { id: '0117C5400005', room: 'Lab', gateway: 'lab-pi' },
]

const DEMO = JSON.parse(readFileSync(join(ROOT, 'fixtures/site-demo.json'), 'utf8')) as { rooms: { name: string; polygon: [number, number][] }[]; walls: unknown[]; gateways: Record<string, { x: number; y: number }> }
const UUID = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0'
/** Twenty tags where people leave them: by the gateways, in clusters, one in a doorway. */
const POSITIONS: [number, number][] = [
  [1.0, 4.0], [2.6, 1.9], [5.0, 2.5], [6.5, 3.8], [3.2, 4.2],
  [13.4, 1.2], [10.0, 2.5], [11.5, 3.5], [12.0, 4.0], [15.0, 4.2],
  [2.5, 8.0], [6.5, 8.0], [4.0, 6.5], [6.8, 6.0], [1.2, 6.2],
  [13.0, 9.0], [10.0, 7.5], [14.6, 8.1], [11.2, 6.2], [9.4, 9.1],
]
const CONTRADICTED = '0117C5D00009'
const DEMO_TAGS: Tag[] = POSITIONS.map(([x, y], i) => {
  const id = i === 3 ? `${UUID}|1|7` : i === 4 ? `${UUID}|1|8` : `0117C5D000${String(i + 1).padStart(2, '0')}`
  const room = DEMO.rooms.find((r) => x >= r.polygon[0][0] && x <= r.polygon[2][0] && y >= r.polygon[0][1] && y <= r.polygon[2][1])?.name as string
  // The reported case: the tracker (RSSI, with hysteresis) still says Bedroom, the position is in the Living room.
  return { id, room: id === CONTRADICTED ? 'Bedroom' : room, gateway: 'living-pi', position: { x, y, accuracy: 1 + (i % 4) * 0.7 } }
})

/**
 * A crowded site: five tags around each gateway, a tight cluster of eight, and tags at the
 * plan's edges and corners; half of them named (long names), the rest labelled by serial.
 */
const CROWDED: Tag[] = (() => {
  const spots: [number, number][] = []
  for (const g of Object.values(DEMO.gateways)) for (let k = 0; k < 5; k++) spots.push([g.x + 0.9 * Math.cos(k * 1.3), g.y + 0.7 * Math.sin(k * 1.3)])
  for (let k = 0; k < 8; k++) spots.push([5 + 0.4 * Math.cos(k * 0.8), 3 + 0.4 * Math.sin(k * 0.8)])
  spots.push([0.1, 3], [15.9, 6], [8.2, 0.1], [5, 9.9], [0.2, 0.2], [15.8, 9.8], [15.8, 0.2], [0.2, 9.8])
  const names = ['Meeting cart 12', 'Wheelchair B', 'Defibrillator', 'Laptop trolley', 'Visitor badge 7', 'Cleaning cart']
  return spots.map(([x, y], i) => {
    const room = DEMO.rooms.find((r) => x >= r.polygon[0][0] && x <= r.polygon[2][0] && y >= r.polygon[0][1] && y <= r.polygon[2][1])?.name as string
    const name = i % 2 === 0 ? { name: `${names[i % names.length]} ${i}` } : {}
    return { id: `0117C5E000${String(i + 1).padStart(2, '0')}`, room, gateway: 'living-pi', position: { x, y, accuracy: 1 }, ...name }
  })
})()

interface Box { left: number; top: number; right: number; bottom: number }

const boxOf = (page: Page, selector: string): Promise<Box[]> =>
  page.locator(selector).evaluateAll((els) => els.map((e) => {
    const r = e.getBoundingClientRect()
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }
  }))

/** Whether `b` lies inside `area`, to half a pixel. */
const inside = (b: Box, area: Box): boolean =>
  b.left >= area.left - 0.5 && b.top >= area.top - 0.5 && b.right <= area.right + 0.5 && b.bottom <= area.bottom + 0.5

const overlaps = (a: Box, b: Box): boolean => Math.min(a.right, b.right) > Math.max(a.left, b.left) && Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top)

/** What `document.elementFromPoint` hits at each gateway's square and name: the gateway's id, if it is on top. */
const hitGateways = (page: Page): Promise<{ id: string; square: string | undefined; name: string | undefined }[]> =>
  page.locator('#plan g.gateway').evaluateAll((els) => els.map((g) => {
    const at = (e: typeof g | null): string | undefined => {
      if (e === null) return undefined
      const r = e.getBoundingClientRect()
      const doc = (globalThis as unknown as { document: { elementFromPoint(x: number, y: number): typeof g | null } }).document
      return doc.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.closest('g.gateway')?.getAttribute('data-id') ?? undefined
    }
    return { id: g.getAttribute('data-id') as string, square: at(g.querySelector('rect')), name: at(g.querySelector('text')) }
  }))

describe.skipIf(CHROMIUM === undefined)(needsChromium('the map as a new user meets it, in Chromium'), () => {
  let browser: Browser
  const servers: MapServer[] = []

  beforeAll(async () => {
    browser = await launch()
  })

  afterAll(async () => {
    await browser?.close()
    for (const s of servers) await s.close()
  })

  async function serve(timeline: FleetTimeline): Promise<MapServer> {
    const map = await startMapServer({ timeline, port: 0 })
    servers.push(map)
    return map
  }

  it('a site without coordinates is drawn as rooms with their gateways and tags, and says there is no plan (#24 item 3)', async () => {
    const map = await serve(await recording('simple', SIMPLE, SIMPLE_TAGS))
    for (const viewport of [{ width: 1100, height: 700 }, { width: 390, height: 844 }]) {
      const page = await browser.newPage({ viewport })
      const errors = consoleErrors(page)
      await page.goto(map.pageUrl)
      await expect.poll(() => page.locator('#plan g.beacon').count(), WAIT).toBe(SIMPLE_TAGS.length)
      // Each room a box holding its gateway and its tags, each tag labelled.
      for (const [room, gateways] of Object.entries(SIMPLE.rooms)) {
        const box = page.locator(`#plan g.room-box[data-room="${room}"]`)
        expect(await box.locator(`g.gateway[data-id="${gateways[0]}"]`).count()).toBe(1)
        for (const tag of SIMPLE_TAGS.filter((t) => t.room === room)) expect(await box.locator(`g.beacon[data-id="${tag.id}"] text.beacon-label`).count()).toBe(1)
      }
      expect(await page.locator(`#plan g.beacon[data-id="${SIMPLE_TAGS[3].id}"] text`).textContent()).toBe('E2C56DB5…|1|7')
      await expect.poll(() => page.locator('#legend .no-plan').textContent(), WAIT).toContain('No floor plan')
      // Nothing empty: every box of the plan has something in it, and gateways are on top.
      for (const hit of await hitGateways(page)) expect(hit).toEqual({ id: hit.id, square: hit.id, name: hit.id })
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width)
      await screenshot(page, `plan-simple-${viewport.width}.png`)
      expect(errors).toEqual([])
      await page.close()
    }
  })

  it('twenty tags on a plan stay readable: labels, gateways on top, walls, colour = the room drawn in (#24 item 9)', async () => {
    const map = await serve(await recording('demo20', DEMO, DEMO_TAGS))
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } })
    const errors = consoleErrors(page)
    await page.goto(map.pageUrl)
    await expect.poll(() => page.locator('#plan g.beacon').count(), WAIT).toBe(20)
    await screenshot(page, 'plan-20-tags.png')
    // Labelled by serial, else a short id that keeps an iBeacon's major/minor.
    const labels = await page.locator('#plan g.beacon text.beacon-label').allTextContents()
    expect(labels).toHaveLength(20)
    expect(labels).toEqual(expect.arrayContaining(['0117C5D00001', 'E2C56DB5…|1|7', 'E2C56DB5…|1|8']))
    const boxes = await boxOf(page, '#plan g.beacon text.beacon-label')
    const clear = boxes.filter((a, i) => boxes.every((b, j) => i === j || !overlaps(a, b)))
    expect(clear.length).toBeGreaterThanOrEqual(18)
    // Gateways above the tags: their squares and names are what a click at their centre hits.
    const hits = await hitGateways(page)
    expect(hits).toHaveLength(4)
    for (const hit of hits) expect(hit).toEqual({ id: hit.id, square: hit.id, name: hit.id })
    // The site's walls.
    expect(await page.locator('#plan line.wall').count()).toBe(DEMO.walls.length)
    // Accuracy circles are outlines only.
    expect(await page.locator('#plan circle.accuracy').evaluateAll((els) => els.map((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { fill: string } }).getComputedStyle(e).fill))).toEqual(Array(20).fill('none'))
    // A dot's colour is the colour of the room polygon it is drawn in.
    const fills = Object.fromEntries(await page.locator('#plan polygon.room').evaluateAll((els) => els.map((e) => [e.getAttribute('data-room'), e.getAttribute('fill')])))
    const dots = await page.locator('#plan g.beacon').evaluateAll((els) => els.map((g) => {
      const c = g.querySelector('circle.dot')
      return { id: g.getAttribute('data-id') as string, x: Number(c?.getAttribute('cx')), y: Number(c?.getAttribute('cy')), fill: c?.getAttribute('fill') }
    }))
    for (const d of dots) {
      const room = DEMO.rooms.find((r) => d.x > r.polygon[0][0] && d.x < r.polygon[2][0] && d.y > r.polygon[0][1] && d.y < r.polygon[2][1])?.name as string
      expect({ id: d.id, fill: d.fill }).toEqual({ id: d.id, fill: fills[room] })
    }
    const odd = page.locator(`#plan g.beacon[data-id="${CONTRADICTED}"]`)
    expect(await odd.getAttribute('data-room')).toBe('Bedroom')
    expect(await odd.getAttribute('data-drawn-room')).toBe('Living room')
    expect(await odd.locator('title').textContent()).toContain("tracker's room Bedroom, its position in Living room")
    expect(errors).toEqual([])
    await page.close()
    // The same on a phone in dark mode: smaller, the same layout, nothing wider than the screen.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', deviceScaleFactor: 2 })
    await phone.goto(map.pageUrl)
    await expect.poll(() => phone.locator('#plan g.beacon text.beacon-label').count(), WAIT).toBe(20)
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    await screenshot(phone, 'plan-20-tags-390-dark.png')
    await phone.close()
  })

  it('a crowded site: no label overlaps another label or a gateway, and all stay inside the plan, at 1280 and 390 px (#35 item 13)', async () => {
    const map = await serve(await recording('crowded', DEMO, CROWDED))
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const page = await browser.newPage({ viewport, deviceScaleFactor: viewport.width < 500 ? 2 : 1 })
      const errors = consoleErrors(page)
      await page.goto(map.pageUrl)
      await expect.poll(() => page.locator('#plan g.beacon').count(), WAIT).toBe(CROWDED.length)
      await screenshot(page, `plan-crowded-${viewport.width}.png`)
      const labels = await boxOf(page, '#plan g.beacon text.beacon-label')
      const gateways = await boxOf(page, '#plan g.gateway rect, #plan g.gateway text')
      const [area] = await boxOf(page, '#plan rect.area')
      // Every tag is labelled: by its name, or (unnamed) its serial.
      expect(labels).toHaveLength(CROWDED.length)
      const tight = (b: Box): Box => ({ left: b.left + 0.5, top: b.top + 0.5, right: b.right - 0.5, bottom: b.bottom - 0.5 })
      const clashes: string[] = []
      labels.forEach((a, i) => {
        labels.forEach((b, j) => {
          if (j > i && overlaps(tight(a), tight(b))) clashes.push(`label ${i} on label ${j}`)
        })
        gateways.forEach((g, j) => {
          if (overlaps(tight(a), g)) clashes.push(`label ${i} on gateway box ${j}`)
        })
        if (!inside(a, area)) clashes.push(`label ${i} outside the plan`)
      })
      // Gateways' own names stay inside the plan too.
      gateways.forEach((g, j) => {
        if (!inside(g, area)) clashes.push(`gateway box ${j} outside the plan`)
      })
      expect(clashes, `at ${viewport.width} px`).toEqual([])
      expect(errors).toEqual([])
      await page.close()
    }
  })

  it('the replay page fits a phone, the speed selector visible (#24 item 4)', async () => {
    const map = await serve(await recording('phone', DEMO, DEMO_TAGS.slice(0, 6)))
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 })
    await page.goto(map.pageUrl)
    await page.locator('#replay:not([hidden])').waitFor(WAIT)
    await expect.poll(() => page.locator('#plan g.beacon').count(), WAIT).toBe(6)
    await screenshot(page, 'plan-replay-390.png')
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    for (const box of await boxOf(page, '#replay-play, #replay-scrub, #replay-time, #replay-speed')) {
      expect(box.left).toBeGreaterThanOrEqual(0)
      expect(box.right).toBeLessThanOrEqual(390)
    }
    await page.close()
  })

  describe('the scanner range table (#24 item 4)', () => {
    let scanner: BeaconScanner
    let map: MapServer

    beforeAll(async () => {
      // siteScenario: every fourth device is a plain iBeacon, one UUID, ids differing only in minor.
      scanner = new BeaconScanner({ source: new SimulatedSource({ devices: siteScenario(8, 1), seed: 1 }), updateIntervalMs: 200 })
      map = await startMapServer({ scanner, port: 0, flushIntervalMs: 250 })
      servers.push(map)
      await scanner.start()
    })

    afterAll(async () => {
      await scanner?.stop()
    })

    it('shows iBeacon ids whole enough to tell apart, and every column on a phone', async () => {
      for (const viewport of [{ width: 1100, height: 700 }, { width: 390, height: 844 }]) {
        const page = await browser.newPage({ viewport })
        await page.goto(map.pageUrl)
        await expect.poll(() => page.locator('#range tbody tr[data-id*="|"]').count(), WAIT).toBeGreaterThanOrEqual(2)
        const names = await page.locator('#range tbody tr[data-id*="|"] td.name').evaluateAll((els) => els.map((e) => ({ id: e.parentElement?.getAttribute('data-id') as string, text: e.textContent, clipped: e.scrollWidth > e.clientWidth })))
        for (const n of names) {
          const [, major, minor] = n.id.split('|')
          expect(n).toEqual({ id: n.id, text: expect.stringMatching(new RegExp(`\\|${major}\\|${minor}$`)) as unknown, clipped: false })
        }
        expect(new Set(names.map((n) => n.text)).size).toBe(names.length)
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width)
        const pane = await page.locator('#table-pane').evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }))
        expect(pane.scroll).toBeLessThanOrEqual(pane.client)
        const last = (await boxOf(page, '#range thead th:last-child'))[0]
        expect(last.right).toBeLessThanOrEqual(viewport.width)
        await screenshot(page, `plan-range-${viewport.width}.png`)
        await page.close()
      }
    })
  })
})
