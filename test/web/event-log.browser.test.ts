// The map's event log as a person reads it (issue #35 item 14), in a real headless Chromium: a
// beacon the site names is logged by that name (not its id), a room change says "entered
// Kitchen" or "Kitchen → Hall" (not "moved"), live from a FleetTracker's events and in a replayed
// fleet recording. Screenshot: test-artifacts/event-log.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { VirtualClock } from '../../src/clock.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { FleetTimeline } from '../../src/web/timeline.js'
import { SITE, SITE_JSON } from './fleet-driver.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'

const WAIT = { timeout: 20_000 }
const T0 = Date.UTC(2026, 10, 27, 8, 0, 0)
const NAMED = '0117C5400001'
const NAME = "Anna's keys"
const PLAIN = '0117C5400002'

function beacon(id: string, t: number, room?: string, name?: string): FleetBeacon {
  const gateways = [{ gateway: 'gw-kitchen', rssi: -60, lastSeen: t }]
  return { id, time: t, present: true, ...(room === undefined ? {} : { room }), ...(name === undefined ? {} : { name }), gateways, firstSeen: T0, lastSeen: t }
}

/** The log's lines, oldest first, as text with the time cut off. */
async function logLines(page: Page): Promise<string[]> {
  const lines = await page.locator('#log li').evaluateAll((els) =>
    els.map((li) => (li.textContent ?? '').slice((li.querySelector('time')?.textContent ?? '').length).trim()),
  )
  return lines.reverse()
}

const WANT = [`${NAME} found`, `${PLAIN} found in Hall`, `${NAME} entered Kitchen`, `${NAME} Kitchen → Hall`, `${NAME} gone`]

describe.skipIf(CHROMIUM === undefined)(needsChromium('the event log names beacons and says where they went, in Chromium'), () => {
  let browser: Browser
  const servers: MapServer[] = []

  beforeAll(async () => {
    browser = await launch()
  })

  afterAll(async () => {
    await browser?.close()
    for (const s of servers) await s.close()
  })

  it('live: the site\'s name, "entered Kitchen", "Kitchen → Hall"', async () => {
    // Never connected: the test emits the tracker's events as it would.
    const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(T0) })
    const map = await startMapServer({ fleet: tracker, site: SITE, port: 0, flushIntervalMs: 50 })
    servers.push(map)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = consoleErrors(page)
    await page.goto(map.pageUrl)
    await page.locator('#plan').waitFor(WAIT)
    await expect.poll(() => map.clients, WAIT).toBe(1)
    tracker.emit('found', beacon(NAMED, T0 + 1000, undefined, NAME))
    tracker.emit('found', beacon(PLAIN, T0 + 1500, 'Hall'))
    // The first room comes a batch after `found` (fusion.ts), without a `from`.
    tracker.emit('room', beacon(NAMED, T0 + 2000, 'Kitchen', NAME), { to: 'Kitchen' })
    tracker.emit('room', beacon(NAMED, T0 + 9000, 'Hall', NAME), { from: 'Kitchen', to: 'Hall' })
    tracker.emit('gone', beacon(NAMED, T0 + 20_000, 'Hall', NAME))
    await expect.poll(() => logLines(page), WAIT).toEqual(WANT)
    // The id is still there for who needs it: the name's tooltip.
    expect(await page.locator(`#log li[data-event="gone"] b`).getAttribute('title')).toBe(NAMED)
    await screenshot(page, 'event-log.png')
    expect(errors).toEqual([])
    await page.close()
  })

  it('replay: a recorded run logs the same lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-log-'))
    const path = join(dir, 'run.jsonl')
    const lines = [
      { format: 'beaconkit-fleet', version: 1, site: SITE_JSON },
      { t: T0 + 1000, event: 'found', id: NAMED },
      { t: T0 + 1000, event: 'keyframe', beacons: [beacon(NAMED, T0 + 1000, undefined, NAME)] },
      { t: T0 + 1500, event: 'found', id: PLAIN, room: 'Hall' },
      { t: T0 + 2000, event: 'room', id: NAMED, to: 'Kitchen' },
      { t: T0 + 9000, event: 'room', id: NAMED, from: 'Kitchen', to: 'Hall' },
      { t: T0 + 20_000, event: 'gone', id: NAMED },
    ]
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const map = await startMapServer({ timeline: await FleetTimeline.load(path), port: 0 })
    servers.push(map)
    // The last moment: every line has happened.
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
    await page.goto(map.pageUrl)
    await page.locator('#replay:not([hidden])').waitFor(WAIT)
    await page.locator('#replay-scrub').evaluate((el, value) => {
      const input = el as unknown as { value: string; dispatchEvent(e: unknown): boolean }
      input.value = String(value)
      input.dispatchEvent(new (globalThis as unknown as { Event: new (type: string) => unknown }).Event('input'))
    }, T0 + 20_000)
    await expect.poll(() => logLines(page), WAIT).toEqual(WANT)
    await page.close()
  })
})
