/**
 * NobleSource against real noble, whose HCI socket is the user-space fake: noble's own HCI and
 * GAP code parse every packet. Each test uses its own adapter number, so its noble instance
 * and fake controller start clean.
 */

import { describe, it, expect } from 'vitest'
import { installFakeHciSocket } from './install-fake-hci.js'
import {
  ADV_IND,
  ADV_NONCONN_IND,
  AD_FLAGS,
  AD_MANUFACTURER_SPECIFIC,
  AD_TX_POWER_LEVEL,
  FLAGS_LE_GENERAL_NO_BREDR,
  OP,
  SCAN_RSP,
  adStructure,
  iBeaconManufacturerData,
  serviceData16,
} from './hci-packets.js'
import { settle, waitFor } from './wait.js'
import { nobleRig } from './noble-rig.js'
import { NobleSource } from '../../src/sources/noble/noble.js'
import { loadNoble } from '../../src/sources/noble/load.js'
import { VirtualClock } from '../../src/clock.js'
import { BluetoothUnavailableError } from '../../src/errors.js'
import { decodeAdvertisement } from '../../src/decode/decode.js'
import { encodeIBeacon } from '../../src/frames/ibeacon.js'
import { E781_MODE, encodeE781 } from '../../src/frames/e781.js'
import type { Advertisement } from '../../src/advertisement.js'
import { advertisementSourceContract } from '../sources/source-contract.js'

const hci = installFakeHciSocket()
const UUID = 'fda50693-a4e2-4fb1-afcf-c6eb07647825'
const flags = adStructure(AD_FLAGS, [FLAGS_LE_GENERAL_NO_BREDR])
const hex = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString('hex'))

const rig = nobleRig(hci)

function beaconPacket(address: string, rssi = -60) {
  const data = Buffer.concat([flags, adStructure(AD_MANUFACTURER_SPECIFIC, iBeaconManufacturerData(UUID, 1, 2, -59))])
  return { type: ADV_NONCONN_IND, address, data, rssi }
}

async function rejection(promise: Promise<unknown>): Promise<BluetoothUnavailableError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(BluetoothUnavailableError)
    return error as BluetoothUnavailableError
  }
  throw new Error('expected start() to reject')
}

// The contract every source meets, with noble's own HCI and GAP code in the loop: a fresh fake
// adapter per case, a beacon on it advertising every 20 ms (delivered only while noble scans).
let contractAdapter = 40
advertisementSourceContract('NobleSource over real noble and a fake HCI socket', () => {
  const id = contractAdapter++
  const device = hci.device(id)
  let n = 0
  const timer = setInterval(() => device.inject(beaconPacket('d0:00:00:00:00:40', -60 - (n++ % 5))), 20)
  return { source: new NobleSource({ hciDeviceId: id }), cleanup: () => clearInterval(timer) }
})

