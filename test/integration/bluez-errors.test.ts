// BluezSource start() failures: each D-Bus failure maps to a typed BluetoothUnavailableError
// whose message says what to do.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BluetoothUnavailableError, InvalidOptionError } from '../../src/errors.js'
import { BluezSource } from '../../src/sources/bluez/bluez.js'
import { dbusUnavailable } from './dbus-harness.js'
import { bluezRig } from './bluez-rig.js'
import type { BluezRig } from './bluez-rig.js'
import { waitFor } from './wait.js'

const skip = dbusUnavailable()

async function startError(rig: BluezRig): Promise<BluetoothUnavailableError> {
  const error: unknown = await rig.source.start().then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(BluetoothUnavailableError)
  return error as BluetoothUnavailableError
}

describe('BluezSource options', () => {
  it('refuses a bad adapter name, bus address or timeout with the option named', () => {
    expect(() => new BluezSource({ adapter: '/org/bluez/hci0' })).toThrow(InvalidOptionError)
    expect(() => new BluezSource({ adapter: 'hci 0' })).toThrow(/adapter/)
    expect(() => new BluezSource({ busAddress: '/run/dbus/system_bus_socket' })).toThrow(/busAddress/)
    expect(() => new BluezSource({ callTimeoutMs: 5 })).toThrow(/callTimeoutMs/)
  })
})

