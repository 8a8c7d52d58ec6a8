// A NobleSource on its own fake adapter, with everything it emits collected: shared by the
// tests that drive real noble over the simulated HCI socket.
import type { installFakeHciSocket } from './install-fake-hci.js'
import { NobleSource } from '../../src/sources/noble/noble.js'
import type { Advertisement } from '../../src/advertisement.js'
import type { AdapterState } from '../../src/sources/source.js'

/** Returns `rig(id, options)` for the fake socket `hci` (installed by the test file first). */
export function nobleRig(hci: ReturnType<typeof installFakeHciSocket>) {
  return function rig(id: number, options: ConstructorParameters<typeof NobleSource>[0] = {}) {
    const device = hci.device(id)
    const source = new NobleSource({ hciDeviceId: id, ...options })
    const ads: Advertisement[] = []
    const states: AdapterState[] = []
    const warnings: string[] = []
    const errors: Error[] = []
    source.on('advertisement', (a) => ads.push(a))
    source.on('state', (s) => states.push(s))
    source.on('warning', (w) => warnings.push(w))
    source.on('error', (e) => errors.push(e))
    return { device, source, ads, states, warnings, errors }
  }
}
