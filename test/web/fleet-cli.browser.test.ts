// The whole stack from the command line, as `npm run demo:fleet -- --http` runs it: the bundled
// four-gateway site simulated by `beaconkit simulate --site` (SiteSimulator, real scanners and
// publishers) into `beaconkit fleet --embedded-broker --http --record`, read in Chromium; the
// standing tags show in the rooms they stand in, and the recording replays.
import { afterAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { FleetTimeline } from '../../src/web/timeline.js'
import { CLI, requireBuild, ROOT } from '../cli/run-cli.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'

const WAIT = { timeout: 60_000 }
const SITE = 'fixtures/site-demo.json'
const record = join(mkdtempSync(join(tmpdir(), 'beaconkit-fleet-cli-')), 'run.jsonl')

function start(args: string[]): { child: ChildProcess; stderr: () => string; closed: Promise<number | null> } {
  requireBuild()
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT })
  let stderr = ''
  child.stdout?.resume()
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return { child, stderr: () => stderr, closed }
}

async function printed(p: { stderr: () => string; closed: Promise<number | null> }, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const m = pattern.exec(p.stderr())
    if (m !== null) return m[1]
    if (Date.now() > deadline) throw new Error(`not printed: ${pattern}; stderr: ${p.stderr()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe.skipIf(CHROMIUM === undefined)(needsChromium('beaconkit fleet --http with the simulated demo site in Chromium'), () => {
  const children: ChildProcess[] = []
  let browser: Browser | undefined

  afterAll(async () => {
    await browser?.close()
    for (const c of children) if (c.exitCode === null) c.kill('SIGINT')
  })

  it('serves the live map of the simulated site and records the run', async () => {
    const fleet = start(['fleet', '--embedded-broker', '0', '--site', SITE, '--http', '127.0.0.1:0', '--record', record, '--json'])
    children.push(fleet.child)
    const brokerUrl = await printed(fleet, /listening on (mqtt:\/\/[^\s";]+);/)
    const mapUrl = await printed(fleet, /live map at ([^\s"]+)/)
    const gateways = start(['simulate', '--site', SITE, '--mqtt', brokerUrl])
    children.push(gateways.child)
    browser = await launch()
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } })
    const errors = consoleErrors(page)
    await page.goto(mapUrl)
    await expect.poll(() => page.locator('#plan g.gateway[data-state="online"]').count(), WAIT).toBe(4)
    // The kettle stands in a corner of the kitchen (fixtures/site-demo.json); every room the
    // page shows is one of the site's. (Exact rooms of every beacon: map.browser.test.ts.)
    await page.locator('#plan g.beacon[data-id="0117C5D00002"][data-room="Kitchen"]').waitFor(WAIT)
    const rooms = await page.locator('#plan g.beacon').evaluateAll((els) => els.map((e) => e.getAttribute('data-room')))
    for (const r of rooms) expect(['Kitchen', 'Living room', 'Office', 'Bedroom', '']).toContain(r)
    await page.locator('#plan g.beacon[data-id="0117C5D00002"] .dot').click()
    // Serial and battery come from the gateways' retained beacon states.
    await page.locator('#details [data-field="serial"]').waitFor(WAIT)
    await screenshot(page, 'fleet-cli.png')
    expect(errors).toEqual([])
    gateways.child.kill('SIGINT')
    await gateways.closed
    fleet.child.kill('SIGINT')
    expect(await fleet.closed).toBe(0)
    const timeline = await FleetTimeline.load(record)
    expect(timeline.malformed).toBe(0)
    const ids = timeline.snapshot(timeline.end).beacons.map((b) => b.id)
    expect(ids.length + timeline.snapshot(timeline.start + 5000).beacons.length).toBeGreaterThan(0)
    expect(timeline.site?.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Living room', 'Office', 'Bedroom'])
  })
})
