import { describe, it, expect } from 'vitest'
import { installFakeHciSocket } from '../../integration/install-fake-hci.js'
import {
  ADV_IND,
  ADV_NONCONN_IND,
  AD_COMPLETE_LOCAL_NAME,
  AD_FLAGS,
  AD_MANUFACTURER_SPECIFIC,
  AD_TX_POWER_LEVEL,
  FLAGS_LE_GENERAL_NO_BREDR,
  SCAN_RSP,
  adStructure,
  iBeaconManufacturerData,
  serviceData16,
} from '../../integration/hci-packets.js'
import { settle, waitFor } from '../../integration/wait.js'
import { advertisementFromNoble } from '../../../src/sources/noble/advertisement.js'
import { loadNoble } from '../../../src/sources/noble/load.js'
import type { Advertisement } from '../../../src/advertisement.js'
import type { NoblePeripheralLike } from '../../../src/sources/noble/types.js'

const hci = installFakeHciSocket()
const UUID = 'e2c56db5-dffb-48d2-b060-d0f5a71096e0'
const hex = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString('hex'))

describe('advertisementFromNoble on plain objects', () => {
  it('copies buffers, lower-cases address and uuids, keeps scalar fields', () => {
    const mfr = Buffer.from('4c000215', 'hex')
    const sd = { uuid: '81E7', data: Buffer.from('0102', 'hex') }
    const peripheral: NoblePeripheralLike = {
      id: 'aabbccddeeff',
      address: 'AA:BB:CC:DD:EE:FF',
      addressType: 'random',
      connectable: false,
      rssi: -61,
      advertisement: { localName: 'B1', txPowerLevel: -4, manufacturerData: mfr, serviceData: [sd] },
    }
    const adv = advertisementFromNoble(peripheral, new WeakSet(), 1234)
    expect(adv).toEqual({
      address: 'aa:bb:cc:dd:ee:ff',
      addressType: 'random',
      connectable: false,
      rssi: -61,
      timestamp: 1234,
      localName: 'B1',
      txPowerLevel: -4,
      manufacturerData: new Uint8Array([0x4c, 0x00, 0x02, 0x15]),
      serviceData: [{ uuid: '81e7', data: new Uint8Array([1, 2]) }],
    })
    mfr[0] = 0
    sd.data[0] = 0
    expect(adv.manufacturerData?.[0]).toBe(0x4c)
    expect(adv.serviceData?.[0].data[0]).toBe(1)
    expect(Buffer.isBuffer(adv.manufacturerData)).toBe(false)
  })

  it('reports a manufacturer-data Buffer or service-data entry once, a new one again', () => {
    const reported = new WeakSet<object>()
    const first = Buffer.from('4c0002', 'hex')
    const sd = { uuid: '81e7', data: Buffer.from('01', 'hex') }
    const p: NoblePeripheralLike = { address: 'aa:bb:cc:dd:ee:01', rssi: -50, advertisement: { manufacturerData: first, serviceData: [sd] } }
    expect(advertisementFromNoble(p, reported, 1).manufacturerData).toBeDefined()
    const again = advertisementFromNoble(p, reported, 2)
    expect(again.manufacturerData).toBeUndefined()
    expect(again.serviceData).toBeUndefined()
    p.advertisement = { manufacturerData: Buffer.from(first), serviceData: [sd] }
    expect(hex(advertisementFromNoble(p, reported, 3).manufacturerData)).toBe('4c0002')
  })

  it('survives junk without throwing and keeps what is usable', () => {
    const junk = {
      address: undefined,
      id: 'F0F0',
      rssi: Number.NaN,
      addressType: 'weird',
      advertisement: { txPowerLevel: Number.POSITIVE_INFINITY, serviceData: [null, { uuid: 5, data: 'x' }, { uuid: 'FEAA', data: new Uint8Array([9]) }] },
    } as unknown as NoblePeripheralLike
    const adv = advertisementFromNoble(junk, new WeakSet(), 7)
    expect(adv).toEqual({ address: 'f0f0', addressType: 'unknown', rssi: 127, timestamp: 7, serviceData: [{ uuid: 'feaa', data: new Uint8Array([9]) }] })
  })
})

