// The details panel credits each value to the gateway whose state supplied it (issue #35 item
// 20), in a real headless Chromium: the details are MqttBeaconDetails' (through an embedded
// broker), one gateway that hears the tag loud with its sensor values and one that hears it
// weakly with a fresher state of its iBeacon frame only. Screenshot: test-artifacts/details-sources.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { Browser } from 'playwright-core'
import { startBroker } from '../../src/mqtt/broker.js'
import { MqttBeaconDetails } from '../../src/web/beacon-details.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { VirtualClock } from '../../src/clock.js'
import { startMapServer } from '../../src/web/map-server.js'
import { waitFor } from '../integration/wait.js'
import { SITE } from './fleet-driver.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'

const WAIT = { timeout: 20_000 }
const closers: (() => Promise<unknown>)[] = []

describe.skipIf(CHROMIUM === undefined)(needsChromium('the details panel names whose claim each value is, in Chromium'), () => {
  let browser: Browser

  beforeAll(async () => {
    browser = await launch()
  })

  afterAll(async () => {
    await browser?.close()
    for (const c of closers.splice(0).reverse()) await c()
  })

  it('sensor values credited to the gateway that supplied them, not to the fresher weak one', async () => {
    const broker = await startBroker({ port: 0 })
    closers.push(() => broker.close())
    const details = new MqttBeaconDetails({ url: broker.url })
    closers.push(() => details.stop())
    await details.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'panel-test' })
    closers.push(() => client.endAsync())
    const near = {
      id: 'B1', serialNumber: 'B1', hardwareModelName: 'E7', batteryLevel: 90, temperature: 21.5, light: 120, rssi: -48, lastSeen: 1000,
    }
    const far = { id: 'B1', serialNumber: 'B1', rssi: -93, lastSeen: 1500 }
    await client.publishAsync('beaconkit/gateways/gw-kitchen/beacons/B1', JSON.stringify(near), { qos: 1, retain: true })
    await client.publishAsync('beaconkit/gateways/gw-hall/beacons/B1', JSON.stringify(far), { qos: 1, retain: true })
    await waitFor(() => details.stats.held === 2, 'both states')

    const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(2000) })
    const map = await startMapServer({ fleet: tracker, site: SITE, details, port: 0, flushIntervalMs: 50 })
    closers.push(() => map.close())
    const gateways = [{ gateway: 'gw-kitchen', rssi: -48, lastSeen: 2000 }, { gateway: 'gw-hall', rssi: -93, lastSeen: 2000 }]
    const b: FleetBeacon = { id: 'B1', time: 2000, present: true, room: 'Kitchen', gateways, firstSeen: 0, lastSeen: 2000 }
    tracker.emit('found', b)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = consoleErrors(page)
    await page.goto(map.pageUrl)
    await page.locator('#rooms li[data-beacon="B1"]').click()
    await page.locator('#details:not([hidden])').waitFor(WAIT)
    const shown = await page.locator('#details dd[data-field]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-field'), e.textContent]))
    const fields = Object.fromEntries(shown)
    expect(fields).toMatchObject({
      serial: 'B1', model: 'E7', battery: '90 %', temperature: '21.5 °C', light: '120 lx',
      'reported by': 'gateway gw-kitchen: model, battery, temperature, light; gateway gw-hall: serial (their claims)',
    })
    await screenshot(page, 'details-sources.png')
    expect(errors).toEqual([])
    await page.close()
  })
})
