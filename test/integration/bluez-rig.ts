/** A private bus, a fake bluetoothd with adapter hci0 on it, and a BluezSource pointed at it, recording what it emits. */
import type { Advertisement } from '../../src/advertisement.js'
import { BluezSource } from '../../src/sources/bluez/bluez.js'
import type { BluezSourceOptions } from '../../src/sources/bluez/bluez.js'
import { FakeBluez, startBus } from './dbus-harness.js'
import type { PrivateBus } from './dbus-harness.js'

export interface BluezRig {
  bus: PrivateBus
  fake: FakeBluez
  source: BluezSource
  advs: Advertisement[]
  states: string[]
  warnings: string[]
  errors: Error[]
  /** Starts another fake bluetoothd (after the first was killed) and makes it `fake`. */
  restartBluez(): Promise<FakeBluez>
  cleanup(): Promise<void>
}

/** Builds the rig; the source is not started. `adapter: false` leaves the fake without adapters. */
export async function bluezRig(
  options: { adapter?: false | { powered: boolean; monitor?: boolean }; source?: BluezSourceOptions; denyInterface?: string } = {},
): Promise<BluezRig> {
  const bus = await startBus({ denyInterface: options.denyInterface })
  const fakes: FakeBluez[] = []
  const fake = await FakeBluez.start(bus.address)
  fakes.push(fake)
  if (options.adapter !== false) {
    await fake.send({ op: 'addAdapter', name: 'hci0', powered: options.adapter?.powered ?? true, monitor: options.adapter?.monitor ?? false })
  }
  const source = new BluezSource({ busAddress: bus.address, ...options.source })
  const rig: BluezRig = {
    bus,
    fake,
    source,
    advs: [],
    states: [],
    warnings: [],
    errors: [],
    async restartBluez() {
      const next = await FakeBluez.start(bus.address)
      fakes.push(next)
      rig.fake = next
      return next
    },
    async cleanup() {
      await source.stop()
      for (const f of fakes) await f.kill()
      await bus.stop()
    },
  }
  source.on('advertisement', (a) => rig.advs.push(a))
  source.on('state', (s) => rig.states.push(s))
  source.on('warning', (w) => rig.warnings.push(w))
  source.on('error', (e) => rig.errors.push(e))
  return rig
}
