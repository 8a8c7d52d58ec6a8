// Which signals count for one adapter: only bluetoothd's (the owner of org.bluez), only the
// adapter's own paths; NameOwnerChanged only for org.bluez.
import { describe, expect, it } from 'vitest'
import { classify } from '../../../src/sources/bluez/signals.js'

const OWNER = ':1.7'
const HCI0 = '/org/bluez/hci0'
const DEV = `${HCI0}/dev_AA_BB_CC_DD_EE_01`
const bool = (v: boolean): unknown => [[{ type: 'b', child: [] }], [v]]
const signal = (sender: string, path: string, iface: string, member: string, body: unknown[]) => ({ type: 4, sender, path, interface: iface, member, body })

describe('classify', () => {
  it('follows org.bluez changing hands and ignores other names', () => {
    const owner = (body: unknown[]) => classify(signal('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameOwnerChanged', body), HCI0, OWNER)
    expect(owner(['org.bluez', OWNER, ''])).toEqual({ kind: 'owner', owner: undefined })
    expect(owner(['org.bluez', '', ':1.9'])).toEqual({ kind: 'owner', owner: ':1.9' })
    expect(owner(['org.example', '', ':1.9'])).toBeUndefined()
  })

  it('takes device and adapter signals from bluetoothd only', () => {
    const changed = ['org.bluez.Device1', [], []]
    expect(classify(signal(OWNER, DEV, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', changed), HCI0, OWNER)).toMatchObject({ kind: 'deviceChanged', path: DEV })
    expect(classify(signal(':1.8', DEV, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', changed), HCI0, OWNER)).toBeUndefined()
    expect(classify(signal(OWNER, DEV, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', changed), HCI0, undefined)).toBeUndefined()
    const powered = ['org.bluez.Adapter1', [['Powered', bool(false)]], []]
    expect(classify(signal(OWNER, HCI0, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', powered), HCI0, OWNER)).toEqual({ kind: 'powered', on: false })
    expect(classify(signal(':1.8', HCI0, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', powered), HCI0, OWNER)).toBeUndefined()
  })

  it('passes on the invalidated property names of a device', () => {
    const event = classify(signal(OWNER, DEV, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', ['org.bluez.Device1', [], ['RSSI', 7]]), HCI0, OWNER)
    expect(event).toMatchObject({ kind: 'deviceChanged', invalidated: ['RSSI'] })
  })

  it('keeps to its own adapter', () => {
    const other = '/org/bluez/hci1/dev_AA_BB_CC_DD_EE_01'
    expect(classify(signal(OWNER, other, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', ['org.bluez.Device1', [], []]), HCI0, OWNER)).toBeUndefined()
    expect(classify(signal(OWNER, '/', 'org.freedesktop.DBus.ObjectManager', 'InterfacesRemoved', ['/org/bluez/hci1', ['org.bluez.Adapter1']]), HCI0, OWNER)).toBeUndefined()
    expect(classify(signal(OWNER, '/', 'org.freedesktop.DBus.ObjectManager', 'InterfacesRemoved', [HCI0, ['org.bluez.Adapter1']]), HCI0, OWNER)).toEqual({ kind: 'adapterRemoved' })
    // hci10 is not under hci1.
    expect(classify(signal(OWNER, '/org/bluez/hci10/dev_AA_BB_CC_DD_EE_01', 'org.freedesktop.DBus.Properties', 'PropertiesChanged', ['org.bluez.Device1', [], []]), '/org/bluez/hci1', OWNER)).toBeUndefined()
  })

  it('ignores malformed bodies', () => {
    expect(classify(signal(OWNER, '/', 'org.freedesktop.DBus.ObjectManager', 'InterfacesAdded', [42, 'x']), HCI0, OWNER)).toBeUndefined()
    expect(classify(signal(OWNER, '/', 'org.freedesktop.DBus.ObjectManager', 'InterfacesRemoved', [DEV, 'not a list']), HCI0, OWNER)).toBeUndefined()
    expect(classify({ type: 4, sender: OWNER, member: 'PropertiesChanged', interface: 'org.freedesktop.DBus.Properties' }, HCI0, OWNER)).toBeUndefined()
  })
})
