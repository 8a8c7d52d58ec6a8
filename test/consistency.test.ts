// Fields that come from one byte are replaced together (moving with movingState, a transmit-power
// level with its dBm): in one advertisement carrying two frames, and across the packets merged
// into a tracked beacon. The fuzz test checks the same rule on random traffic.
import { describe, expect, it } from 'vitest'
import { decodeAdvertisement } from '../src/decode/decode.js'
import { encodeE780 } from '../src/frames/e780.js'
import { encodeE781 } from '../src/frames/e781.js'
import { VirtualClock } from '../src/clock.js'
import { BeaconScanner } from '../src/scanner/scanner.js'
import type { Advertisement } from '../src/advertisement.js'
import { PushSource } from './support/push-source.js'
import { inconsistencies } from './support/consistency.js'

const SERIAL = '0117C5000001'
const base = { address: 'c0:53:75:30:c0:7c', rssi: -70, timestamp: 1_000 }
const movingE780 = encodeE780({ hardwareModelName: 'B0', firmwareVersion: '4.3', major: 1, minor: 2, serialNumber: SERIAL, temperature: 3, light: 9, accelerometerCount: 4, movingState: 'moving' })
const sensors = (movingState: 'moving' | 'still' | 'unknown' | 'disabled'): Uint8Array =>
  encodeE781({ mode: 0x20, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: SERIAL, temperature: 20, light: 0.405, accelerometerCount: 5, movingState })
const identity = (hardwareModelName: string, transmitPower: number): Uint8Array =>
  encodeE781({ mode: 0x10, hardwareModelName, firmwareVersion: '4.3', serialNumber: SERIAL, major: 5, minor: 6, batteryLevel: 80, transmitPower, measuredPower: -60 })

describe('one advertisement with two frames', () => {
  it('a later unknown moving state takes away the earlier frame\'s moving', () => {
    const r = decodeAdvertisement({ ...base, serviceData: [{ uuid: '80e7', data: movingE780 }, { uuid: '81e7', data: sensors('unknown') }] })
    expect(r?.movingState).toBe('unknown')
    expect(r).not.toHaveProperty('moving')
    expect(inconsistencies(r!)).toEqual([])
  })

  it('the dBm belongs to the level and model the reading ends up with', () => {
    // Level 9 of a C0 is -4 dBm; the second frame is a B0 whose table has no level 9.
    const r = decodeAdvertisement({ ...base, serviceData: [{ uuid: '81e7', data: identity('C0', 9) }, { uuid: '81e7', data: identity('B0', 9) }] })
    expect(r).toMatchObject({ hardwareModelName: 'B0', transmitPower: 9 })
    expect(r).not.toHaveProperty('transmitPowerDbm')
  })
})


/** The beacon tracked from `packets`; with `adapters`, the packets arrive through each in turn. */
async function track(packets: Advertisement['serviceData'][], adapters?: string[]): Promise<ReturnType<BeaconScanner['beacons']>[number]> {
  const clock = new VirtualClock(1_767_225_600_000)
  const source = new PushSource(clock)
  const scanner = new BeaconScanner({ source })
  await scanner.start()
  packets.forEach((serviceData, i) => {
    clock.advanceBy(100)
    const adapter = adapters?.[i % adapters.length]
    source.emit('advertisement', { ...base, timestamp: clock.now(), serviceData, ...(adapter === undefined ? {} : { adapter, rssi: base.rssi - 10 * (i % adapters!.length) }) })
  })
  const [beacon] = scanner.beacons()
  await scanner.stop()
  return beacon
}

describe('a tracked beacon', () => {
  it('moving goes with the moving state it came with', async () => {
    const b = await track([[{ uuid: '81e7', data: sensors('moving') }], [{ uuid: '81e7', data: sensors('disabled') }]])
    expect(b.movingState).toBe('disabled')
    expect(b).not.toHaveProperty('moving')
    expect(inconsistencies(b)).toEqual([])
  })

  it('a new level brings its own dBm, and a new model looks the level up again', async () => {
    const levelChanged = await track([[{ uuid: '81e7', data: identity('C0', 9) }], [{ uuid: '81e7', data: identity('C0', 0) }]])
    expect(levelChanged).toMatchObject({ transmitPower: 0, transmitPowerDbm: -30 })
    const modelChanged = await track([[{ uuid: '81e7', data: identity('C0', 9) }], [{ uuid: '81e7', data: identity('B0', 9) }]])
    expect(modelChanged).toMatchObject({ hardwareModelName: 'B0', transmitPower: 9 })
    expect(modelChanged).not.toHaveProperty('transmitPowerDbm')
  })

  it('frames heard through two adapters merge by the same rule; distance is the best adapter\'s', async () => {
    const b = await track([[{ uuid: '81e7', data: sensors('moving') }], [{ uuid: '81e7', data: identity('C0', 9) }], [{ uuid: '81e7', data: sensors('unknown') }], [{ uuid: '81e7', data: identity('B0', 9) }]], ['hci0', 'hci1'])
    expect(b).toMatchObject({ hardwareModelName: 'B0', transmitPower: 9, movingState: 'unknown' })
    expect(b).not.toHaveProperty('moving')
    expect(b).not.toHaveProperty('transmitPowerDbm')
    expect(b.adapters?.map((a) => [a.adapter, a.rssi])).toEqual([['hci0', -70], ['hci1', -80]])
    expect(b.smoothedRssi).toBe(-70)
    expect(inconsistencies(b)).toEqual([])
  })
})
