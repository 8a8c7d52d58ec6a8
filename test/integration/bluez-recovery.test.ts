// BluezSource recovering by itself: an adapter unplugged and plugged back, powered off and
// on, and bluetoothd restarting (its bus name changing hands).
import { describe, expect, it } from 'vitest'
import { dbusUnavailable } from './dbus-harness.js'
import { bluezRig } from './bluez-rig.js'
import type { BluezRig } from './bluez-rig.js'
import { waitFor } from './wait.js'

const skip = dbusUnavailable()
const A = 'aa:bb:cc:dd:ee:01'

/** One advertisement through the current fake, waited for: proves discovery runs again. */
async function heard(rig: BluezRig, rssi: number): Promise<void> {
  await rig.fake.send({ op: 'device', adapter: 'hci0', address: A, props: { rssi } })
  await waitFor(() => rig.advs.some((a) => a.rssi === rssi), `an advertisement with RSSI ${rssi}`)
}

describe.skipIf(skip !== undefined)(`BluezSource recovery${skip === undefined ? '' : ` (${skip})`}`, () => {
  it('adapter removed (dongle unplugged) and added back: poweredOff, then discovery resumes by itself', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      await heard(rig, -50)
      await rig.fake.send({ op: 'removeAdapter', name: 'hci0' })
      await waitFor(() => rig.states.at(-1) === 'poweredOff', 'poweredOff')
      expect(rig.warnings.some((w) => /hci0 disappeared/.test(w))).toBe(true)
      expect(rig.source.stats.devices).toBe(0)
      // bluetoothd registers a re-plugged adapter unpowered first, then powers it (AutoEnable).
      await rig.fake.send({ op: 'addAdapter', name: 'hci0', powered: false })
      await rig.fake.send({ op: 'power', name: 'hci0', on: true })
      await waitFor(() => rig.states.at(-1) === 'poweredOn', 'poweredOn again')
      await waitFor(() => rig.fake.seen('StartDiscovery').length === 2, 'a second StartDiscovery')
      await heard(rig, -51)
      expect(rig.states).toEqual(['poweredOn', 'poweredOff', 'poweredOn'])
      expect(rig.source.stats.resumes).toBe(1)
      expect(rig.errors).toEqual([])
    } finally {
      await rig.cleanup()
    }
  })

  it('adapter powered off and on: poweredOff, then SetDiscoveryFilter and StartDiscovery again', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      await rig.fake.send({ op: 'power', name: 'hci0', on: false })
      await waitFor(() => rig.states.at(-1) === 'poweredOff', 'poweredOff')
      await rig.fake.send({ op: 'power', name: 'hci0', on: true })
      await waitFor(() => rig.states.at(-1) === 'poweredOn', 'poweredOn again')
      await waitFor(() => rig.fake.seen('StartDiscovery').length === 2, 'a second StartDiscovery')
      expect(await rig.fake.calls('SetDiscoveryFilter')).toHaveLength(2)
      await heard(rig, -52)
      expect(rig.errors).toEqual([])
    } finally {
      await rig.cleanup()
    }
  })

  it('bluetoothd killed and restarted (org.bluez changes owner): poweredOff, then discovery resumes on the new one', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      await heard(rig, -53)
      await rig.fake.kill()
      await waitFor(() => rig.states.at(-1) === 'poweredOff', 'poweredOff after bluetoothd died')
      expect(rig.warnings.some((w) => /bluetoothd left the D-Bus bus/.test(w))).toBe(true)
      const next = await rig.restartBluez()
      // A starting bluetoothd owns its name before it has registered the adapter.
      await waitFor(() => next.seen('GetManagedObjects').length >= 1, 'the source to look at the new bluetoothd')
      expect(rig.states.at(-1)).toBe('poweredOff')
      await next.send({ op: 'addAdapter', name: 'hci0', powered: true })
      await waitFor(() => rig.states.at(-1) === 'poweredOn', 'poweredOn on the new bluetoothd')
      await waitFor(() => next.seen('StartDiscovery').length === 1, 'StartDiscovery on the new bluetoothd')
      await heard(rig, -54)
      expect(rig.source.stats.resumes).toBe(1)
      expect(rig.errors).toEqual([])
    } finally {
      await rig.cleanup()
    }
  })

  it('a failure while resuming is reported as a typed error, and the next adapter event retries', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      await rig.fake.send({ op: 'power', name: 'hci0', on: false })
      await waitFor(() => rig.states.at(-1) === 'poweredOff', 'poweredOff')
      await rig.fake.send({ op: 'failNext', member: 'StartDiscovery', error: 'org.bluez.Error.NotAuthorized' })
      await rig.fake.send({ op: 'power', name: 'hci0', on: true })
      await waitFor(() => rig.errors.length === 1, 'the error')
      expect(rig.errors[0]).toMatchObject({ name: 'BluetoothUnavailableError', code: 'permission_denied' })
      expect(rig.errors[0].message).toMatch(/bluetooth` group/)
      expect(rig.states.at(-1)).toBe('poweredOff')
      await rig.fake.send({ op: 'power', name: 'hci0', on: true })
      await waitFor(() => rig.states.at(-1) === 'poweredOn', 'poweredOn on retry')
      await heard(rig, -55)
    } finally {
      await rig.cleanup()
    }
  })

  it('the bus itself going away stops the source with a typed error (a supervisor restarts the process)', async () => {
    const rig = await bluezRig()
    try {
      await rig.source.start()
      await rig.fake.kill()
      await rig.bus.stop()
      await waitFor(() => rig.errors.length === 1, 'the error')
      expect(rig.errors[0]).toMatchObject({ code: 'bluez_not_running' })
      expect(rig.errors[0].message).toMatch(/Lost the connection to the D-Bus system bus/)
      expect(rig.states.at(-1)).toBe('unknown')
    } finally {
      await rig.cleanup()
    }
  })
})
