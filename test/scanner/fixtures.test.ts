/**
 * Replays the committed recordings (fixtures/, made by scripts/make-fixtures.mjs) in virtual
 * time and checks the found/gone/updated timeline to the millisecond. Times are ms after the
 * recording's `startTime` (header).
 */
import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import type { ScannerOptions } from '../../src/scanner/scanner.js'
import type { Beacon } from '../../src/reading.js'
import { ReplaySource } from '../../src/sources/replay.js'

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url))
const TEST_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'

interface Timeline {
  events: string[]
  updated: [number, number][]
  end: number
}

async function timeline(name: string, options: Omit<ScannerOptions, 'source'> = {}): Promise<Timeline> {
  const source = new ReplaySource(fixture(name), { virtual: true })
  const scanner = new BeaconScanner({ source, ...options })
  const events: string[] = []
  const updated: [number, number][] = []
  let t0 = 0
  scanner.on('found', (b) => events.push(`${scanner.clock.now() - t0} found ${b.id}`))
  scanner.on('gone', (b) => events.push(`${scanner.clock.now() - t0} gone ${b.id}`))
  scanner.on('updated', (bs) => updated.push([scanner.clock.now() - t0, bs.length]))
  await scanner.start()
  t0 = Number(source.header?.startTime)
  await scanner.drain()
  const end = scanner.clock.now() - t0
  await scanner.stop()
  expect(source.stats.malformed).toBe(0)
  return { events, updated, end }
}

/** Last `t` per address in a recording, relative to its start: gone must come 8000 ms later. */
function lastHeard(name: string): Map<string, number> {
  const [head, ...lines] = readFileSync(fixture(name), 'utf8').trimEnd().split('\n')
  const start = Number((JSON.parse(head) as { startTime: number }).startTime)
  const last = new Map<string, number>()
  for (const line of lines) {
    const { t, address } = JSON.parse(line) as { t: number; address: string }
    last.set(address, t - start)
  }
  return last
}

describe('fixture timelines (virtual time, exact to the ms)', () => {
  it('arrivals.jsonl', async () => {
    const { events, updated, end } = await timeline('arrivals.jsonl')
    expect(events).toEqual(ARRIVALS)
    const last = lastHeard('arrivals.jsonl')
    expect(events.filter((e) => e.includes(' gone ')).map((e) => Number(e.split(' ')[0]))).toEqual(
      ['d0:00:00:00:00:01', 'd0:00:00:00:00:02', 'd0:00:00:00:00:03'].map((a) => (last.get(a) ?? 0) + 8000),
    )
    // One tick per second from the first advertisement, each listing the beacons then in range.
    const first = updated[0][0]
    expect(updated.every(([t], i) => t === first + 1000 * i)).toBe(true)
    expect(end).toBe(Number(events[events.length - 1].split(' ')[0]))
  })

  it('walk-away.jsonl', async () => {
    const { events } = await timeline('walk-away.jsonl')
    expect(events).toEqual(WALK_AWAY)
    const last = lastHeard('walk-away.jsonl')
    expect(events[2]).toBe(`${(last.get('e0:00:00:00:00:02') ?? 0) + 8000} gone 0117C5E00002`)
  })

  it('demo.jsonl with the test key: encrypted device verified, the unlisted-key device shown unverified', async () => {
    const { events } = await timeline('demo.jsonl', { keys: [TEST_KEY] })
    expect(events).toEqual(DEMO)
  })

  it('demo.jsonl: the decrypted identity wins over the rotating iBeacon values of the same device', async () => {
    const source = new ReplaySource(fixture('demo.jsonl'), { virtual: true })
    const scanner = new BeaconScanner({ source, keys: [TEST_KEY] })
    const seen: Beacon[] = []
    scanner.on('updated', (bs) => seen.push(...bs.filter((b) => b.id === '0117C5000005')))
    await scanner.start()
    await scanner.drain()
    await scanner.stop()
    // 90 s of ticks; the iBeacon major/minor rotated every 15 s meanwhile.
    expect(seen.length).toBeGreaterThan(80)
    for (const b of seen) {
      expect(b).toMatchObject({ major: 2, minor: 5, secure: { encrypted: true, keyId: '0001', verified: true } })
      expect(b.beaconID).toBe('23A01AF0-232A-4518-9C0E-323FB773F5EF|2|5')
    }
  })

  it('demo.jsonl without keys, hiding unverifiable devices: neither encrypted device is shown', async () => {
    const { events } = await timeline('demo.jsonl', { hideUnverifiedSecure: true })
    expect(events.some((e) => e.endsWith('c0:00:00:00:00:06'))).toBe(false)
    expect(events.some((e) => e.includes('0117C5000005'))).toBe(false)
  })
})

// iBeacon-only devices are announced identitySettleMs (100 ms) after their first packet.
const ARRIVALS = [
  '112 found 23A01AF0-232A-4518-9C0E-323FB773F5EF|3|1',
  '5162 found 23A01AF0-232A-4518-9C0E-323FB773F5EF|3|2',
  '13077 found 23A01AF0-232A-4518-9C0E-323FB773F5EF|3|3',
  '17051 gone 23A01AF0-232A-4518-9C0E-323FB773F5EF|3|1',
  '27133 gone 23A01AF0-232A-4518-9C0E-323FB773F5EF|3|2',
  '37061 gone 23A01AF0-232A-4518-9C0E-323FB773F5EF|3|3',
]

// Devices with a vendor scan response are announced by serial as soon as it arrives.
const WALK_AWAY = ['257 found 0117C5E00001', '266 found 0117C5E00002', '32505 gone 0117C5E00002', '47612 gone 0117C5E00001']

const DEMO = [
  '309 found 0117C5000002',
  // Key id beef is not configured: shown at once (after the settle window), by address.
  '323 found c0:00:00:00:00:06',
  '332 found 0117C5000003',
  '342 found 0117C5000007',
  '619 found 0117C5000004',
  // Key id 0001 is configured: announced only when the second verified frame confirms the serial.
  '1154 found 0117C5000005',
  '1556 found E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|100|1',
  // The late arrival.
  '40402 found 0117C5000008',
  // The device that walked away and stopped at 50 s.
  '57873 gone 0117C5000007',
  '97073 gone 0117C5000004',
  '97634 gone 0117C5000005',
  '97656 gone c0:00:00:00:00:06',
  '97690 gone 0117C5000003',
  '97743 gone 0117C5000002',
  '97926 gone 0117C5000008',
  '97926 gone E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|100|1',
]
