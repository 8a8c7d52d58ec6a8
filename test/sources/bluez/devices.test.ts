// Device1 property sets in dbus-native's raw form → advertisements; malformed values skipped.
import { describe, expect, it } from 'vitest'
import { BluezDevices, shortUuid } from '../../../src/sources/bluez/devices.js'

interface Tree {
  type: string
  child: Tree[]
}
const t = (type: string, ...child: Tree[]): Tree => ({ type, child })
const variant = (tree: Tree, value: unknown): unknown => [[tree], [value]]
const n = (v: number): unknown => variant(t('n'), v)
const s = (v: string): unknown => variant(t('s'), v)
const bytes = (hex: string): unknown => variant(t('a', t('y')), Buffer.from(hex, 'hex'))
const mfr = (entries: [number, string][]): unknown => variant(t('a', t('{', t('q'), t('v'))), entries.map(([k, hex]) => [k, bytes(hex)]))
const sd = (entries: [string, string][]): unknown => variant(t('a', t('{', t('s'), t('v'))), entries.map(([k, hex]) => [k, bytes(hex)]))
const PATH = '/org/bluez/hci0/dev_AA_BB_CC_DD_EE_0F'

describe('shortUuid', () => {
  it('shortens uuids on the Bluetooth base as noble spells them', () => {
    expect(shortUuid('0000feaa-0000-1000-8000-00805f9b34fb')).toBe('feaa')
    expect(shortUuid('0000E781-0000-1000-8000-00805F9B34FB')).toBe('e781')
    expect(shortUuid('12345678-0000-1000-8000-00805f9b34fb')).toBe('12345678')
    expect(shortUuid('12345678-1234-5678-9abc-def012345678')).toBe('12345678123456789abcdef012345678')
  })
})

describe('BluezDevices', () => {
  it('takes the address from the object path when the signal does not carry it', () => {
    const devices = new BluezDevices()
    const adv = devices.changed(PATH, [['RSSI', n(-70)]], 5)
    expect(adv).toEqual({ address: 'aa:bb:cc:dd:ee:0f', rssi: -70, timestamp: 5 })
  })

  it('puts the company id little-endian before the bytes and keeps only the first company of a signal', () => {
    const devices = new BluezDevices()
    const adv = devices.changed(PATH, [['RSSI', n(-70)], ['ManufacturerData', mfr([[0x004c, '0215'], [0x0059, 'ff']])]], 5)
    expect(Buffer.from(adv?.manufacturerData as Uint8Array).toString('hex')).toBe('4c000215')
  })

  it('reports 127 (not available) for data from a device never heard with an RSSI', () => {
    const devices = new BluezDevices()
    expect(devices.changed(PATH, [['ServiceData', sd([['0000feaa-0000-1000-8000-00805f9b34fb', '00']])]], 1)?.rssi).toBe(127)
  })

  it('forgets the RSSI bluetoothd invalidates (device no longer heard)', () => {
    const devices = new BluezDevices()
    devices.changed(PATH, [['RSSI', n(-50)]], 1)
    expect(devices.changed(PATH, [], 2, ['RSSI'])).toBeUndefined()
    expect(devices.changed(PATH, [['ManufacturerData', mfr([[76, '01']])]], 3)?.rssi).toBe(127)
  })

  it('skips values of the wrong type and malformed entries instead of throwing', () => {
    const devices = new BluezDevices()
    const adv = devices.changed(PATH, [
      ['RSSI', s('loud')],
      ['TxPower', s('high')],
      ['ManufacturerData', variant(t('a', t('{', t('q'), t('v'))), [[70000, bytes('00')], ['x', bytes('00')], [1, s('no')], 'junk'])],
      ['ServiceData', n(3)],
      ['Name', n(1)],
      'garbage',
    ], 1)
    expect(adv).toEqual({ address: 'aa:bb:cc:dd:ee:0f', rssi: 127, timestamp: 1 })
    expect(devices.changed('/org/bluez/hci0/not_a_device', [['RSSI', n(-1)]], 1)).toBeUndefined()
    expect(devices.changed(PATH, 'not a dict', 1)).toBeUndefined()
    expect(devices.add(PATH, null, 1, true)).toBeUndefined()
  })

  it('emits for a just-heard device only when it carries an RSSI, and never for cached ones', () => {
    const devices = new BluezDevices()
    const props = [['Address', s('AA:BB:CC:DD:EE:0F')], ['AddressType', s('random')], ['RSSI', n(-40)], ['ManufacturerData', mfr([[76, '01']])]]
    expect(devices.add(PATH, props, 1, false)).toBeUndefined()
    expect(devices.add(PATH, props, 2, true)).toMatchObject({ address: 'aa:bb:cc:dd:ee:0f', addressType: 'random', rssi: -40 })
    // A later cached property set (bluetoothd's GetManagedObjects) does not overwrite the live RSSI.
    devices.add(PATH, [['RSSI', n(-90)]], 3, false)
    expect(devices.changed(PATH, [['ManufacturerData', mfr([[76, '02']])]], 4)?.rssi).toBe(-40)
    expect(devices.add('/org/bluez/hci0/dev_AA_BB_CC_DD_EE_10', [['Address', s('AA:BB:CC:DD:EE:10')]], 3, true)).toBeUndefined()
    expect(devices.size).toBe(2)
  })
})
