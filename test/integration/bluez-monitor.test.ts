// BluezSource's passive advertisement monitor: registered where bluetoothd offers it (that is
// what turns the controller's duplicate filter off), a warning where it does not, and
// registered again after bluetoothd or the adapter come back.
import { describe, expect, it } from 'vitest'
import { dbusUnavailable } from './dbus-harness.js'
import { bluezRig } from './bluez-rig.js'
import { waitFor } from './wait.js'

const skip = dbusUnavailable()

describe.skipIf(skip !== undefined)(`BluezSource advertisement monitor${skip === undefined ? '' : ` (${skip})`}`, () => {
  it('registers an or_patterns monitor for the beacon frames when bluetoothd offers AdvertisementMonitorManager1', async () => {
    const rig = await bluezRig({ adapter: { powered: true, monitor: true } })
    try {
      await rig.source.start()
      expect(rig.source.stats.monitoring).toBe(true)
      const [hci0] = await rig.fake.state()
      expect(hci0.monitors).toHaveLength(1)
      // One monitor object, as bluetoothd read it from our ObjectManager (dbus-native's raw form).
      const [props] = JSON.parse(hci0.monitors[0]) as [string, [unknown, [unknown]]][][]
      // bluetoothd read it back through our ObjectManager: the type and the four patterns.
      const text = JSON.stringify(props)
      expect(text).toContain('"or_patterns"')
      const patterns = props.find(([name]) => name === 'Patterns')?.[1][1][0] as [number, number, { data: number[] }][]
      expect(patterns.map(([pos, type, bytes]) => [pos, type, bytes.data])).toEqual([
        [0, 0xff, [0x4c, 0x00]],
        [0, 0x16, [0xe7, 0x80]],
        [0, 0x16, [0xe7, 0x81]],
        [0, 0x16, [0xaa, 0xfe]],
      ])
      expect((await rig.fake.calls()).map((c) => c.call)).toEqual(['GetManagedObjects', 'SetDiscoveryFilter', 'StartDiscovery', 'RegisterMonitor'])
      expect(rig.warnings).toEqual([])
    } finally {
      await rig.cleanup()
    }
  })

  it('without the monitor manager (stock bluetoothd): one warning saying what to enable, and scanning goes on', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      expect(rig.source.stats.monitoring).toBe(false)
      expect(rig.warnings).toHaveLength(1)
      expect(rig.warnings[0]).toMatch(/Experimental = true/)
      await rig.fake.send({ op: 'power', name: 'hci0', on: false })
      await rig.fake.send({ op: 'power', name: 'hci0', on: true })
      // poweredOn comes after the monitor step of the resume.
      await waitFor(() => rig.states.filter((st) => st === 'poweredOn').length === 2, 'poweredOn again')
      // Not repeated on every resume.
      expect(rig.warnings.filter((w) => /Experimental/.test(w))).toHaveLength(1)
    } finally {
      await rig.cleanup()
    }
  })

  it('monitor: false registers nothing and says nothing', async () => {
    const rig = await bluezRig({ adapter: { powered: true, monitor: true }, source: { monitor: false } })
    try {
      await rig.source.start()
      expect(await rig.fake.calls('RegisterMonitor')).toHaveLength(0)
      expect(rig.warnings).toEqual([])
    } finally {
      await rig.cleanup()
    }
  })

  it('a refused registration is a warning, not a failed start', async () => {
    const rig = await bluezRig({ adapter: { powered: true, monitor: true } })
    try {
      await rig.fake.send({ op: 'failNext', member: 'RegisterMonitor', error: 'org.bluez.Error.Failed' })
      await rig.source.start()
      expect(rig.source.stats.monitoring).toBe(false)
      expect(rig.warnings[0]).toMatch(/refused our advertisement monitor.*org\.bluez\.Error\.Failed/)
    } finally {
      await rig.cleanup()
    }
  })

  it('registers again on a restarted bluetoothd and on a re-plugged adapter', async () => {
    const rig = await bluezRig({ adapter: { powered: true, monitor: true } })
    try {
      await rig.source.start()
      await rig.fake.kill()
      await waitFor(() => rig.states.at(-1) === 'poweredOff', 'poweredOff')
      expect(rig.source.stats.monitoring).toBe(false)
      const next = await rig.restartBluez()
      await next.send({ op: 'addAdapter', name: 'hci0', powered: true, monitor: true })
      await waitFor(() => rig.source.stats.monitoring, 'the monitor on the new bluetoothd')
      expect((await next.state())[0].monitors).toHaveLength(1)
      await next.send({ op: 'removeAdapter', name: 'hci0' })
      await waitFor(() => !rig.source.stats.monitoring, 'the monitor gone with the adapter')
      await next.send({ op: 'addAdapter', name: 'hci0', powered: true, monitor: true })
      await waitFor(() => rig.source.stats.monitoring, 'the monitor on the re-plugged adapter')
      expect((await next.state())[0].monitors).toHaveLength(1)
      expect(rig.errors).toEqual([])
    } finally {
      await rig.cleanup()
    }
  })
})
