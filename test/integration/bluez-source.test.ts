// BluezSource over a real dbus-daemon with a fake bluetoothd: the source contract, and how
// signals become advertisements.
import { describe, expect, it } from 'vitest'
import { BluezSource } from '../../src/sources/bluez/bluez.js'
import { advertisementSourceContract } from '../sources/source-contract.js'
import { dbusUnavailable, FakeBluez, startBus } from './dbus-harness.js'
import { bluezRig } from './bluez-rig.js'
import { waitFor } from './wait.js'

const skip = dbusUnavailable()
const A = 'aa:bb:cc:dd:ee:01'
const IBEACON = '0215e2c56db5dffb48d2b060d0f5a71096e000010002c5'

describe.skipIf(skip !== undefined)(`BluezSource over a private dbus-daemon${skip === undefined ? '' : ` (${skip})`}`, () => {
  advertisementSourceContract('BluezSource', async () => {
    const bus = await startBus()
    const fake = await FakeBluez.start(bus.address)
    await fake.send({ op: 'addAdapter', name: 'hci0', powered: true })
    await fake.send({ op: 'beacon', adapter: 'hci0', address: 'c0:11:22:33:44:55', ms: 10, mfr: { 76: IBEACON } })
    return {
      source: new BluezSource({ busAddress: bus.address }),
      cleanup: async () => {
        await fake.kill()
        await bus.stop()
      },
    }
  })

  it('asks bluetoothd for LE discovery with duplicate data and reports the adapter powered on', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      expect(rig.states).toEqual(['poweredOn'])
      const filter = await rig.fake.calls('SetDiscoveryFilter')
      expect(filter).toHaveLength(1)
      expect(filter[0].path).toBe('/org/bluez/hci0')
      expect(filter[0].body).toContain('"Transport"')
      expect(filter[0].body).toContain('["le"]')
      expect(filter[0].body).toContain('"DuplicateData"')
      expect(await rig.fake.calls('StartDiscovery')).toHaveLength(1)
      // Call order: the filter applies to the discovery it precedes.
      expect((await rig.fake.calls()).map((c) => c.call)).toEqual(['GetManagedObjects', 'SetDiscoveryFilter', 'StartDiscovery'])
    } finally {
      await rig.cleanup()
    }
  })

  it('turns InterfacesAdded and PropertiesChanged into advertisements (company id LE first, 16-bit uuids short)', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      await rig.fake.send({ op: 'device', adapter: 'hci0', address: A, addressType: 'random', props: { rssi: -60, mfr: { 76: IBEACON }, name: 'Tag', txPower: -4 } })
      await waitFor(() => rig.advs.length === 1, 'the InterfacesAdded advertisement')
      expect(rig.advs[0]).toMatchObject({ address: A, addressType: 'random', rssi: -60, localName: 'Tag', txPowerLevel: -4 })
      expect(Buffer.from(rig.advs[0].manufacturerData as Uint8Array).toString('hex')).toBe(`4c00${IBEACON}`)
      await rig.fake.send({
        op: 'changed', adapter: 'hci0', address: A,
        props: { rssi: -62, sd: { '0000e781-0000-1000-8000-00805f9b34fb': '0102', '12345678-1234-5678-9abc-def012345678': '03' } },
      })
      await waitFor(() => rig.advs.length === 2, 'the PropertiesChanged advertisement')
      const adv = rig.advs[1]
      expect(adv).toMatchObject({ address: A, addressType: 'random', rssi: -62 })
      expect(adv.serviceData?.map((s) => [s.uuid, Buffer.from(s.data).toString('hex')])).toEqual([
        ['e781', '0102'],
        ['12345678123456789abcdef012345678', '03'],
      ])
      expect(Number.isFinite(adv.timestamp)).toBe(true)
      expect(rig.source.stats).toMatchObject({ advertisements: 2, devices: 1 })
    } finally {
      await rig.cleanup()
    }
  })

  it('reads only the keys each signal changed: stale ManufacturerData is not re-reported', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      await rig.fake.send({ op: 'device', adapter: 'hci0', address: A, props: { rssi: -60, mfr: { 76: IBEACON } } })
      // A service-data report: bluetoothd's object still holds the iBeacon bytes from before.
      await rig.fake.send({ op: 'changed', adapter: 'hci0', address: A, props: { rssi: -61, sd: { '0000feaa-0000-1000-8000-00805f9b34fb': '10' } } })
      // An RSSI-only report, then a data-only one (RSSI unchanged: the last RSSI is used).
      await rig.fake.send({ op: 'changed', adapter: 'hci0', address: A, props: { rssi: -70 } })
      await rig.fake.send({ op: 'changed', adapter: 'hci0', address: A, props: { mfr: { 89: 'beef' } } })
      // Neither RSSI nor data: a name change alone is no advertisement.
      await rig.fake.send({ op: 'changed', adapter: 'hci0', address: A, props: { name: 'renamed' } })
      await rig.fake.send({ op: 'changed', adapter: 'hci0', address: A, props: { rssi: -71 } })
      await waitFor(() => rig.advs.length === 5, 'five advertisements')
      const [first, sd, rssiOnly, dataOnly, last] = rig.advs
      expect(first.manufacturerData).toBeDefined()
      expect(sd.manufacturerData).toBeUndefined()
      expect(sd.serviceData?.[0].uuid).toBe('feaa')
      expect(rssiOnly).toMatchObject({ rssi: -70 })
      expect(rssiOnly.manufacturerData).toBeUndefined()
      expect(rssiOnly.serviceData).toBeUndefined()
      expect(dataOnly.rssi).toBe(-70)
      expect(Buffer.from(dataOnly.manufacturerData as Uint8Array).toString('hex')).toBe('5900beef')
      expect(last).toMatchObject({ rssi: -71 })
      expect(last.localName).toBeUndefined()
      expect(last.manufacturerData).toBeUndefined()
    } finally {
      await rig.cleanup()
    }
  })

  it('seeds devices bluetoothd already knows without reporting their cached data, and forgets removed ones', async () => {
    const rig = await bluezRig()
    try {
      await rig.fake.send({ op: 'device', adapter: 'hci0', address: A, addressType: 'random', announce: false, props: { rssi: -55, mfr: { 76: IBEACON } } })
      await rig.source.start()
      expect(rig.source.stats.devices).toBe(1)
      await rig.fake.send({ op: 'changed', adapter: 'hci0', address: A, props: { sd: { '0000feaa-0000-1000-8000-00805f9b34fb': '20' } } })
      await waitFor(() => rig.advs.length === 1, 'the first advertisement')
      // Identity and last RSSI come from the cache; the cached iBeacon bytes do not.
      expect(rig.advs[0]).toMatchObject({ address: A, addressType: 'random', rssi: -55 })
      expect(rig.advs[0].manufacturerData).toBeUndefined()
      await rig.fake.send({ op: 'removeDevice', adapter: 'hci0', address: A })
      await waitFor(() => rig.source.stats.devices === 0, 'the device to be forgotten')
    } finally {
      await rig.cleanup()
    }
  })

  it('ignores signals of other adapters and PropertiesChanged from a name other than org.bluez', async () => {
    const rig = await bluezRig()
    try {
      await rig.fake.send({ op: 'addAdapter', name: 'hci1', powered: true })
      await rig.source.start()
      await rig.fake.send({ op: 'device', adapter: 'hci1', address: A, props: { rssi: -60 } })
      await rig.fake.send({ op: 'changed', adapter: 'hci1', address: A, props: { rssi: -61 } })
      const impostor = await FakeBluez.start(rig.bus.address, true)
      await impostor.send({ op: 'addAdapter', name: 'hci0', powered: true })
      await impostor.send({ op: 'device', adapter: 'hci0', address: A, props: { rssi: -30 } })
      await impostor.send({ op: 'changed', adapter: 'hci0', address: A, props: { rssi: -31 } })
      await impostor.kill()
      await rig.fake.send({ op: 'device', adapter: 'hci0', address: A, props: { rssi: -40 } })
      await waitFor(() => rig.advs.length >= 1, 'the hci0 advertisement')
      expect(rig.advs.map((a) => a.rssi)).toEqual([-40])
      expect(rig.states).toEqual(['poweredOn'])
    } finally {
      await rig.cleanup()
    }
  })
})
