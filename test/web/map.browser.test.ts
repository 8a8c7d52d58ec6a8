// The live map in a real headless Chromium: a simulated four-gateway site (real MQTT clients
// through the embedded aedes broker into a real FleetTracker on a virtual clock) served by
// startMapServer. Every beacon shows in its room, one that leaves goes away, a gateway killed
// turns offline, and the page reconnects when the server restarts. Screenshots: test-artifacts/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { VirtualClock } from '../../src/clock.js'
import { startMapServer } from '../../src/web/map-server.js'
import { MqttBeaconDetails } from '../../src/web/beacon-details.js'
import { FleetGateways } from '../../src/web/known-gateways.js'
import type { MapServer } from '../../src/web/map-server.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'
import { BEACONS, SITE, SiteDriver } from './fleet-driver.js'
import { waitFor } from '../integration/wait.js'
import mqtt from 'mqtt'
import { statusPayload } from '../../src/mqtt/payloads.js'

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0)
const WAIT = { timeout: 20_000 }

describe.skipIf(CHROMIUM === undefined)(needsChromium('live map of a four-gateway site in Chromium'), () => {
  let broker: RunningBroker
  let tracker: FleetTracker
  let driver: SiteDriver
  let map: MapServer
  let details: MqttBeaconDetails
  let browser: Browser
  let page: Page
  let errors: string[]
  const clock = new VirtualClock(T0)

  beforeAll(async () => {
    broker = await startBroker({ port: 0 })
    // Retained statuses an earlier run left (#35): two gateways of an old site, an hour old, and a
    // gateway up now that this site does not list. None of them is one of the site's four.
    const leftovers = await mqtt.connectAsync(broker.url, { clientId: 'map-test-leftovers', reconnectPeriod: 0 })
    await leftovers.publishAsync('beaconkit/gateways/old-hall/status', statusPayload('online', T0 - 3_600_000), { qos: 1, retain: true })
    await leftovers.publishAsync('beaconkit/gateways/old-lab/status', statusPayload('offline', T0 - 3_600_000), { qos: 1, retain: true })
    await leftovers.publishAsync('beaconkit/gateways/stray/status', statusPayload('online', T0), { qos: 1, retain: true })
    await leftovers.endAsync()
    tracker = new FleetTracker({ url: broker.url, site: SITE, clock, goneTimeoutMs: 20_000, dwellMs: 2000 })
    // The map listens before the tracker subscribes, so it sees every gateway's retained status.
    details = new MqttBeaconDetails({ url: broker.url, gateways: new FleetGateways(tracker, SITE), clock })
    await details.start()
    map = await startMapServer({ fleet: tracker, site: SITE, port: 0, flushIntervalMs: 250, details })
    await tracker.start()
    driver = new SiteDriver(broker.url, tracker, clock)
    await driver.start()
    await waitFor(() => details.details('0117C5400008') !== undefined && details.malformed > 0, 'the gateways\' retained beacon states', 20_000)
    browser = await launch()
    page = await browser.newPage({ viewport: { width: 1100, height: 660 } })
    errors = consoleErrors(page)
  })

  afterAll(async () => {
    await browser?.close()
    await map?.close()
    await driver?.close()
    await details?.stop()
    await tracker?.stop()
    await broker?.close()
  })

  it('shows every beacon in its room, on the plan and in the room list, and gateways online', async () => {
    await page.goto(map.pageUrl)
    await driver.run(6)
    for (const [id, room] of Object.entries(BEACONS)) {
      await page.locator(`#plan g.beacon[data-id="${id}"][data-room="${room}"]`).waitFor(WAIT)
      await page.locator(`#rooms li[data-room="${room}"] li[data-beacon="${id}"]`).waitFor(WAIT)
    }
    await expect.poll(() => page.locator('#plan g.gateway[data-state="online"]').count(), WAIT).toBe(4)
    // The header counts the site's four gateways, not leftovers of an earlier run; others apart.
    await expect.poll(() => page.locator('#counts').textContent(), WAIT).toBe('8 beacons · 4/4 gateways online · 1 other gateway not in the site')
    expect(await page.locator('#counts').getAttribute('title')).toBe('not in the site: stray (online)')
    expect(await page.locator('#plan g.beacon').count()).toBe(Object.keys(BEACONS).length)
    await page.locator('#connection[data-state="live"]').waitFor(WAIT)
    await screenshot(page, 'map-fleet.png')
  })

  it('shows a beacon\'s details on click: its gateways with RSSI and a sparkline', async () => {
    await driver.run(3)
    const id = '0117C5400003'
    // Two tags in one room can be placed on top of each other, so the one below cannot be hit on
    // the plan; the room list is the way to any tag.
    await page.locator(`#rooms li[data-beacon="${id}"]`).click()
    await page.locator('#details:not([hidden])').waitFor(WAIT)
    await expect.poll(() => page.locator('#details-title').textContent(), WAIT).toBe(id)
    await page.locator('#details-gateways li[data-gateway="gw-hall"]').waitFor(WAIT)
    expect(await page.locator('#details [data-field="room"]').textContent()).toBe('Hall')
    // Sensor values come from the gateways' retained beacon states.
    expect(await page.locator('#details [data-field="battery"]').textContent()).toBe('83 %')
    // The fleet never saw the bytes: "verified" is the gateway's claim, and says whose.
    expect(await page.locator('#details [data-field="verified"]').textContent()).toBe("private broadcast verified by gateway gw-hall (gateway's claim, not checked here)")
    expect(await page.locator('#details [data-field="reported by"]').textContent()).toContain('gateway gw-hall')
    expect(await page.locator('#details [data-field="model"]').textContent()).toBe('C0')
    await page.locator('#details-spark polyline').waitFor(WAIT)
    await screenshot(page, 'map-details.png')
  })

  it('a beacon that leaves goes away from the plan and the room list', async () => {
    const id = '0117C5400005'
    driver.left.add(id)
    await driver.run(24)
    await page.locator(`#plan g.beacon[data-id="${id}"]`).waitFor({ state: 'detached', ...WAIT })
    await page.locator(`#rooms li[data-beacon="${id}"]`).waitFor({ state: 'detached', ...WAIT })
    await page.locator(`#log li[data-event="gone"][data-id="${id}"]`).waitFor(WAIT)
    // The others are still there.
    expect(await page.locator('#plan g.beacon').count()).toBe(Object.keys(BEACONS).length - 1)
  })

  it('a gateway killed turns offline (its last will)', async () => {
    driver.kill('gw-office')
    await page.locator('#plan g.gateway[data-id="gw-office"][data-state="offline"]').waitFor(WAIT)
    await driver.run(2)
    await page.locator('#log li[data-event="offline"][data-id="gw-office"]').waitFor(WAIT)
    await expect.poll(() => page.locator('#counts').textContent(), WAIT).toMatch(/ · 3\/4 gateways online · 1 other gateway not in the site$/)
    await screenshot(page, 'map-gateway-offline.png')
  })

  it('had no console errors so far', () => {
    expect(errors).toEqual([])
  })

  it('reconnects when the server restarts, and gets the whole state again', async () => {
    const port = map.port
    await map.close()
    await page.locator('#connection[data-state="down"]').waitFor(WAIT)
    map = await startMapServer({ fleet: tracker, site: SITE, port, flushIntervalMs: 250 })
    await driver.run(2)
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 30_000 })
    await expect.poll(() => page.locator('#plan g.beacon').count(), WAIT).toBe(Object.keys(BEACONS).length - 1)
  })

  it('works on a phone screen in dark mode', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', deviceScaleFactor: 2 })
    const phoneErrors = consoleErrors(phone)
    await phone.goto(map.pageUrl)
    await driver.run(2)
    await phone.locator('#plan g.beacon').first().waitFor(WAIT)
    // One column: nothing wider than the screen.
    const width = await phone.evaluate<number>('document.documentElement.scrollWidth')
    expect(width).toBeLessThanOrEqual(390)
    const background = await phone.evaluate<string>('getComputedStyle(document.body).backgroundColor')
    expect(background).toBe('rgb(11, 17, 32)')
    await screenshot(phone, 'map-phone-dark.png')
    expect(phoneErrors).toEqual([])
    await phone.close()
  })
})
