// The mobile case end to end: the emulator serves a deployment map with placed beacons over
// real HTTP, the account client fetches it, and a scanner fed by the simulator (each placed
// beacon sending from the distance it has to a known spot, default physics plus noise) locates
// itself near that spot through a ScannerLocator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountClient } from '../../src/cloud/account-client.js'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { Site } from '../../src/positioning/site.js'
import { E781_MODE } from '../../src/frames/e781.js'
import { VENDOR_DEFAULT_UUID } from '../../src/frames/ibeacon.js'
import { DEFAULT_PATH_LOSS } from '../../src/positioning/path-loss.js'
import { ScannerLocator } from '../../src/positioning/scanner-locator.js'
import type { ScannerPosition } from '../../src/positioning/scanner-locator.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { SimulatedSource } from '../../src/sources/simulated.js'
import type { SimulatedDevice } from '../../src/sources/simulated.js'

const EMAIL = 'forklift@example.com'
const PASSWORD = 'forklift-password'
/** Mounting height of the placed beacons; the scanner is at the default tag height 1.2 m. */
const Z = 2.5
const SCANNER_HEIGHT = 1.2

let emu: Emulator

beforeAll(async () => {
  emu = await startEmulator({ accounts: [{ email: EMAIL, password: PASSWORD }], seed: 3 })
})

afterAll(async () => {
  await emu?.close()
})

describe('ScannerLocator on a deployment map from the emulator', () => {
  it('locates the scanner near where it stands, from the beacons the map places', async () => {
    const client = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD })
    const map = await client.getMap('demo')
    const site = Site.fromDeploymentMap(map, { z: Z })
    const placed = site.anchorList()
    expect(placed.length).toBeGreaterThanOrEqual(4)
    // Stand well off the middle of the placed beacons (where a know-nothing estimate lands):
    // 60 % of the way to the farthest one.
    const mid = { x: placed.reduce((s, a) => s + (a.x ?? 0), 0) / placed.length, y: placed.reduce((s, a) => s + (a.y ?? 0), 0) / placed.length }
    const far = placed.reduce((f, a) => (Math.hypot((a.x ?? 0) - mid.x, (a.y ?? 0) - mid.y) > Math.hypot((f.x ?? 0) - mid.x, (f.y ?? 0) - mid.y) ? a : f))
    const truth = { x: mid.x + ((far.x ?? 0) - mid.x) * 0.6, y: mid.y + ((far.y ?? 0) - mid.y) * 0.6 }
    expect(Math.hypot(truth.x - mid.x, truth.y - mid.y)).toBeGreaterThan(3)
    const devices: SimulatedDevice[] = map.beacons.map((b, i) => ({
      address: `c0:de:00:00:${(i + 16).toString(16)}:01`,
      serialNumber: b.mac,
      hardwareModelName: 'C0',
      firmwareVersion: '4.1',
      ibeacon: { proximityUUID: VENDOR_DEFAULT_UUID, major: 1, minor: i + 1, measuredPower: DEFAULT_PATH_LOSS.p0 },
      vendor: [{ frame: 'e781', mode: E781_MODE.full }],
      measuredPower: DEFAULT_PATH_LOSS.p0,
      distance: Math.hypot(b.PosX * 20 - truth.x, b.PosY * 15 - truth.y, Z - SCANNER_HEIGHT),
      intervalMs: 200,
    }))
    expect(map.xScale).toBe(20)
    expect(map.yScale).toBe(15)
    const source = new SimulatedSource({ devices, virtual: true, durationMs: 30_000, seed: 5, noiseDb: 3, pathLossExponent: DEFAULT_PATH_LOSS.n })
    const scanner = new BeaconScanner({ source, updateIntervalMs: 500 })
    const locator = new ScannerLocator(scanner, { site })
    const positions: ScannerPosition[] = []
    locator.on('position', (p) => positions.push(p))
    // Once the beacons fall silent the position's accuracy grows with the walk it may have made;
    // the check is on the position while they send.
    source.once('end', () => locator.close())
    await scanner.start()
    await scanner.drain()
    await scanner.stop()

    expect(positions.length).toBeGreaterThan(20)
    expect(locator.stats.unknownAnchor).toBe(0)
    const last = locator.position
    expect(last).toEqual(positions.at(-1))
    const err = Math.hypot((last?.x ?? 99) - truth.x, (last?.y ?? 99) - truth.y)
    // Default physics trusts a reading to ~7 dB: a metre or so, and the accuracy radius covers it.
    expect(err).toBeLessThan(2)
    expect(err).toBeLessThan(last?.accuracy ?? 0)
    expect(last?.accuracy).toBeLessThan(4)
    expect(positions.at(-1)?.time).toBeGreaterThan(positions[0].time)
  }, 60_000)
})
