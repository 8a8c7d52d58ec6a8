// The editor's tests (#40) run the real parts: a broker, a FleetTracker, the map server in edit
// mode over a site file in a fresh folder, gateways that publish their status and RSSI batches
// through mqtt.js, and Chromium. Helpers here start that and work the page as a person does.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { expect } from 'vitest'
import { startBroker } from '../../src/mqtt/broker.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { statusPayload } from '../../src/mqtt/payloads.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { SiteStore } from '../../src/web/site-store.js'
import { CLI, requireBuild, ROOT } from '../cli/run-cli.js'
import { screenshot } from './browser.js'

export const WAIT = { timeout: 20_000 }
export const TOKEN = 'editor-test-token-0123456789'

/** What each gateway hears of each tag: the kettle in the kitchen, the cat in the living room. */
export const HEARD: Record<string, Record<string, number>> = {
  'TAG-KETTLE': { 'kitchen-pi': -50, 'living-pi': -82, 'office-pi': -84 },
  'TAG-CAT': { 'living-pi': -50, 'kitchen-pi': -82 },
  'TAG-LAPTOP': { 'office-pi': -52, 'kitchen-pi': -84 },
}
export const GATEWAYS = ['kitchen-pi', 'living-pi', 'office-pi']

/** The running stack: the map's address, the site file, and how to stop it all. */
export interface EditorStack {
  map: Pick<MapServer, 'url' | 'pageUrl'>
  /** The site file's path. */
  file: string
  close(): Promise<void>
}

/** Gateways publishing their status (retained) and an RSSI batch twice a second to `url`. */
async function startGateways(url: string): Promise<() => Promise<void>> {
  const client: MqttClient = await mqtt.connectAsync(url, { clientId: 'editor-test-gateways' })
  for (const g of GATEWAYS)
    await client.publishAsync(`beaconkit/gateways/${g}/status`, statusPayload('online', Date.now()), {
      qos: 1,
      retain: true,
    })
  const send = (): void => {
    for (const g of GATEWAYS) {
      const readings = Object.entries(HEARD)
        .filter(([, at]) => at[g] !== undefined)
        .map(([id, at]) => ({ id, rssi: at[g], lastSeen: Date.now(), count: 5 }))
      client.publish(`beaconkit/gateways/${g}/rssi`, JSON.stringify({ gateway: g, time: Date.now(), readings }))
    }
  }
  send()
  const timer = setInterval(send, 500)
  return async () => {
    clearInterval(timer)
    await client.endAsync()
  }
}

/**
 * `beaconkit fleet --embedded-broker 0 --http 127.0.0.1:0 --http-token … --edit --site <dir>/site.json`
 * as a real process (the composition a user runs: saves reach the running fleet), with the
 * gateways publishing to its broker. The site file does not exist yet: a new user's empty site.
 */
