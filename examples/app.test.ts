/**
 * How to test your own beacon app: replay a recording in virtual time under vitest. Time
 * follows the recording's timestamps, so a 50-second scene runs in milliseconds and every
 * event lands at an exact, assertable time — no sleeps, no flaky timing.
 *
 * In your project, `import { ... } from 'beaconkit'` (the relative import is for this repository).
 * Record a real site with `beaconkit record site.jsonl` and replay it with
 * `new ReplaySource('test/fixtures/site.jsonl', { virtual: true })`; here the recording is
 * written inline with the SDK's encoders so the scene is visible in the test.
 */
import { describe, it, expect } from 'vitest'
import { BeaconScanner, E781_MODE, ReplaySource, encodeE781, formatAdvertisementLine, formatRecordingHeader } from '../src/index.js'
import type { Beacon } from '../src/index.js'

// ---- The app under test: a cold-chain monitor. -------------------------------------------

interface Alert {
  kind: 'too_warm' | 'lost'
  serial: string
  time: number
  temperature?: number
}

/** Alerts when a beacon reports more than `limitC`, and when one disappears. */
function watchColdChain(scanner: BeaconScanner, limitC: number, alert: (a: Alert) => void): void {
  scanner.on('changed', (beacon, changes) => {
    const t = changes.temperature?.new
    if (typeof t === 'number' && t > limitC && beacon.serialNumber !== undefined) {
      alert({ kind: 'too_warm', serial: beacon.serialNumber, time: scanner.clock.now(), temperature: t })
    }
  })
  scanner.on('gone', (beacon: Beacon) => {
    if (beacon.serialNumber !== undefined) alert({ kind: 'lost', serial: beacon.serialNumber, time: scanner.clock.now() })
  })
}

// ---- The recording: one fridge beacon, 4 °C, then 9 °C from 20 s, out of range after 40 s. ----

const T0 = Date.UTC(2026, 0, 1)
const SERIAL = '0117C5000042'

function recording(): string[] {
  const lines = [formatRecordingHeader({ site: 'example cold room' })]
  for (let s = 0; s <= 40; s++) {
    const data = encodeE781({
      mode: E781_MODE.full,
      hardwareModelName: 'C0',
      firmwareVersion: '4.1',
      serialNumber: SERIAL,
      major: 1,
      minor: 42,
      batteryLevel: 90,
      temperature: s < 20 ? 4 : 9,
      measuredPower: -59,
    })
    lines.push(formatAdvertisementLine({ address: 'd4:00:00:00:00:42', rssi: -62, timestamp: T0 + s * 1000, serviceData: [{ uuid: '81e7', data }] }))
  }
  return lines
}

// ---- The test. -----------------------------------------------------------------------------

describe('cold-chain monitor (example: testing an app with a replayed recording)', () => {
  it('alerts when the fridge warms up and when its beacon is lost, at the exact recorded times', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource(recording(), { virtual: true }) })
    const alerts: Alert[] = []
    watchColdChain(scanner, 8, (a) => alerts.push(a))

    await scanner.start()
    await scanner.drain() // the recording ended and every beacon has gone (virtual time runs on)
    await scanner.stop()

    expect(alerts).toEqual([
      { kind: 'too_warm', serial: SERIAL, time: T0 + 20_000, temperature: 9 },
      // Gone 8 s (the default goneTimeoutMs) after the last advertisement.
      { kind: 'lost', serial: SERIAL, time: T0 + 40_000 + 8_000 },
    ])
  })
})
