/**
 * PROTOCOL.md 2.2 (fix): the split modes 0x41 (identity) and 0x42 (sensors) are merged per
 * device. The vendor SDK keeps the halves in process-global maps, so two devices interleaving
 * their halves corrupt each other; here two scanners and two devices must stay apart.
 */
import { describe, expect, it } from 'vitest'
import { formatAdvertisementLine } from '../../src/advertisement.js'
import { encodeE781 } from '../../src/frames/e781.js'
import type { E781Fields } from '../../src/frames/e781.js'
import type { Beacon } from '../../src/reading.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { randomKeyString, seeded } from './helpers.js'

const T0 = 1_767_225_600_000
const rand = seeded(21)
const KEY = parseBroadcastKey(randomKeyString(rand, 0x7a31))

interface Device {
  address: string
  fields: Omit<E781Fields, 'mode'>
}
const A: Device = {
  address: 'aa:00:00:00:00:0a',
  fields: { hardwareModelName: 'C0', firmwareVersion: '4.1', serialNumber: '0117C5AAAAAA', major: 1, minor: 11, batteryLevel: 10, temperature: -5, light: null, movingState: 'moving', accelerometerCount: 100, measuredPower: -50, transmitPower: 3, advertisingInterval: 100 },
}
const B: Device = {
  address: 'bb:00:00:00:00:0b',
  fields: { hardwareModelName: 'C8', firmwareVersion: '4.1', serialNumber: '0117C5BBBBBB', major: 2, minor: 22, batteryLevel: 90, temperature: 30, light: null, movingState: 'still', accelerometerCount: 200, measuredPower: -70, transmitPower: 9, advertisingInterval: 1285 },
}

let code = 1
function line(ms: number, d: Device, mode: 0x41 | 0x42): string {
  const data = encodeE781({ ...d.fields, mode }, { key: KEY, randomCode: code++ })
  return formatAdvertisementLine({ address: d.address, rssi: -60, timestamp: T0 + ms, serviceData: [{ uuid: '81e7', data }] })
}

async function scan(lines: string[]): Promise<Map<string, Beacon>> {
  const scanner = new BeaconScanner({ source: new ReplaySource(lines, { virtual: true }), keys: [KEY] })
  const latest = new Map<string, Beacon>()
  scanner.on('found', (b) => latest.set(b.id, b))
  scanner.on('changed', (b) => latest.set(b.id, b))
  await scanner.start()
  await scanner.drain()
  await scanner.stop()
  return latest
}

function expectOwnFields(b: Beacon | undefined, d: Device): void {
  const { hardwareModelName, serialNumber, major, minor, batteryLevel, temperature, movingState, accelerometerCount, measuredPower, transmitPower, advertisingInterval } = d.fields
  expect(b).toMatchObject({
    id: serialNumber, address: d.address, hardwareModelName, serialNumber, major, minor, batteryLevel, temperature, movingState,
    accelerometerCount, measuredPower, transmitPower, advertisingInterval, secure: { encrypted: true, keyId: '7a31', verified: true },
  })
}

describe('split encrypted halves are merged per device', () => {
  it('two devices interleaving 0x41 and 0x42 each keep their own identity and sensors', async () => {
    // A: identity, B: sensors, A: sensors, B: identity, ... — the order that breaks global maps.
    const lines: string[] = []
    for (let i = 0; i < 6; i++) {
      lines.push(line(i * 200, A, i % 2 ? 0x42 : 0x41))
      lines.push(line(i * 200 + 100, B, i % 2 ? 0x41 : 0x42))
    }
    const beacons = await scan(lines)
    expect([...beacons.keys()].sort()).toEqual(['0117C5AAAAAA', '0117C5BBBBBB'])
    expectOwnFields(beacons.get('0117C5AAAAAA'), A)
    expectOwnFields(beacons.get('0117C5BBBBBB'), B)
  })

  it('two scanners in one process share nothing', async () => {
    const [one, two] = await Promise.all([
      scan([line(0, A, 0x41), line(100, A, 0x42), line(200, A, 0x41)]),
      scan([line(0, B, 0x42), line(100, B, 0x41), line(200, B, 0x42)]),
    ])
    expect([...one.keys()]).toEqual(['0117C5AAAAAA'])
    expect([...two.keys()]).toEqual(['0117C5BBBBBB'])
    expectOwnFields(one.get('0117C5AAAAAA'), A)
    expectOwnFields(two.get('0117C5BBBBBB'), B)
  })
})