export async function startFleetCli(): Promise<EditorStack> {
  requireBuild()
  const dir = mkdtempSync(join(tmpdir(), 'beaconkit-editor-cli-'))
  const file = join(dir, 'site.json')
  const args = ['fleet', '--embedded-broker', '0', '--http', '127.0.0.1:0', '--http-token', TOKEN, '--edit']
  const child = spawn(process.execPath, [CLI, ...args, '--site', file, '--json'], { cwd: dir })
  child.stdout?.resume()
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()))
  const deadline = Date.now() + 30_000
  let url: string
  let broker: string
  for (;;) {
    const m = /live map at (http:\/\/[^\s"]+)/.exec(stderr)
    const b = /listening on (mqtt:\/\/[^\s";]+);/.exec(stderr)
    if (m !== null && b !== null) {
      url = m[1]
      broker = b[1]
      break
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the fleet did not start: ${stderr}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  const stopGateways = await startGateways(broker)
  const base = new URL(url)
  base.hash = ''
  return {
    map: { url: base.href, pageUrl: `${base.href}#token=${TOKEN}` },
    file,
    async close() {
      await stopGateways()
      child.kill('SIGINT')
      await closed
    },
  }
}

/**
 * Starts broker, tracker, map server (edit mode, token) and three gateways publishing twice a
 * second; `initial` is the site file to begin with (none: absent, a new user's empty site).
 */
export async function startEditorStack(initial?: object): Promise<EditorStack> {
  const dir = mkdtempSync(join(tmpdir(), 'beaconkit-editor-'))
  const file = join(dir, 'site.json')
  if (initial !== undefined) writeFileSync(file, JSON.stringify(initial, null, 2))
  const broker = await startBroker({ port: 0 })
  const tracker = new FleetTracker({ url: broker.url })
  const store = await SiteStore.open(file)
  const map = await startMapServer({
    fleet: tracker,
    port: 0,
    token: TOKEN,
    flushIntervalMs: 200,
    edit: { store },
  })
  await tracker.start()
  const stopGateways = await startGateways(broker.url)
  return {
    map,
    file,
    async close() {
      await stopGateways()
      await map.close()
      await tracker.stop()
      await broker.close()
    },
  }
}

/** The site file as saved. */
export function siteOnDisk(stack: EditorStack): Record<string, unknown> & {
  rooms: { name: string; polygon: [number, number][] }[]
  gateways: Record<string, { x: number; y: number }>
  beacons?: { id?: string; name?: string; announce?: boolean }[]
  area?: { maxX: number; maxY: number }
  image?: string
  version: number
} {
  return JSON.parse(readFileSync(stack.file, 'utf8'))
}

/** A page of the map with the editor open. */
export async function openEditor(
  browser: Browser,
  stack: EditorStack,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, ...options })
  const page = await context.newPage()
  await page.goto(stack.map.pageUrl)
  await page.locator('#edit-toggle').waitFor(WAIT)
  await page.locator('#edit-toggle').click()
  await page.locator('#edit-panel').waitFor(WAIT)
  return page
}

/** The version the page's editor holds (its footer: "site.json · version N"). */
export async function versionOf(page: Page): Promise<number> {
  const text = (await page.locator('.edit-file').textContent()) ?? ''
  return Number(/version (\d+)/.exec(text)?.[1] ?? Number.NaN)
}

/** Runs `act` and waits until the page has saved once more. */
export async function saves(page: Page, act: () => Promise<void>): Promise<void> {
  const before = await versionOf(page)
  await act()
  await expect.poll(() => versionOf(page), WAIT).toBe(before + 1)
  await expect.poll(() => page.locator('#edit-banner').textContent(), WAIT).toBe(`saved: version ${before + 1}`)
}

/** Where a point of the plan (metres) is on the screen. */
export async function at(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  // A string, run in the page: the test's types know no DOM.
  return page.evaluate<{ x: number; y: number }>(
    `(() => { const m = document.getElementById('plan').getScreenCTM();
      const p = new DOMPoint(${x}, ${y}).matrixTransform(m); return { x: p.x, y: p.y } })()`,
  )
}

/** Opens a part of the editor (Plan, Rooms, Gateways, Beacons). */
export async function tab(page: Page, id: 'plan' | 'rooms' | 'gateways' | 'beacons'): Promise<void> {
  await page.locator(`#edit-panel [data-tab="${id}"]`).click()
}

/** Draws a room by clicking its corners (metres), closes it with Enter and names it. */
export async function drawRoom(page: Page, name: string, corners: [number, number][]): Promise<void> {
  await tab(page, 'rooms')
  await page.locator('#room-draw').click()
  for (const [x, y] of corners) {
    const p = await at(page, x, y)
    await page.mouse.click(p.x, p.y)
  }
  await page.keyboard.press('Enter')
  await page.locator('#room-name').fill(name)
  await saves(page, () => page.keyboard.press('Enter'))
}

/** Drags a gateway from the list onto the plan at (x, y) metres; `carrying` runs before it is let go. */
export async function placeGateway(
  page: Page,
  id: string,
  x: number,
  y: number,
  carrying?: () => Promise<void>,
): Promise<void> {
  await tab(page, 'gateways')
  const handle = page.locator(`#edit-gateways li[data-gateway="${id}"] .edit-carry`)
  // The list is built again when a gateway's state changes: the box of the one shown now.
  await handle.waitFor(WAIT)
  const box = await handle.boundingBox()
  if (box === null) throw new Error(`gateway ${id} is not listed`)
  const to = await at(page, x, y)
  await saves(page, async () => {
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(to.x - 40, to.y - 40, { steps: 5 })
    await page.mouse.move(to.x, to.y, { steps: 5 })
    await carrying?.()
    await page.mouse.up()
  })
}

/** Names a beacon from the Beacons list (Enter confirms). */
export async function nameBeacon(page: Page, id: string, name: string): Promise<void> {
  await tab(page, 'beacons')
  await page.locator(`#edit-beacons li[data-beacon="${id}"] .edit-item`).click()
  await page.locator('#beacon-name').fill(name)
  await saves(page, () => page.keyboard.press('Enter'))
}

/** A picture of the page: for docs/web-map.md with EDITOR_SCREENSHOTS=1 (npm run docs:screenshots), else test-artifacts/. */
export async function picture(page: Page, name: string): Promise<void> {
  if (process.env.EDITOR_SCREENSHOTS !== '1') return void (await screenshot(page, name))
  const dir = join(ROOT, 'docs', 'images')
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, name) })
}