describe('NobleSource over real noble and a fake HCI socket', () => {
  it('starts an active scan with duplicates allowed once the adapter is powered on', async () => {
    const { device, source, states } = rig(10)
    await source.start()
    expect(states).toContain('poweredOn')
    const enables = device.scanEnableCommands()
    expect(enables.at(-1)).toEqual({ enable: true, filterDuplicates: false })
    const parameters = device.commands.filter((c) => c.opcode === OP.LE_SET_SCAN_PARAMETERS).at(-1)
    expect(parameters?.params[0]).toBe(1) // 1 = active scanning: scan responses are requested
    await source.start() // a second start while running is a no-op
    expect(device.scanEnableCommands()).toHaveLength(enables.length)
    await source.stop()
  })

  it('emits one snapshot carrying the iBeacon advertisement and the 0x81E7 scan response; the decoder reads both', async () => {
    const clock = new VirtualClock(1_700_000_000_000)
    const { device, source, ads } = rig(11, { clock })
    await source.start()
    const address = 'd0:00:00:00:00:01'
    const ibeacon = encodeIBeacon({ proximityUUID: UUID.toUpperCase(), major: 3, minor: 4, measuredPower: -59 })
    const e781 = encodeE781({
      mode: E781_MODE.full,
      hardwareModelName: 'C0',
      firmwareVersion: '4.1',
      serialNumber: '0117C5456A36',
      major: 10,
      minor: 20,
      batteryLevel: 88,
    })
    device.inject({ type: ADV_IND, address, data: Buffer.concat([flags, adStructure(AD_MANUFACTURER_SPECIFIC, ibeacon)]), rssi: -58 })
    device.inject({ type: SCAN_RSP, address, data: serviceData16(0x81e7, e781), rssi: -57 })
    await settle()
    expect(ads).toHaveLength(1)
    expect(ads[0]).toMatchObject({ address, rssi: -57, timestamp: 1_700_000_000_000, connectable: true, addressType: 'public' })
    expect(hex(ads[0].manufacturerData)).toBe(hex(ibeacon))
    expect(ads[0].serviceData).toEqual([{ uuid: '81e7', data: e781 }])
    expect(source.clock).toBe(clock)
    expect(source.stats.advertisements).toBe(1)

    const reading = decodeAdvertisement(ads[0])
    expect(new Set(reading?.frames)).toEqual(new Set(['ibeacon', 'e781']))
    expect(reading).toMatchObject({
      proximityUUID: UUID.toUpperCase(),
      serialNumber: '0117C5456A36',
      major: 10,
      minor: 20,
      batteryLevel: 88,
      beaconID: `${UUID.toUpperCase()}|10|20`,
    })

    // Next cycle: the advertisement is lost, only a scan response arrives. noble still holds the
    // iBeacon bytes of the previous cycle; the reading must carry the vendor frame alone.
    clock.advanceBy(1000)
    device.inject({ type: SCAN_RSP, address, data: serviceData16(0x81e7, e781), rssi: -56 })
    await settle()
    expect(ads).toHaveLength(2)
    expect(ads[1].manufacturerData).toBeUndefined()
    expect(decodeAdvertisement(ads[1])?.frames).toEqual(['e781'])
    await source.stop()
  })

  it('serviceUuids limits reports to devices carrying that service (service data counts)', async () => {
    const { device, source, ads } = rig(19, { serviceUuids: ['81E7'] })
    await source.start()
    device.inject(beaconPacket('d0:00:00:00:00:19'))
    device.inject({ type: ADV_NONCONN_IND, address: 'd0:00:00:00:00:1a', data: Buffer.concat([flags, serviceData16(0x81e7, [1, 2])]), rssi: -50 })
    await settle()
    expect(ads.map((a) => a.address)).toEqual(['d0:00:00:00:00:1a'])
    await source.stop()
  })

  it('malformed advertising data never crashes the source; later packets still arrive', async () => {
    const { device, source, ads } = rig(25)
    await source.start()
    const address = 'd0:00:00:00:00:25'
    const warn = console.warn
    const warned: unknown[] = []
    console.warn = (...args: unknown[]) => void warned.push(args)
    try {
      // A Tx Power Level structure without its byte: noble's parser throws on it and its HCI layer catches that.
      device.inject({ type: ADV_NONCONN_IND, address, data: Buffer.from([0x01, AD_TX_POWER_LEVEL]), rssi: -50 })
      // An AD length running past the end of the data: noble stops parsing there.
      device.inject({ type: ADV_NONCONN_IND, address: 'd0:00:00:00:00:26', data: Buffer.from([0x1e, AD_MANUFACTURER_SPECIFIC, 0x4c]), rssi: -50 })
      // A report whose data length claims more bytes than the event carries.
      device.deliver(Buffer.from([0x04, 0x3e, 0x0c, 0x02, 0x01, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0x1f, 0x02]))
      await settle()
    } finally {
      console.warn = warn
    }
    expect(warned.length).toBeGreaterThan(0)
    expect(ads.every((a) => a.manufacturerData === undefined && a.txPowerLevel === undefined)).toBe(true)
    device.inject(beaconPacket(address))
    await settle()
    expect(hex(ads.at(-1)?.manufacturerData)).toBe(hex(iBeaconManufacturerData(UUID, 1, 2, -59)))
    await source.stop()
  })

  it('resumes scanning after the adapter is powered off and on', async () => {
    const { device, source, ads, states } = rig(12)
    await source.start()
    device.powerOff()
    await waitFor(() => states.at(-1) === 'poweredOff', "state 'poweredOff'")
    expect(device.inject(beaconPacket('d0:00:00:00:00:02'))).toBe(false)
    const enablesBefore = device.scanEnableCommands().filter((c) => c.enable).length
    device.powerOn()
    await waitFor(() => states.at(-1) === 'poweredOn', "state 'poweredOn' again")
    await waitFor(() => device.scanEnableCommands().filter((c) => c.enable).length > enablesBefore, 'scan re-enabled')
    await waitFor(() => source.stats.resumes === 1, 'resume counted')
    expect(device.inject(beaconPacket('d0:00:00:00:00:02'))).toBe(true)
    await settle()
    expect(ads.map((a) => a.address)).toEqual(['d0:00:00:00:00:02'])
    await source.stop()
  })

  it('restarts a silently stalled scan from the watchdog and warns', async () => {
    const clock = new VirtualClock(0)
    const { device, source, ads, warnings } = rig(13, { clock, watchdogMs: 30_000 })
    await source.start()
    clock.advanceBy(20_000)
    expect(device.inject(beaconPacket('d0:00:00:00:00:03'))).toBe(true)
    device.stall()
    expect(device.inject(beaconPacket('d0:00:00:00:00:03'))).toBe(false)
    const enablesBefore = device.scanEnableCommands().filter((c) => c.enable).length

    clock.advanceBy(29_999) // 29.999 s since the last advertisement: not yet
    expect(source.stats.watchdogRestarts).toBe(0)
    clock.advanceBy(1)
    expect(source.stats.watchdogRestarts).toBe(1)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/No advertisement for 30 s/)
    await waitFor(() => device.scanEnableCommands().filter((c) => c.enable).length > enablesBefore, 'scan re-enabled by the watchdog')
    expect(device.stalled).toBe(false)
    expect(device.inject(beaconPacket('d0:00:00:00:00:03'))).toBe(true)
    await settle()
    expect(ads).toHaveLength(2)

    // With nothing on air the watchdog backs off: next restart after 60 s, then 120 s.
    clock.advanceBy(30_000)
    expect(source.stats.watchdogRestarts).toBe(2)
    await settle() // the controller confirms the restarted scan (it answers in real time)
    clock.advanceBy(59_999)
    expect(source.stats.watchdogRestarts).toBe(2)
    clock.advanceBy(1)
    expect(source.stats.watchdogRestarts).toBe(3)
    await source.stop()
    clock.advanceBy(1_000_000)
    expect(source.stats.watchdogRestarts).toBe(3)
  })

  it('resumes when another program stops the scan', async () => {
    const clock = new VirtualClock(0)
    const { device, source, warnings } = rig(14, { clock })
    await source.start()
    device.foreignCommand(OP.LE_SET_SCAN_ENABLE, [0, 0])
    expect(warnings.some((w) => /stopped outside beaconkit/.test(w))).toBe(true)
    const enablesBefore = device.scanEnableCommands().filter((c) => c.enable).length
    clock.advanceBy(1000)
    await waitFor(() => device.scanEnableCommands().filter((c) => c.enable).length > enablesBefore, 'scan re-enabled')
    await waitFor(() => source.stats.resumes === 1, 'resume counted')
    expect(device.scanEnabled).toBe(true)
    await source.stop()
  })

  it('keeps noble’s per-address maps bounded when 10,000 random addresses pass by', async () => {
    const clock = new VirtualClock(0)
    // No watchdog here: its restart would also reset noble's _discoveredPeripheralUUids.
    const { device, source, ads } = rig(15, { clock, pruneIntervalMs: 60_000, watchdogMs: 0 })
    await source.start()
    const noble = await loadNoble(15)
    const sizes = () => ({
      peripherals: Object.keys(noble._peripherals ?? {}).length,
      discovered: Object.keys(noble._discoveredPeripheralUUids ?? {}).length,
      services: Object.keys(noble._services ?? {}).length,
      addresses: Object.keys(noble._bindings?._addresses ?? {}).length,
      gap: Object.keys(noble._bindings?._gap?._discoveries ?? {}).length,
    })
    const random = (i: number) => `4${(i >> 16) & 0xf}:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}:aa:bb:cc`
    const stay = 'd0:00:00:00:00:04'
    for (let i = 0; i < 10_000; i++) device.inject({ ...beaconPacket(random(i), -90), addressType: 1 })
    device.inject(beaconPacket(stay))
    expect(sizes()).toEqual({ peripherals: 10_001, discovered: 10_001, services: 10_001, addresses: 10_001, gap: 10_001 })

    clock.advanceBy(60_000) // first pass: everyone was heard in this period
    expect(sizes().gap).toBe(10_001)
    device.inject(beaconPacket(stay))
    clock.advanceBy(60_000) // second pass: the random addresses were silent for a whole period
    expect(sizes()).toEqual({ peripherals: 1, discovered: 1, services: 1, addresses: 1, gap: 1 })
    expect(source.stats.prunedPeripherals).toBe(10_000)
    expect(source.stats.prunedAddresses).toBe(10_000)

    // noble keeps working for the survivor and for a returning address.
    const before = ads.length
    device.inject(beaconPacket(stay))
    device.inject(beaconPacket(random(7)))
    expect(ads.slice(before).map((a) => a.address)).toEqual([stay, random(7)])
    expect(hex(ads.at(-1)?.manufacturerData)).toBe(hex(iBeaconManufacturerData(UUID, 1, 2, -59)))
    await source.stop()
  })

  it('stop() disables scanning and removes its noble listeners; safe twice; start() works again', async () => {
    const { device, source, ads } = rig(16)
    const noble = await loadNoble(16)
    const baseline = {
      discover: listenerCount(noble, 'discover'),
      stateChange: listenerCount(noble, 'stateChange'),
      scanStart: listenerCount(noble, 'scanStart'),
      scanStop: listenerCount(noble, 'scanStop'),
      warning: listenerCount(noble, 'warning'),
    }
    await source.start()
    expect(listenerCount(noble, 'discover')).toBe(baseline.discover + 1)
    await source.stop()
    await source.stop()
    expect({
      discover: listenerCount(noble, 'discover'),
      stateChange: listenerCount(noble, 'stateChange'),
      scanStart: listenerCount(noble, 'scanStart'),
      scanStop: listenerCount(noble, 'scanStop'),
      warning: listenerCount(noble, 'warning'),
    }).toEqual(baseline)
    await waitFor(() => !device.scanEnabled, 'scan disabled')
    expect(device.scanEnableCommands().at(-1)?.enable).toBe(false)

    await source.start()
    expect(device.scanEnabled).toBe(true)
    expect(device.inject(beaconPacket('d0:00:00:00:00:05'))).toBe(true)
    expect(ads).toHaveLength(1)
    await source.stop()
  })

  it("removes noble's SIGINT listener (it calls process.exit(1)), by identity, and leaves other listeners alone", async () => {
    const mine = (): void => {}
    process.on('SIGINT', mine)
    try {
      const noble = await loadNoble(26)
      const nobles = noble._bindings?.onSigIntBinded
      expect(typeof nobles).toBe('function')
      expect(process.listeners('SIGINT')).not.toContain(nobles)
      expect(process.listeners('SIGINT')).toContain(mine)
    } finally {
      process.removeListener('SIGINT', mine)
    }
  })

  it('two sources on one adapter: stopping one keeps the other scanning', async () => {
    const a = rig(18)
    const b = new NobleSource({ hciDeviceId: 18 })
    const bAds: Advertisement[] = []
    b.on('advertisement', (adv) => bAds.push(adv))
    await a.source.start()
    await b.start()
    await a.source.stop()
    await settle()
    expect(a.device.scanEnabled).toBe(true)
    expect(a.device.inject(beaconPacket('d0:00:00:00:00:18'))).toBe(true)
    expect(bAds).toHaveLength(1)
    expect(a.ads).toHaveLength(0)
    await b.stop()
    await waitFor(() => !a.device.scanEnabled, 'scan disabled by the last source')
  })

  it('stop() during start() resolves the pending start without scanning', async () => {
    const { device, source } = rig(17)
    const starting = source.start()
    await source.stop()
    await expect(starting).resolves.toBeUndefined()
    await settle(20)
    expect(device.scanEnableCommands().filter((c) => c.enable)).toHaveLength(0)
  })
})

