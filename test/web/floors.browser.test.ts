// The map switches floors (#39): a two-floor site through a real broker, tracker (room method),
// map server and headless Chromium. The page shows the floor where most tags are, only its rooms
// and gateways; a tag upstairs is listed as on that floor (by its name, as text, however hostile);
// clicking the switch shows the upper floor's rooms and that tag drawn, and the floor below's not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import type { Browser, Page } from 'playwright-core'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { RoomLocator } from '../../src/positioning/room-locator.js'
import { statusPayload } from '../../src/mqtt/payloads.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'

const UPSTAIRS = '<img src=x onerror=alert(1)>First'
const WAIT = { timeout: 20_000 }
const box = (x: number, y: number): [number, number][] => [[x, y], [x + 5, y], [x + 5, y + 4], [x, y + 4]]

const site = Site.fromJSON({
  floors: [{ id: 'ground', name: 'Ground floor', z: 0 }, { id: 'first', name: UPSTAIRS, z: 3 }],
  gateways: {
    'kitchen-pi': { x: 2.5, y: 2, floor: 'ground' },
    'living-pi': { x: 7.5, y: 2, floor: 'ground' },
    'bedroom-pi': { x: 2.5, y: 2, floor: 'first' },
    'office-pi': { x: 7.5, y: 2, floor: 'first' },
  },
  area: { minX: 0, minY: 0, maxX: 10, maxY: 4 },
  rooms: [
    { name: 'Kitchen', floor: 'ground', polygon: box(0, 0) },
    { name: 'Living', floor: 'ground', polygon: box(5, 0) },
    { name: 'Bedroom', floor: 'first', polygon: box(0, 0) },
    { name: 'Office', floor: 'first', polygon: box(5, 0) },
  ],
})

/** Beacon → what each gateway hears of it: strong in its room, weak through a wall or the slab. */
const HEARD: Record<string, Record<string, number>> = {
  'TAG-KITCHEN': { 'kitchen-pi': -55, 'living-pi': -75, 'bedroom-pi': -80 },
  'TAG-LIVING': { 'living-pi': -55, 'kitchen-pi': -75, 'office-pi': -80 },
  'TAG-BEDROOM': { 'bedroom-pi': -55, 'office-pi': -75, 'kitchen-pi': -80 },
}

describe.skipIf(CHROMIUM === undefined)(needsChromium('the map switches floors in Chromium'), () => {
  let broker: RunningBroker
  let tracker: FleetTracker
  let map: MapServer
  let client: MqttClient
  let browser: Browser
  let page: Page
  let timer: NodeJS.Timeout | undefined
  const dialogs: string[] = []

  beforeAll(async () => {
    broker = await startBroker({ port: 0 })
    tracker = new FleetTracker({ url: broker.url, site, rooms: new RoomLocator(site) })
    map = await startMapServer({ fleet: tracker, site, port: 0, flushIntervalMs: 200 })
    await tracker.start()
    client = await mqtt.connectAsync(broker.url, { clientId: 'floors-map-test' })
    for (const a of site.anchorList())
      await client.publishAsync(`beaconkit/gateways/${a.id}/status`, statusPayload('online', Date.now()), { qos: 1, retain: true })
    const send = (): void => {
      for (const a of site.anchorList()) {
        const readings = Object.entries(HEARD)
          .filter(([, at]) => at[a.id] !== undefined)
          .map(([id, at]) => ({ id, rssi: at[a.id], lastSeen: Date.now(), count: 5 }))
        client.publish(`beaconkit/gateways/${a.id}/rssi`, JSON.stringify({ gateway: a.id, time: Date.now(), readings }))
      }
    }
    send()
    timer = setInterval(send, 500)
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
    await tracker?.stop()
    await broker?.close()
  })

  it('shows one floor at a time, lists a tag on the other floor, and switches to it', async () => {
    const errors = consoleErrors(page)
    await page.goto(map.pageUrl)
    const drawnRooms = (): Promise<string[]> =>
      page.locator('#plan polygon.room').evaluateAll((els) => els.map((e) => e.getAttribute('data-room') ?? ''))
    const drawnGateways = (): Promise<string[]> =>
      page.locator('#plan g.gateway').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? '').sort())
    const drawnBeacons = (): Promise<string[]> =>
      page.locator('#plan g.beacon').evaluateAll((els) => els.map((e) => e.getAttribute('data-id') ?? '').sort())
    const pressed = (): Promise<string | null> => page.locator('#floors button[aria-pressed="true"]').textContent()

    // Two tags downstairs, one up: the ground floor (also the first listed) is shown.
    await expect.poll(drawnBeacons, WAIT).toEqual(['TAG-KITCHEN', 'TAG-LIVING'])
    expect(await pressed()).toBe('Ground floor')
    expect(await drawnRooms()).toEqual(['Kitchen', 'Living'])
    expect(await drawnGateways()).toEqual(['kitchen-pi', 'living-pi'])
    const elsewhere = page.locator('#elsewhere button[data-floor="first"]')
    await expect.poll(() => elsewhere.textContent(), WAIT).toBe(`on ${UPSTAIRS}: TAG-BEDROOM`)
    // The hostile floor name is text on both the switch and the list, never markup.
    expect(await page.locator('#floors button[data-floor="first"]').textContent()).toBe(UPSTAIRS)
    await screenshot(page, 'map-floors-ground.png')
    // What the page was sent: each beacon's floor, as the tracker decided it.
    const sent = await page.evaluate<{ id: string; floor?: string }[]>(
      "fetch('api/snapshot').then((r) => r.json()).then((s) => s.beacons.map((b) => ({ id: b.id, floor: b.floor })))",
    )
    expect(Object.fromEntries(sent.map((b) => [b.id, b.floor]))).toEqual({
      'TAG-KITCHEN': 'ground',
      'TAG-LIVING': 'ground',
      'TAG-BEDROOM': 'first',
    })

    // The switch is reachable by keyboard: focus the upper floor's button and press Enter.
    await page.locator('#floors button[data-floor="first"]').focus()
    await page.keyboard.press('Enter')
    await expect.poll(pressed, WAIT).toBe(UPSTAIRS)
    expect(await drawnRooms()).toEqual(['Bedroom', 'Office'])
    expect(await drawnGateways()).toEqual(['bedroom-pi', 'office-pi'])
    await expect.poll(drawnBeacons, WAIT).toEqual(['TAG-BEDROOM'])
    await expect.poll(() => page.locator('#elsewhere button[data-floor="ground"]').textContent(), WAIT)
      .toBe('on Ground floor: TAG-KITCHEN, TAG-LIVING')

    // The list switches back too.
    await page.locator('#elsewhere button[data-floor="ground"]').click()
    await expect.poll(pressed, WAIT).toBe('Ground floor')
    await screenshot(page, 'map-floors-first.png')
    const injected = await page.evaluate<number>("document.querySelectorAll('img, iframe, object, embed, [onerror]').length")
    expect(injected).toBe(0)
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
  })
})