describe('advertisementFromNoble with real noble over the fake HCI socket', () => {
  it('never resurrects manufacturer data noble kept from an earlier packet', async () => {
    const device = hci.device(3)
    const noble = await loadNoble(3)
    const snapshots: Advertisement[] = []
    const raw: (string | undefined)[] = []
    const reported = new WeakSet<object>()
    noble.on('discover', (p: NoblePeripheralLike) => {
      raw.push(hex(p.advertisement?.manufacturerData))
      snapshots.push(advertisementFromNoble(p, reported, snapshots.length))
    })
    await waitFor(() => noble.state === 'poweredOn', 'poweredOn')
    noble.startScanning([], true)
    await waitFor(() => device.scanEnabled, 'scan enabled')

    const address = 'c1:00:00:00:00:01'
    const ibeacon = iBeaconManufacturerData(UUID, 1, 2, -59)
    const e781 = serviceData16(0x81e7, [0x10, 0x20, 0x30])
    const flags = adStructure(AD_FLAGS, [FLAGS_LE_GENERAL_NO_BREDR])
    device.inject({ type: ADV_NONCONN_IND, address, data: Buffer.concat([flags, adStructure(AD_MANUFACTURER_SPECIFIC, ibeacon)]), rssi: -60 })
    device.inject({ type: ADV_NONCONN_IND, address, data: Buffer.concat([flags, e781]), rssi: -61 })
    device.inject({ type: ADV_NONCONN_IND, address, data: Buffer.concat([flags, e781]), rssi: -62 })
    await settle()

    // noble itself still carries the iBeacon bytes on every later event: the bug being guarded.
    expect(raw).toEqual([hex(ibeacon), hex(ibeacon), hex(ibeacon)])
    expect(snapshots.map((s) => hex(s.manufacturerData))).toEqual([hex(ibeacon), undefined, undefined])
    expect(snapshots.map((s) => s.serviceData?.map((d) => `${d.uuid}:${hex(d.data)}`))).toEqual([
      undefined,
      ['81e7:102030'],
      ['81e7:102030'],
    ])
    expect(snapshots.map((s) => s.rssi)).toEqual([-60, -61, -62])

    // A fresh iBeacon packet is fresh data again.
    device.inject({ type: ADV_NONCONN_IND, address, data: Buffer.concat([flags, adStructure(AD_MANUFACTURER_SPECIFIC, ibeacon)]), rssi: -63 })
    await settle()
    expect(hex(snapshots.at(-1)?.manufacturerData)).toBe(hex(ibeacon))
  })

  it('merges an ADV_IND with its scan response into one snapshot, and drops stale service data', async () => {
    const device = hci.device(4)
    const noble = await loadNoble(4)
    const snapshots: Advertisement[] = []
    const reported = new WeakSet<object>()
    noble.on('discover', (p: NoblePeripheralLike) => snapshots.push(advertisementFromNoble(p, reported, 0)))
    await waitFor(() => noble.state === 'poweredOn', 'poweredOn')
    noble.startScanning([], true)
    await waitFor(() => device.scanEnabled, 'scan enabled')

    const address = 'c1:00:00:00:00:02'
    const ibeacon = iBeaconManufacturerData(UUID, 7, 8, -59)
    const adv = Buffer.concat([adStructure(AD_FLAGS, [FLAGS_LE_GENERAL_NO_BREDR]), adStructure(AD_MANUFACTURER_SPECIFIC, ibeacon)])
    const rsp = (n: number): Buffer =>
      Buffer.concat([serviceData16(0x81e7, [n]), adStructure(AD_COMPLETE_LOCAL_NAME, Buffer.from('BKT')), adStructure(AD_TX_POWER_LEVEL, [0xfc])])
    device.inject({ type: ADV_IND, address, data: adv, rssi: -70 })
    device.inject({ type: SCAN_RSP, address, data: rsp(1), rssi: -71 })
    // The next advertisement is lost on air; its scan response alone arrives.
    device.inject({ type: SCAN_RSP, address, data: rsp(2), rssi: -72 })
    await settle()

    expect(snapshots).toHaveLength(2)
    expect(hex(snapshots[0].manufacturerData)).toBe(hex(ibeacon))
    expect(snapshots[0].serviceData).toEqual([{ uuid: '81e7', data: new Uint8Array([1]) }])
    expect(snapshots[0]).toMatchObject({ localName: 'BKT', txPowerLevel: -4, connectable: true, addressType: 'public' })
    // noble appended the second response's entry after the first: only the new one is reported.
    expect(snapshots[1].serviceData).toEqual([{ uuid: '81e7', data: new Uint8Array([2]) }])
    expect(snapshots[1].manufacturerData).toBeUndefined()
  })
})