describe.skipIf(skip !== undefined)(`BluezSource start() errors${skip === undefined ? '' : ` (${skip})`}`, () => {
  it('no bus at the address → bluez_not_running, naming the bus', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-nobus-'))
    try {
      const source = new BluezSource({ busAddress: `unix:path=${join(dir, 'missing')}` })
      const error = await source.start().then(
        () => undefined,
        (e: unknown) => e as BluetoothUnavailableError,
      )
      expect(error).toBeInstanceOf(BluetoothUnavailableError)
      expect(error?.code).toBe('bluez_not_running')
      expect(error?.message).toMatch(/systemctl start dbus/)
      await source.stop()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a socket that never answers the handshake → bluez_not_running after callTimeoutMs, not a hang', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-mute-'))
    const sockets: Socket[] = []
    const server = createServer((socket) => sockets.push(socket))
    await new Promise<void>((resolve) => server.listen(join(dir, 'bus'), resolve))
    try {
      const source = new BluezSource({ busAddress: `unix:path=${join(dir, 'bus')}`, callTimeoutMs: 300 })
      const error = await source.start().then(
        () => undefined,
        (e: unknown) => e as BluetoothUnavailableError,
      )
      expect(error?.code).toBe('bluez_not_running')
      expect((error?.cause as Error).message).toMatch(/no D-Bus handshake within 300 ms/)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise((resolve) => server.close(resolve))
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('nobody owns org.bluez → bluez_not_running, saying how to start bluetoothd', async () => {
    const rig = await bluezRig({ adapter: false })
    try {
      await rig.fake.kill()
      const error = await startError(rig)
      expect(error.code).toBe('bluez_not_running')
      expect(error.message).toMatch(/systemctl enable --now bluetooth/)
      expect(rig.states).toEqual([])
    } finally {
      await rig.cleanup()
    }
  })

  it('no such adapter → no_adapter, listing the adapters bluetoothd has', async () => {
    const rig = await bluezRig({ source: { adapter: 'hci1' } })
    try {
      const error = await startError(rig)
      expect(error.code).toBe('no_adapter')
      expect(error.message).toMatch(/No Bluetooth adapter hci1 \(bluetoothd has hci0\)/)
      // Nothing left running: a retry after plugging the adapter in works.
      await rig.fake.send({ op: 'addAdapter', name: 'hci1', powered: true })
      await rig.source.start()
      expect((await rig.fake.calls('StartDiscovery')).map((c) => c.path)).toEqual(['/org/bluez/hci1'])
    } finally {
      await rig.cleanup()
    }
  })

  it('adapter powered off → powered_off, saying how to power it', async () => {
    const rig = await bluezRig({ adapter: { powered: false } })
    try {
      const error = await startError(rig)
      expect(error.code).toBe('powered_off')
      expect(error.message).toMatch(/bluetoothctl power on/)
      expect(await rig.fake.calls('StartDiscovery')).toHaveLength(0)
    } finally {
      await rig.cleanup()
    }
  })

  it('org.bluez.Error.NotReady from StartDiscovery → powered_off', async () => {
    const rig = await bluezRig()
    try {
      await rig.fake.send({ op: 'failNext', member: 'StartDiscovery', error: 'org.bluez.Error.NotReady' })
      const error = await startError(rig)
      expect(error.code).toBe('powered_off')
      expect((error.cause as Error).message).toMatch(/org\.bluez\.Error\.NotReady/)
    } finally {
      await rig.cleanup()
    }
  })

  it('org.bluez.Error.NotAuthorized → permission_denied', async () => {
    const rig = await bluezRig()
    try {
      await rig.fake.send({ op: 'failNext', member: 'SetDiscoveryFilter', error: 'org.bluez.Error.NotAuthorized' })
      const error = await startError(rig)
      expect(error.code).toBe('permission_denied')
      expect(error.message).toMatch(/usermod -aG bluetooth/)
    } finally {
      await rig.cleanup()
    }
  })

  it('the bus policy refusing calls to bluetoothd (AccessDenied from dbus-daemon) → permission_denied', async () => {
    const rig = await bluezRig({ denyInterface: 'org.bluez.Adapter1' })
    try {
      const error = await startError(rig)
      expect(error.code).toBe('permission_denied')
      expect((error.cause as Error).message).toMatch(/org\.freedesktop\.DBus\.Error\.AccessDenied/)
      expect(error.message).toMatch(/bluetooth\.conf/)
      // The refusal came from the bus: bluetoothd never saw the call.
      expect(await rig.fake.calls('SetDiscoveryFilter')).toHaveLength(0)
    } finally {
      await rig.cleanup()
    }
  })

  it('bluetoothd not answering → start_failed after callTimeoutMs, not a start() that never settles', async () => {
    const rig = await bluezRig({ source: { callTimeoutMs: 300 } })
    try {
      await rig.fake.send({ op: 'failNext', member: 'StartDiscovery', error: 'hang' })
      const error = await startError(rig)
      expect(error.code).toBe('start_failed')
      expect((error.cause as Error).message).toMatch(/NoReply.*StartDiscovery got no reply within 300 ms/)
    } finally {
      await rig.cleanup()
    }
  })

  it('stop() while start() waits for bluetoothd: start() resolves, nothing is emitted, and a new start() works', async () => {
    const rig = await bluezRig()
    try {
      await rig.fake.send({ op: 'failNext', member: 'StartDiscovery', error: 'hang' })
      const starting = rig.source.start()
      await waitFor(() => rig.fake.seen('StartDiscovery').length === 1, 'StartDiscovery to be pending')
      await rig.source.stop()
      // Started again at once, before the cancelled start() has settled: a fresh start, not a join.
      const again = rig.source.start()
      await expect(starting).resolves.toBeUndefined()
      await again
      expect(rig.errors).toEqual([])
      expect(await rig.fake.calls('StartDiscovery')).toHaveLength(2)
      expect(rig.states.at(-1)).toBe('poweredOn')
    } finally {
      await rig.cleanup()
    }
  })

  it('any other bluetoothd error → start_failed with the D-Bus error kept as cause', async () => {
    const rig = await bluezRig()
    try {
      await rig.fake.send({ op: 'failNext', member: 'StartDiscovery', error: 'org.bluez.Error.Failed' })
      const error = await startError(rig)
      expect(error.code).toBe('start_failed')
      expect(error.message).toMatch(/journalctl -u bluetooth/)
    } finally {
      await rig.cleanup()
    }
  })
})
