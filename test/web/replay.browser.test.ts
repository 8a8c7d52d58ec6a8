// A fleet run recorded with FleetRecorder (the four-gateway site in virtual time: a beacon
// leaves, a gateway dies), read back by FleetTimeline, and reviewed in Chromium through the
// built `beaconkit replay <recording> --virtual --http`, scrubbing with the time slider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { appendFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startBroker } from '../../src/mqtt/broker.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { FleetRecorder } from '../../src/fleet/fleet-recorder.js'
import { FleetTimeline } from '../../src/web/timeline.js'
import { VirtualClock } from '../../src/clock.js'
import { CLI, requireBuild, ROOT, runCli } from '../cli/run-cli.js'
import { CHROMIUM, consoleErrors, launch, needsChromium, screenshot } from './browser.js'
import { BEACONS, SITE, SiteDriver } from './fleet-driver.js'
import { waitFor } from '../integration/wait.js'

const T0 = Date.UTC(2026, 10, 24, 8, 0, 0)
const WAIT = { timeout: 30_000 }
const LEAVER = '0117C5400002'
const file = join(mkdtempSync(join(tmpdir(), 'beaconkit-fleet-rec-')), 'day.jsonl')

/** Records 150 s: everyone in, a beacon leaves at 30 s, gw-lab dies at 90 s. */
async function record(): Promise<void> {
  const broker = await startBroker({ port: 0 })
  const clock = new VirtualClock(T0)
  const tracker = new FleetTracker({ url: broker.url, site: SITE, clock, goneTimeoutMs: 20_000 })
  const recorder = await FleetRecorder.create(file, { site: SITE })
  recorder.attach(tracker)
  await tracker.start()
  const driver = new SiteDriver(broker.url, tracker, clock)
  let labOffline = false
  tracker.on('gateway', (g) => {
    if (g.gateway === 'gw-lab' && g.state === 'offline') labOffline = true
  })
  try {
    await driver.start()
    await driver.run(30)
    driver.left.add(LEAVER)
    await driver.run(60)
    driver.kill('gw-lab')
    await waitFor(() => labOffline, 'the last will of gw-lab at the tracker', 20_000)
    await driver.run(60)
  } finally {
    await recorder.close()
    await driver.close()
    await tracker.stop()
    await broker.close()
  }
}

describe('a recorded fleet run', () => {
  beforeAll(async () => {
    await record()
    // A line a broken disk or editor might leave: skipped and counted.
    appendFileSync(file, '{"t": "soon", "event": "beacons"}\nnot json\n')
  }, 60_000)

  it('reads back as the view at any moment: rooms, the beacon that left, the gateway that died', async () => {
    const timeline = await FleetTimeline.load(file)
    expect(timeline.malformed).toBe(2)
    expect(timeline.end - timeline.start).toBeGreaterThanOrEqual(140_000)
    const early = timeline.snapshot(T0 + 20_000)
    expect(Object.fromEntries(early.beacons.map((b) => [b.id, b.room]))).toEqual(BEACONS)
    expect(early.gateways.find((g) => g.id === 'gw-lab')?.state).toBe('online')
    const late = timeline.snapshot(timeline.end)
    expect(late.beacons.map((b) => b.id)).not.toContain(LEAVER)
    expect(late.gateways.find((g) => g.id === 'gw-lab')?.state).toBe('offline')
    expect(late.log.some((e) => e.event === 'gone' && e.id === LEAVER)).toBe(true)
    // Back again: scrubbing is not one-way.
    expect(timeline.snapshot(T0 + 20_000).beacons).toHaveLength(Object.keys(BEACONS).length)
  })

  it('beaconkit replay <recording> without --http says to add it (exit 2)', async () => {
    const r = await runCli(['replay', file, '--virtual'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--http')
  })

  it('refuses a file that is not a fleet recording', async () => {
    await expect(FleetTimeline.load(join(ROOT, 'fixtures/demo.jsonl'))).rejects.toMatchObject({ code: 'not_a_recording' })
  })

  describe.skipIf(CHROMIUM === undefined)(needsChromium('scrubbing it in Chromium'), () => {
    let child: ChildProcess | undefined
    let browser: Browser
    let page: Page

    afterAll(async () => {
      await browser?.close()
      child?.kill('SIGINT')
    })

    async function scrubTo(t: number): Promise<void> {
      await page.locator('#replay-scrub').evaluate((el, value) => {
        const input = el as unknown as { value: string; dispatchEvent(e: unknown): boolean }
        input.value = String(value)
        input.dispatchEvent(new (globalThis as unknown as { Event: new (type: string) => unknown }).Event('input'))
      }, t)
    }

    it('beaconkit replay <recording> --virtual --http serves it with a time slider', async () => {
      requireBuild()
      child = spawn(process.execPath, [CLI, 'replay', file, '--virtual', '--http', '127.0.0.1:0'], { cwd: ROOT })
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = ''
        child?.stderr?.setEncoding('utf8').on('data', (d: string) => {
          stderr += d
          const m = /live map at ([^\s"]+)/.exec(stderr)
          if (m !== null) resolve(m[1])
        })
        child?.on('close', (code) => reject(new Error(`replay ended (${code}): ${stderr}`)))
      })
      browser = await launch()
      page = await browser.newPage({ viewport: { width: 1100, height: 700 } })
      const errors = consoleErrors(page)
      await page.goto(url)
      await page.locator('#replay:not([hidden])').waitFor(WAIT)
      await scrubTo(T0 + 20_000)
      await expect.poll(() => page.locator('#plan g.beacon').count(), WAIT).toBe(Object.keys(BEACONS).length)
      for (const [id, room] of Object.entries(BEACONS)) await page.locator(`#plan g.beacon[data-id="${id}"][data-room="${room}"]`).waitFor(WAIT)
      await scrubTo(T0 + 150_000)
      await page.locator(`#plan g.beacon[data-id="${LEAVER}"]`).waitFor({ state: 'detached', ...WAIT })
      await page.locator('#plan g.gateway[data-id="gw-lab"][data-state="offline"]').waitFor(WAIT)
      await screenshot(page, 'replay-slider.png')
      // And back.
      await scrubTo(T0 + 10_000)
      await page.locator(`#plan g.beacon[data-id="${LEAVER}"]`).waitFor(WAIT)
      expect(errors).toEqual([])
    })
  })
})
