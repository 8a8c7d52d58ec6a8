/**
 * Failures that used to stop a real gateway silently (issue #13, part 1), each reproduced over
 * the simulated HCI socket with noble's real HCI and GAP code. Adapter numbers 40+ (one per test).
 */

import { describe, it, expect } from 'vitest'
import { installFakeHciSocket } from './install-fake-hci.js'
import {
  ADV_IND,
  ADV_NONCONN_IND,
  ADV_SCAN_IND,
  AD_COMPLETE_LOCAL_NAME,
  AD_FLAGS,
  AD_TX_POWER_LEVEL,
  SCAN_RSP,
  AD_MANUFACTURER_SPECIFIC,
  FLAGS_LE_GENERAL_NO_BREDR,
  OP,
  STATUS_COMMAND_DISALLOWED,
  adStructure,
  iBeaconManufacturerData,
  serviceData16,
} from './hci-packets.js'
import { settle, waitFor } from './wait.js'
import { nobleRig } from './noble-rig.js'
import { NobleSource } from '../../src/sources/noble/noble.js'
import { loadNoble } from '../../src/sources/noble/load.js'
import { nobleControl } from '../../src/sources/noble/control.js'
import { VirtualClock } from '../../src/clock.js'
import { BluetoothUnavailableError } from '../../src/errors.js'
import type { Advertisement } from '../../src/advertisement.js'

const hci = installFakeHciSocket()
const flags = adStructure(AD_FLAGS, [FLAGS_LE_GENERAL_NO_BREDR])
const UUID = 'fda50693-a4e2-4fb1-afcf-c6eb07647825'

const rig = nobleRig(hci)

const iBeacon = (address: string, rssi = -60) => ({
  type: ADV_NONCONN_IND,
  address,
  data: Buffer.concat([flags, adStructure(AD_MANUFACTURER_SPECIFIC, iBeaconManufacturerData(UUID, 1, 2, -59))]),
  rssi,
})
const vendor = (address: string, rssi = -60) => ({ type: ADV_NONCONN_IND, address, data: Buffer.concat([flags, serviceData16(0x81e7, [1, 2, 3])]), rssi })
const enables = (device: ReturnType<typeof rig>['device']) => device.scanEnableCommands().filter((c) => c.enable).length

