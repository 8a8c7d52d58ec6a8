// `beaconkit simulate --http`: the built command as a real child process serving the range
// table, read in a real headless Chromium; and off loopback, the page works with the printed
// address (token in the fragment) and says what is missing without it.
import { afterAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { networkInterfaces } from 'node:os'
import type { Browser } from 'playwright-core'
import { SAMPLE_BROADCAST_KEY } from '../../src/sources/scenario.js'
import { CLI, requireBuild, ROOT } from '../cli/run-cli.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'

const WAIT = { timeout: 30_000 }
const children: ChildProcess[] = []

/** Starts `beaconkit simulate … --http host:0`; resolves with the printed address. */
function simulate(host: string): Promise<string> {
  requireBuild()
  const child = spawn(process.execPath, [CLI, 'simulate', '--beacons', '8', '--duration', '120', '--json', '--key', SAMPLE_BROADCAST_KEY, '--http', `${host}:0`], { cwd: ROOT })
  children.push(child)
  child.stdout.resume()
  return new Promise((resolve, reject) => {
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d
      const m = /live map at ([^\s"]+)/.exec(stderr)
      if (m !== null) resolve(m[1])
    })
    child.on('close', (code) => reject(new Error(`simulate ended (${code}) before serving: ${stderr}`)))
  })
}

function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  return undefined
}

describe.skipIf(CHROMIUM === undefined)(needsChromium('beaconkit simulate --http in Chromium'), () => {
  let browser: Browser

  afterAll(async () => {
    await browser?.close()
    for (const c of children) c.kill('SIGINT')
  })

  it('shows the range table with sparklines, verified marks and the found log, without console errors', async () => {
    const url = await simulate('127.0.0.1')
    expect(url).not.toContain('#token=')
    browser = await launch()
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } })
    const errors = consoleErrors(page)
    await page.goto(url)
    await expect.poll(() => page.locator('#range tbody tr').count(), WAIT).toBeGreaterThanOrEqual(6)
    await page.locator('#range .verified').first().waitFor(WAIT)
    await page.locator('#range .spark polyline').first().waitFor(WAIT)
    await page.locator('#log li[data-event="found"]').first().waitFor(WAIT)
    await page.locator('#range tbody tr').first().click()
    await page.locator('#details:not([hidden]) [data-field="RSSI"]').waitFor(WAIT)
    await screenshot(page, 'scanner-table.png')
    expect(errors).toEqual([])
    await page.close()
  })

  it('off loopback: the printed address (token in the fragment) works, the bare address does not', async () => {
    const outside = outsideAddress()
    // Without a non-loopback address the token check is covered by map-server.test.ts (0.0.0.0).
    if (outside === undefined) return
    const url = await simulate(outside)
    expect(url).toMatch(/#token=[A-Za-z0-9_-]{32}/)
    browser ??= await launch()
    const page = await browser.newPage()
    await page.goto(url)
    await page.locator('#connection[data-state="live"]').waitFor(WAIT)
    await expect.poll(() => page.locator('#range tbody tr').count(), WAIT).toBeGreaterThan(0)
    const bare = await browser.newPage()
    await bare.goto(url.replace(/#.*/, ''))
    await bare.locator('#notice:not([hidden])').waitFor(WAIT)
    expect(await bare.locator('#notice').textContent()).toContain('access token')
    expect(await bare.locator('#range tbody tr').count()).toBe(0)
    await screenshot(bare, 'scanner-no-token.png')
  })
})