describe('NobleSource start failures', () => {
  it('no adapter at hciN → no_adapter, naming the adapter and the option', async () => {
    hci.missing.add(20)
    const error = await rejection(new NobleSource({ hciDeviceId: 20 }).start())
    expect(error.code).toBe('no_adapter')
    expect(error.message).toMatch(/hci20/)
    expect(error.message).toMatch(/hciDeviceId/)
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENODEV')
    hci.missing.delete(20)
  })

  it('no raw-socket permission → permission_denied with the setcap fix', async () => {
    hci.constructError = 'EPERM'
    try {
      const error = await rejection(new NobleSource({ hciDeviceId: 21 }).start())
      expect(error.code).toBe('permission_denied')
      expect(error.message).toMatch(/setcap cap_net_raw\+eip/)
    } finally {
      hci.constructError = undefined
    }
    // The failed attempt is not cached: the next start() tries again and works.
    const source = new NobleSource({ hciDeviceId: 21 })
    await source.start()
    await source.stop()
  })

  it("an adapter older than Bluetooth 4.0 → noble's 'unsupported' → unsupported", async () => {
    hci.device(22).hciVersion = 0x05
    const { source, states } = rig(22)
    const error = await rejection(source.start())
    expect(error.code).toBe('unsupported')
    expect(states).toContain('unsupported')
  })

  it('an adapter that is down → powered_off with rfkill/hciconfig advice', async () => {
    hci.device(23).powerOff()
    const error = await rejection(new NobleSource({ hciDeviceId: 23 }).start())
    expect(error.code).toBe('powered_off')
    expect(error.message).toMatch(/rfkill unblock bluetooth/)
    expect(error.message).toMatch(/hciconfig hci23 up/)
  })

  it('a controller that never answers → start_failed after startTimeoutMs', async () => {
    hci.device(24).responsive = false
    const clock = new VirtualClock(0)
    const source = new NobleSource({ hciDeviceId: 24, clock, startTimeoutMs: 5000 })
    const starting = source.start()
    await settle()
    clock.advanceBy(5000)
    const error = await rejection(starting)
    expect(error.code).toBe('start_failed')
    expect(error.message).toMatch(/5000 ms/)
  })
})

function listenerCount(emitter: unknown, event: string): number {
  return (emitter as { listenerCount(e: string): number }).listenerCount(event)
}
