// Several adapters feeding one scanner, in virtual time: RSSI smoothed per adapter, distance from
// the best one, an adapter dropping out of a beacon's list after the gone timeout while another
// still hears it, and adapters failing at start or mid-run without stopping the scan.
import { describe, it, expect } from 'vitest'
import type { Advertisement } from '../../src/advertisement.js'
import { VirtualClock } from '../../src/clock.js'
import { AdapterError, BluetoothUnavailableError } from '../../src/errors.js'
import { encodeIBeacon } from '../../src/frames/ibeacon.js'
import type { Beacon } from '../../src/reading.js'
import type { ScannerWarning } from '../../src/scanner/event-stream.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { CombinedSource } from '../../src/sources/combined.js'
import { SimulatedSource } from '../../src/sources/simulated.js'
import type { AdapterState } from '../../src/sources/source.js'
import { inconsistencies } from '../support/consistency.js'
import { PushSource } from '../support/push-source.js'
import { T0, UUID } from '../sources/helpers.js'

const ADDRESS = 'aa:00:00:00:00:01'
const md = encodeIBeacon({ proximityUUID: UUID, major: 1, minor: 1, measuredPower: -59 })
const packet = (rssi: number, at: number): Advertisement => ({ address: ADDRESS, rssi, timestamp: T0 + at, manufacturerData: md })

/** Two push adapters on one virtual clock feeding one scanner through `source: [a, b]`. */
async function rig(options: { startError?: Error } = {}) {
  const clock = new VirtualClock(T0)
  const a = new PushSource(clock, { adapter: 'hci0' })
  const b = new PushSource(clock, { adapter: 'hci1', ...(options.startError === undefined ? {} : { startError: options.startError }) })
  const scanner = new BeaconScanner({ source: [a, b], identitySettleMs: 0 })
  const log = { found: [] as Beacon[], gone: [] as Beacon[], updated: [] as Beacon[][], errors: [] as Error[], warnings: [] as ScannerWarning[], states: [] as AdapterState[] }
  scanner.on('found', (x) => log.found.push(x))
  scanner.on('gone', (x) => log.gone.push(x))
  scanner.on('updated', (xs) => log.updated.push(xs))
  scanner.on('error', (e) => log.errors.push(e))
  scanner.on('warning', (w) => log.warnings.push(w))
  scanner.on('state', (s) => log.states.push(s))
  /** Sends a packet through adapter `src` at `at` ms after T0. */
  const hear = (src: PushSource, rssi: number, at: number): void => {
    clock.advanceTo(T0 + at)
    src.emit('advertisement', packet(rssi, at))
  }
  return { clock, a, b, scanner, log, hear }
}

/** A single-adapter scanner fed the same packets, for comparing smoothing. */
async function alone(packets: [number, number][]): Promise<Beacon> {
  const clock = new VirtualClock(T0)
  const src = new PushSource(clock)
  const scanner = new BeaconScanner({ source: src, identitySettleMs: 0 })
  await scanner.start()
  for (const [rssi, at] of packets) {
    clock.advanceTo(T0 + at)
    src.emit('advertisement', packet(rssi, at))
  }
  const [b] = scanner.beacons()
  await scanner.stop()
  return b
}

function checkConsistent(b: Beacon): void {
  expect(inconsistencies(b)).toEqual([])
  if (b.adapters !== undefined && b.adapters.length > 0) {
    expect(b.smoothedRssi).toBe(b.adapters[0].rssi)
    for (let i = 1; i < b.adapters.length; i++) expect(b.adapters[i].rssi).toBeLessThanOrEqual(b.adapters[i - 1].rssi)
    for (const x of b.adapters) expect(x.lastSeen).toBeLessThanOrEqual(b.lastSeen)
    expect(Math.max(...b.adapters.map((x) => x.lastSeen))).toBe(b.lastSeen)
  }
}

