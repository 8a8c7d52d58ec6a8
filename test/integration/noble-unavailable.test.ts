/**
 * The real native HCI module on this machine. Kept apart from the fake-socket tests: noble
 * is loaded once per process and this file must load the real thing.
 */

import { describe, it, expect } from 'vitest'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const nobleLoaded = (): boolean => Object.keys(require.cache).some((path) => path.includes('@abandonware'))
/** Kernels with Bluetooth support expose this directory once the bluetooth module is loaded. */
const kernelHasBluetooth = existsSync('/sys/class/bluetooth')

describe('NobleSource with the real native module', () => {
  it('importing beaconkit and constructing a NobleSource never loads noble', async () => {
    const { NobleSource } = await import('../../src/index.js')
    const source = new NobleSource({ hciDeviceId: 0 })
    expect(source.listenerCount('advertisement')).toBe(0)
    expect(nobleLoaded()).toBe(false)
  })

  it.runIf(process.platform === 'linux' && !kernelHasBluetooth)(
    'a kernel without Bluetooth (EAFNOSUPPORT) → BluetoothUnavailableError unsupported, with the cause kept',
    async () => {
      const { NobleSource, BluetoothUnavailableError } = await import('../../src/index.js')
      const source = new NobleSource()
      const states: string[] = []
      source.on('state', (s) => states.push(s))
      const error: unknown = await source.start().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(nobleLoaded()).toBe(true)
      expect(error).toBeInstanceOf(BluetoothUnavailableError)
      const e = error as InstanceType<typeof BluetoothUnavailableError>
      expect(e.code).toBe('unsupported')
      expect(e.message).toMatch(/no Bluetooth support/)
      expect(e.message).toMatch(/ReplaySource/)
      expect((e.cause as NodeJS.ErrnoException).code).toBe('EAFNOSUPPORT')
      expect(states).toEqual([])
      // The failure is not cached as a broken instance: a retry fails the same clear way.
      await expect(source.start()).rejects.toMatchObject({ code: 'unsupported' })
      await source.stop()
    },
  )
})