describe('1. an unplugged and re-plugged adapter', () => {
  it('gives a fatal adapter_lost error after adapterLostMs, naming the unplug (noble never re-opens its socket)', async () => {
    const clock = new VirtualClock(0)
    const { device, source, states, errors } = rig(40, { clock, adapterLostMs: 60_000 })
    await source.start()
    const control = nobleControl(await loadNoble(40))
    device.unplug()
    await waitFor(() => states.at(-1) === 'poweredOff', "state 'poweredOff'")
    device.replug()
    // noble sees the adapter up again, re-initialises over its old socket, and every write fails.
    await waitFor(() => control?.lastSocketError?.code === 'EBADFD', 'noble writing to the detached socket')
    expect(states.at(-1)).toBe('poweredOff')
    clock.advanceBy(59_999)
    expect(errors).toHaveLength(0)
    clock.advanceBy(1)
    expect(errors).toHaveLength(1)
    const error = errors[0] as BluetoothUnavailableError
    expect(error).toBeInstanceOf(BluetoothUnavailableError)
    expect(error.code).toBe('adapter_lost')
    expect(error.message).toMatch(/hci40 was unplugged or re-attached \(EBADFD/)
    expect(error.message).toMatch(/Restart the process/)
    await source.stop()
  })

  it('an adapter that only went down and came back is not reported lost', async () => {
    const clock = new VirtualClock(0)
    const { device, source, states, errors } = rig(41, { clock, adapterLostMs: 60_000 })
    await source.start()
    device.powerOff()
    await waitFor(() => states.at(-1) === 'poweredOff', "state 'poweredOff'")
    device.powerOn()
    await waitFor(() => source.stats.resumes === 1, 'scanning resumed')
    clock.advanceBy(120_000)
    expect(errors).toHaveLength(0)
    await source.stop()
  })
})

describe('3. another program enabling scanning with duplicate filtering', () => {
  it('is detected, warned about with the likely cause, and scanning is re-asserted without filtering', async () => {
    const clock = new VirtualClock(0)
    const { device, source, ads, warnings } = rig(42, { clock })
    await source.start()
    // bluetoothd's discovery: LE Set Scan Enable (enable, filter duplicates) on the same adapter.
    device.foreignCommand(OP.LE_SET_SCAN_ENABLE, [1, 1])
    expect(device.filterDuplicates).toBe(true)
    expect(warnings.some((w) => /duplicate filtering \(bluetoothd discovery/.test(w))).toBe(true)
    // Meanwhile the controller passes each advertisement once: the beacon would go silent.
    device.inject(iBeacon('d0:00:00:00:00:42'))
    expect(device.inject(iBeacon('d0:00:00:00:00:42'))).toBe(false)
    expect(ads).toHaveLength(1)
    ads.length = 0
    clock.advanceBy(1000)
    await waitFor(() => device.scanEnabled && !device.filterDuplicates && source.stats.resumes === 1, 're-enabled without filtering')
    device.inject(iBeacon('d0:00:00:00:00:42'))
    device.inject(iBeacon('d0:00:00:00:00:42'))
    expect(ads).toHaveLength(2)
    await source.stop()
  })
})

describe('4. two noble users of one adapter', () => {
  it('another process restarting its scan each time: resumes back off (1, 2, 4, 8 s) and one warning names the cause', async () => {
    const clock = new VirtualClock(0)
    const { device, source, warnings } = rig(43, { clock })
    await source.start()
    // The other process begins every scan start with a disable that this one sees.
    device.on('scanEnable', (on: boolean) => {
      if (on) setImmediate(() => device.foreignCommand(OP.LE_SET_SCAN_ENABLE, [0, 0]))
    })
    device.foreignCommand(OP.LE_SET_SCAN_ENABLE, [0, 0])
    for (const delay of [1000, 2000, 4000, 8000]) {
      const before = enables(device)
      clock.advanceBy(delay - 1)
      await settle()
      expect(enables(device)).toBe(before)
      clock.advanceBy(1)
      await waitFor(() => enables(device) > before, `resume after ${delay} ms`)
      await waitFor(() => !device.scanEnabled, 'stopped again by the other process')
      await settle()
    }
    const loops = warnings.filter((w) => /interrupted 3 times in a row/.test(w))
    expect(loops).toHaveLength(1)
    expect(loops[0]).toMatch(/second process scanning it with noble/)
    await source.stop()
  })

  it('NOBLE_HCI_DEVICE_ID and an explicit hciDeviceId naming one adapter share one noble instance', async () => {
    process.env.NOBLE_HCI_DEVICE_ID = '44'
    try {
      const byEnv = await loadNoble(undefined)
      const explicit = await loadNoble(44)
      expect(byEnv).toBe(explicit)
    } finally {
      delete process.env.NOBLE_HCI_DEVICE_ID
    }
  })
})

describe('4. one adapter under two names in one process', () => {
  it('the default adapter and hciDeviceId 0 are recognised as one controller by its address, with a warning', async () => {
    const byDefault = rig(0, {})
    const source = new NobleSource({}) // noble's default: the first adapter up, hci0 here
    const warnings: string[] = []
    source.on('warning', (w) => warnings.push(w))
    await byDefault.source.start()
    await source.start()
    expect(warnings.some((w) => /hciDeviceId 0 and this source's adapter are the same controller \(00:1a:7d:da:71:00\)/.test(w))).toBe(true)
    await source.stop()
    await byDefault.source.stop()
  })
})

describe('5. scan starts the controller refuses or never confirms', () => {
  it.each(['complete', 'status'] as const)(
    'a refused enable (Command Disallowed via Command %s) is retried with back-off; start() resolves only once scanning runs',
    async (via) => {
      const id = via === 'complete' ? 45 : 46
      const clock = new VirtualClock(0)
      const { device, source, warnings } = rig(id, { clock })
      device.failCommand(OP.LE_SET_SCAN_ENABLE, { status: STATUS_COMMAND_DISALLOWED, via, match: (p) => p[0] === 1 })
      let started = false
      const starting = source.start().then(() => (started = true))
      await waitFor(() => warnings.some((w) => /refused LE Set Scan Enable: Command Disallowed \(0x0c\)\); retrying in 1 s/.test(w)), 'the refusal reported')
      expect(started).toBe(false)
      expect(device.scanEnabled).toBe(false)
      clock.advanceBy(1000)
      await starting
      expect(device.scanEnabled).toBe(true)
      expect(source.stats.scanFailures).toBe(1)
      await source.stop()
    },
  )

  it('an enable lost after a power cycle is noticed and retried; the resume is counted only once scanning runs', async () => {
    const clock = new VirtualClock(0)
    const { device, source, states, warnings } = rig(47, { clock })
    await source.start()
    device.powerOff()
    await waitFor(() => states.at(-1) === 'poweredOff', "state 'poweredOff'")
    device.failCommand(OP.LE_SET_SCAN_ENABLE, { status: 0, via: 'silence', match: (p) => p[0] === 1 })
    device.powerOn()
    await waitFor(() => states.at(-1) === 'poweredOn', "state 'poweredOn'")
    await settle(20)
    expect(device.scanEnabled).toBe(false)
    expect(source.stats.resumes).toBe(0)
    clock.advanceBy(5000)
    expect(warnings.some((w) => /did not confirm it within 5 s/.test(w))).toBe(true)
    clock.advanceBy(1000)
    await waitFor(() => device.scanEnabled && source.stats.resumes === 1, 'scanning retried and confirmed')
    await source.stop()
  })
})

describe('6. a reset while the adapter stays up (hciconfig reset, a sub-second down/up)', () => {
  it('re-enables scanning at once, without waiting for the watchdog', async () => {
    const clock = new VirtualClock(0) // never advanced: only a prompt re-enable can pass
    const { device, source, warnings } = rig(48, { clock })
    await source.start()
    device.resetWhileUp()
    expect(device.scanEnabled).toBe(false)
    await waitFor(() => device.scanEnabled && source.stats.resumes === 1, 'scanning re-enabled after the reset')
    expect(warnings.some((w) => /hci48 was reset/.test(w))).toBe(true)
    expect(source.stats.watchdogRestarts).toBe(0)
    await source.stop()
  })
})

describe('7. scan responses, ADV_SCAN_IND and stale fields', () => {
  const mfg = (minor: number) => adStructure(AD_MANUFACTURER_SPECIFIC, iBeaconManufacturerData(UUID, 1, minor, -59))
  const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'))

  it('a beacon whose scan responses are lost is still reported: each held advertisement comes out when the next one arrives', async () => {
    const { device, source, ads } = rig(52)
    await source.start()
    const address = 'd0:00:00:00:00:52'
    // One full cycle: advertisement and scan response, reported together (one snapshot).
    device.inject({ type: ADV_IND, address, data: Buffer.concat([flags, mfg(1)]), rssi: -50 })
    device.inject({ type: SCAN_RSP, address, data: serviceData16(0x81e7, [9, 9]), rssi: -51 })
    expect(ads).toHaveLength(1)
    expect(hex(ads[0].manufacturerData)).toBe(hex(mfg(1).subarray(2)))
    expect(ads[0].serviceData).toEqual([{ uuid: '81e7', data: new Uint8Array([9, 9]) }])
    // Then the scan responses are lost: noble alone would report nothing more.
    device.inject({ type: ADV_IND, address, data: Buffer.concat([flags, mfg(2)]), rssi: -52 })
    device.inject({ type: ADV_IND, address, data: Buffer.concat([flags, mfg(3)]), rssi: -53 })
    device.inject({ type: ADV_IND, address, data: Buffer.concat([flags, mfg(4)]), rssi: -54 })
    expect(ads.map((a) => a.rssi)).toEqual([-51, -52, -53])
    expect(ads.slice(1).map((a) => hex(a.manufacturerData))).toEqual([hex(mfg(2).subarray(2)), hex(mfg(3).subarray(2))])
    expect(ads.slice(1).every((a) => a.serviceData === undefined && a.connectable === true)).toBe(true)
    // A scan response that arrives again pairs with its advertisement, as before.
    device.inject({ type: SCAN_RSP, address, data: serviceData16(0x81e7, [8, 8]), rssi: -55 })
    expect(ads).toHaveLength(4)
    expect(hex(ads[3].manufacturerData)).toBe(hex(mfg(4).subarray(2)))
    expect(ads[3].serviceData).toEqual([{ uuid: '81e7', data: new Uint8Array([8, 8]) }])
    await source.stop()
  })

  it('ADV_SCAN_IND is scannable, not connectable: the advertisement and its scan response say connectable false', async () => {
    const { device, source, ads } = rig(53)
    await source.start()
    const address = 'd0:00:00:00:00:53'
    device.inject({ type: ADV_SCAN_IND, address, data: Buffer.concat([flags, mfg(1)]), rssi: -50 })
    device.inject({ type: SCAN_RSP, address, data: serviceData16(0x81e7, [1]), rssi: -50 })
    device.inject({ type: ADV_SCAN_IND, address, data: Buffer.concat([flags, mfg(2)]), rssi: -50 })
    device.inject({ type: ADV_IND, address: 'd0:00:00:00:00:54', data: flags, rssi: -50 })
    device.inject({ type: SCAN_RSP, address: 'd0:00:00:00:00:54', data: flags, rssi: -50 })
    expect(ads.filter((a) => a.address === address).map((a) => a.connectable)).toEqual([false])
    expect(ads.find((a) => a.address === 'd0:00:00:00:00:54')?.connectable).toBe(true)
    device.inject({ type: SCAN_RSP, address, data: serviceData16(0x81e7, [2]), rssi: -50 })
    expect(ads.filter((a) => a.address === address).map((a) => a.connectable)).toEqual([false, false])
    await source.stop()
  })

  it('localName and txPowerLevel come only from the packet that carried them, not from an earlier one', async () => {
    const { device, source, ads } = rig(55)
    await source.start()
    const address = 'd0:00:00:00:00:55'
    const named = Buffer.concat([flags, adStructure(AD_COMPLETE_LOCAL_NAME, Buffer.from('fridge-7')), adStructure(AD_TX_POWER_LEVEL, [0xf4])])
    device.inject({ type: ADV_NONCONN_IND, address, data: named, rssi: -50 })
    device.inject({ type: ADV_NONCONN_IND, address, data: Buffer.concat([flags, mfg(1)]), rssi: -50 })
    expect(ads[0]).toMatchObject({ localName: 'fridge-7', txPowerLevel: -12 })
    expect(ads[1].localName).toBeUndefined()
    expect(ads[1].txPowerLevel).toBeUndefined()
    await source.stop()
  })

  it('several reports in one HCI event, with every address type, are each reported', async () => {
    const { device, source, ads } = rig(56)
    await source.start()
    const reports = ([0, 1, 2, 3] as const).map((addressType, i) => ({ ...iBeacon(`d0:00:00:00:01:5${i}`, -60 - i), addressType }))
    expect(device.injectMany(reports)).toBe(4)
    expect(ads.map((a) => [a.address, a.rssi])).toEqual(reports.map((r) => [r.address, r.rssi]))
    // Types 2 and 3 (identity addresses) need a resolving list, which noble never sets up.
    expect(ads.slice(0, 2).map((a) => a.addressType)).toEqual(['public', 'random'])
    await source.stop()
  })
})

describe('8. sources sharing one adapter, noble internals, permissions', () => {
  it("one source's service filter does not starve another on the same adapter", async () => {
    const all = rig(49)
    const only = new NobleSource({ hciDeviceId: 49, serviceUuids: ['81e7'] })
    const onlyAds: Advertisement[] = []
    only.on('advertisement', (a) => onlyAds.push(a))
    await all.source.start()
    await only.start() // started last: its filter used to become noble's only filter
    all.device.inject(iBeacon('d0:00:00:00:00:49'))
    all.device.inject(vendor('d0:00:00:00:00:4a'))
    expect(all.ads.map((a) => a.address)).toEqual(['d0:00:00:00:00:49', 'd0:00:00:00:00:4a'])
    expect(onlyAds.map((a) => a.address)).toEqual(['d0:00:00:00:00:4a'])
    await only.stop()
    await all.source.stop()
  })

  it('warns at start when noble lacks an internal map that pruning relies on', async () => {
    const noble = await loadNoble(50)
    const gap = noble._bindings?._gap
    expect(gap?._discoveries).toBeTypeOf('object')
    const saved = gap?._discoveries
    delete gap?._discoveries
    try {
      const { source, warnings } = rig(50)
      await source.start()
      expect(warnings.some((w) => /GAP layer has no _discoveries map: pruning cannot bound its memory/.test(w))).toBe(true)
      await source.stop()
    } finally {
      if (gap !== undefined) gap._discoveries = saved
    }
  })

  it("no CAP_NET_RAW on Linux: the first write fails with EPERM, noble says 'unauthorized' → unauthorized with the setcap fix", async () => {
    hci.device(51).writeError = 'EPERM'
    const { source } = rig(51)
    const error = await source.start().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(BluetoothUnavailableError)
    expect((error as BluetoothUnavailableError).code).toBe('unauthorized')
    expect((error as Error).message).toMatch(/EPERM/)
    expect((error as Error).message).toMatch(/setcap cap_net_raw\+eip/)
  })
})