describe('several adapters feeding one scanner', () => {
  it('smooths RSSI per adapter, lists the adapters best first, and takes distance from the best one', async () => {
    const { a, b, scanner, hear } = await rig()
    await scanner.start()
    const near: [number, number][] = []
    for (let t = 0; t < 3000; t += 100) {
      const r0 = -50 - (t % 300) / 100
      hear(a, r0, t)
      near.push([r0, t])
      hear(b, -80 - (t % 200) / 100, t + 1)
    }
    const [beacon] = scanner.beacons()
    expect(beacon.adapters?.map((x) => x.adapter)).toEqual(['hci0', 'hci1'])
    expect(beacon.adapters?.[0].lastSeen).toBe(T0 + 2900)
    expect(beacon.adapters?.[1].lastSeen).toBe(T0 + 2901)
    // The latest packet is hci1's, but distance comes from hci0, smoothed as if it were alone:
    // the far antenna's samples are never mixed in.
    expect(beacon.rssi).toBe(-81)
    const single = await alone(near)
    expect(beacon.smoothedRssi).toBe(single.smoothedRssi)
    expect(beacon.accuracy).toBe(single.accuracy)
    expect(beacon.proximity).toBe(single.proximity)
    expect(beacon.adapters?.[1].rssi).toBeLessThan(-79)
    checkConsistent(beacon)
    expect(single.adapters).toBeUndefined()
    await scanner.stop()
  })

  it('drops an adapter that stopped hearing the beacon after the gone timeout, without the beacon going', async () => {
    const { a, b, clock, scanner, log, hear } = await rig()
    await scanner.start()
    for (let t = 0; t <= 2000; t += 200) {
      hear(a, -50, t)
      hear(b, -75, t + 1)
    }
    // hci0 stops hearing it at 2000; hci1 goes on until 20000.
    for (let t = 2200; t <= 20_000; t += 200) hear(b, -75, t + 1)
    const listed = (bs: Beacon[]) => bs[0]?.adapters?.map((x) => x.adapter)
    // The tick at 9000: hci0 last heard it 7 s ago, still listed (and still the best); at 10000 it is out.
    const at = (ms: number) => log.updated[ms / 1000 - 1]
    expect(listed(at(9000))).toEqual(['hci0', 'hci1'])
    expect(at(9000)[0].smoothedRssi).toBe(-50)
    expect(listed(at(10_000))).toEqual(['hci1'])
    expect(at(10_000)[0].smoothedRssi).toBe(-75)
    expect(log.gone).toEqual([])
    for (const tick of log.updated) for (const x of tick) checkConsistent(x)
    // Then hci1 stops too: gone 8 s after its last packet, the gone snapshot listing it.
    clock.advanceTo(T0 + 20_001 + 8000)
    expect(log.gone).toHaveLength(1)
    expect(log.gone[0].lastSeen).toBe(T0 + 20_001)
    expect(log.gone[0].adapters?.map((x) => x.adapter)).toEqual(['hci1'])
    checkConsistent(log.gone[0])
    expect(log.found).toHaveLength(1)
    await scanner.stop()
  })

  it('a snapshot taken at the very millisecond the beacon goes still lists the adapter that heard it last', async () => {
    const { a, clock, scanner, log, hear } = await rig()
    await scanner.start()
    hear(a, -60, 0)
    // The tick at 8000 runs before the expiry due at the same millisecond.
    clock.advanceTo(T0 + 8000)
    const ticks = log.updated.filter((bs) => bs.length > 0)
    expect(ticks).toHaveLength(8)
    for (const [b] of ticks) {
      expect(b.smoothedRssi).toBe(-60)
      expect(b.adapters).toEqual([{ adapter: 'hci0', rssi: -60, lastSeen: T0 }])
      checkConsistent(b)
    }
    expect(log.gone).toHaveLength(1)
    await scanner.stop()
  })

  it('scans on when one adapter fails to start, reporting it as an error naming the adapter', async () => {
    const cause = new BluetoothUnavailableError('no_adapter', 'No Bluetooth adapter hci1: check `hciconfig`.')
    const { a, scanner, log, hear } = await rig({ startError: cause })
    await expect(scanner.start()).resolves.toBeUndefined()
    expect(log.errors).toHaveLength(1)
    expect(log.errors[0]).toBeInstanceOf(AdapterError)
    expect((log.errors[0] as AdapterError).adapter).toBe('hci1')
    expect((log.errors[0] as AdapterError).cause).toBe(cause)
    a.emit('state', 'poweredOn')
    hear(a, -60, 0)
    expect(scanner.beacons().map((x) => x.adapters?.map((y) => y.adapter))).toEqual([['hci0']])
    expect(log.states).toEqual(['poweredOn'])
    await scanner.stop()
  })

  it('keeps tracking through the other adapter when one fails mid-run', async () => {
    const { a, b, scanner, log, hear } = await rig()
    await scanner.start()
    a.emit('state', 'poweredOn')
    b.emit('state', 'poweredOn')
    for (let t = 0; t <= 3000; t += 250) {
      hear(a, -55, t)
      hear(b, -70, t + 1)
    }
    b.emit('error', new Error('ENETDOWN, Network is down'))
    b.emit('state', 'poweredOff')
    for (let t = 3250; t <= 15_000; t += 250) hear(a, -55, t)
    expect(log.states).toEqual(['poweredOn'])
    expect(log.errors.map((e) => [e.constructor.name, (e as AdapterError).adapter, e.message])).toEqual([['AdapterError', 'hci1', 'hci1: ENETDOWN, Network is down']])
    expect(log.warnings).toEqual([{ code: 'adapter_state', message: 'hci1 is poweredOff; scanning goes on with hci0', adapter: 'hci1' }])
    expect(log.gone).toEqual([])
    const [beacon] = scanner.beacons()
    expect(beacon.adapters?.map((x) => x.adapter)).toEqual(['hci0'])
    checkConsistent(beacon)
    await scanner.stop()
  })

  it('rejects start() with no_adapter_started when every adapter fails', async () => {
    const clock = new VirtualClock(T0)
    const scanner = new BeaconScanner({
      source: [new PushSource(clock, { adapter: 'hci0', startError: new Error('a') }), new PushSource(clock, { adapter: 'hci1', startError: new Error('b') })],
    })
    await expect(scanner.start()).rejects.toMatchObject({ code: 'no_adapter_started' })
    expect(scanner.beacons()).toEqual([])
  })

  it('two simulated adapters at different distances: every snapshot consistent, the near adapter first', async () => {
    const devices = [
      { address: 'aa:00:00:00:00:01', ibeacon: { proximityUUID: UUID, major: 1, minor: 1, measuredPower: -59 }, vendor: [{ frame: 'e781' as const, mode: 0x30 as const }], serialNumber: '0117C5000001', intervalMs: 200, distance: 1 },
      { address: 'aa:00:00:00:00:02', ibeacon: { proximityUUID: UUID, major: 1, minor: 2, measuredPower: -59 }, intervalMs: 300, distance: 6 },
    ]
    const near = new SimulatedSource({ devices, seed: 1, virtual: true, startTime: T0, durationMs: 10_000 })
    const clock = near.clock as VirtualClock
    // The second adapter hears the same devices 12 m further away.
    const far = new SimulatedSource({ devices: devices.map((d) => ({ ...d, distance: d.distance + 12 })), seed: 2, clock, durationMs: 10_000 })
    const scanner = new BeaconScanner({ source: new CombinedSource([{ source: near, adapter: 'near' }, { source: far, adapter: 'far' }]) })
    const seen: Beacon[] = []
    scanner.on('updated', (bs) => seen.push(...bs))
    scanner.on('gone', (x) => seen.push(x))
    await scanner.start()
    await scanner.drain()
    await scanner.stop()
    expect(seen.length).toBeGreaterThan(10)
    for (const x of seen) {
      checkConsistent(x)
      expect(x.adapters?.[0].adapter).toBe('near')
    }
    expect(seen.some((x) => x.adapters?.length === 2)).toBe(true)
  })
})
