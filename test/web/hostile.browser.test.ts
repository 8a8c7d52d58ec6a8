// Held, and kept: no markup from the network or a site file ever becomes markup on the page.
// Room names, gateway ids, beacon ids, gateway details and an Eddystone URL built to break out
// of attributes go through a real broker, tracker, details subscription and map server into
// headless Chromium: no dialog opens, no element is injected, each string shows as text, and a
// gateway's "verified" shows as the claims of the gateways that made it, disagreement included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import type { Browser, Page } from 'playwright-core'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { statusPayload } from '../../src/mqtt/payloads.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { MqttBeaconDetails } from '../../src/web/beacon-details.js'
import { FleetGateways } from '../../src/web/known-gateways.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'
import { waitFor } from '../integration/wait.js'

const ROOM = '<img src=x onerror=alert(1)>Hall'
const GATEWAY = 'gw"><svg onload=alert(2)>'
const BEACON = '"><img src=x onerror=alert(3)>'
const SERIAL = '<svg/onload=alert(4)>'
const URL_ = 'https://"><svg/onload=x>'
const MOTION = '"><script>alert(5)</script>'
const WAIT = { timeout: 20_000 }

const site = Site.fromJSON({
  gateways: { 'gw-hall': { x: 2, y: 2 }, 'gw-lab': { x: 8, y: 2 }, [GATEWAY]: { x: 5, y: 4 } },
  area: { minX: 0, minY: 0, maxX: 10, maxY: 5 },
  rooms: [
    { name: ROOM, polygon: [[0, 0], [5, 0], [5, 5], [0, 5]] },
    { name: 'Lab', polygon: [[5, 0], [10, 0], [10, 5], [5, 5]] },
  ],
})

describe.skipIf(CHROMIUM === undefined)(needsChromium('hostile names and details in Chromium'), () => {
  let broker: RunningBroker
  let tracker: FleetTracker
  let details: MqttBeaconDetails
  let map: MapServer
  let client: MqttClient
  let browser: Browser
  let page: Page
  let timer: NodeJS.Timeout | undefined
  const dialogs: string[] = []

  beforeAll(async () => {
    broker = await startBroker({ port: 0 })
    tracker = new FleetTracker({ url: broker.url, site })
    details = new MqttBeaconDetails({ url: broker.url, gateways: new FleetGateways(tracker, site) })
    await details.start()
    map = await startMapServer({ fleet: tracker, site, port: 0, flushIntervalMs: 200, details })
    await tracker.start()
    client = await mqtt.connectAsync(broker.url, { clientId: 'hostile-test' })
    const state = (gateway: string, verified: boolean): string => JSON.stringify({
      id: BEACON, serialNumber: SERIAL, hardwareModelName: URL_, movingState: MOTION, batteryLevel: 50, lastSeen: Date.now(),
      url: { url: URL_ }, secure: { encrypted: true, verified }, address: URL_.slice(0, 17),
    })
    for (const gw of ['gw-hall', 'gw-lab']) await client.publishAsync(`beaconkit/gateways/${gw}/status`, statusPayload('online', Date.now()), { qos: 1, retain: true })
    await client.publishAsync(`beaconkit/gateways/gw-hall/beacons/${BEACON}`, state('gw-hall', true), { qos: 1, retain: true })
    await client.publishAsync(`beaconkit/gateways/gw-lab/beacons/${BEACON}`, state('gw-lab', false), { qos: 1, retain: true })
    await waitFor(() => details.details(BEACON)?.claims?.notVerified.length === 1, 'both gateways\' states')
    const batch = (gw: string, rssi: number): string => JSON.stringify({ gateway: gw, time: Date.now(), readings: [{ id: BEACON, rssi, lastSeen: Date.now() }] })
    timer = setInterval(() => {
      client.publish('beaconkit/gateways/gw-hall/rssi', batch('gw-hall', -55))
      client.publish('beaconkit/gateways/gw-lab/rssi', batch('gw-lab', -80))
    }, 500)
    browser = await launch()
    page = await browser.newPage({ viewport: { width: 1100, height: 700 } })
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
  })

  afterAll(async () => {
    if (timer !== undefined) clearInterval(timer)
    await browser?.close()
    await client?.endAsync()
    await map?.close()
    await details?.stop()
    await tracker?.stop()
    await broker?.close()
  })

  it('shows every hostile string as text, injects nothing, and names who claims "verified"', async () => {
    const errors = consoleErrors(page)
    await page.goto(map.pageUrl)
    await expect.poll(() => page.locator('#rooms li[data-beacon]').count(), WAIT).toBe(1)
    expect(await page.locator('#rooms li[data-beacon]').getAttribute('data-beacon')).toBe(BEACON)
    await page.locator('#rooms li[data-beacon]').click()
    await page.locator('#details:not([hidden])').waitFor(WAIT)
    await expect.poll(() => page.locator('#details [data-field="verified"]').textContent(), WAIT)
      .toBe('gateways disagree: private broadcast verified by gateway gw-hall; not verified by gateway gw-lab (their claims, not checked here)')
    expect(await page.locator('#details [data-field="serial"]').textContent()).toBe(SERIAL)
    expect(await page.locator('#details [data-field="model"]').textContent()).toBe(URL_)
    expect(await page.locator('#details [data-field="motion"]').textContent()).toBe(MOTION)
    const text = await page.evaluate<string>('document.documentElement.textContent')
    for (const s of [ROOM, GATEWAY, BEACON, SERIAL, URL_]) expect(text).toContain(s)
    // Nothing the strings hold became an element or a handler; the page has no <img> of its own.
    const injected = await page.evaluate<number>("document.querySelectorAll('img, iframe, object, embed, script:not([src]), [onload], [onerror]').length")
    expect(injected).toBe(0)
    expect(dialogs).toEqual([])
    await screenshot(page, 'map-hostile.png')
    expect(errors).toEqual([])
  })
})
