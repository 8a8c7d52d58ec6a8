/**
 * The model's `adapter` section as the gateway's source: hci<n> through noble, or the same
 * adapter through bluetoothd (BlueZ); several adapters are combined into one source. Nothing
 * opens the adapter here: a source starts with the gateway.
 */

import type { BeaconkitConfig } from '../../config/load-config.js'
import { BluezSource } from '../../sources/bluez/bluez.js'
import { CombinedSource } from '../../sources/combined.js'
import { NobleSource } from '../../sources/noble/noble.js'
import type { AdvertisementSource } from '../../sources/source.js'

/** The adapters' source and the label of a status line (`scan hci0 + hci1 (bluez)`). */
export function adapterSource(adapter: BeaconkitConfig['adapter'] = {}): {
  source: AdvertisementSource
  label: string
} {
  const given = adapter.hci
  const ids = given === undefined || given.length === 0 ? [0] : given
  const bluez = adapter.backend === 'bluez'
  const one = (id: number): AdvertisementSource =>
    bluez
      ? new BluezSource({ adapter: `hci${id}` })
      : new NobleSource(given === undefined && id === 0 ? {} : { hciDeviceId: id })
  const label = `scan ${ids.map((id) => `hci${id}`).join(' + ')}${bluez ? ' (bluez)' : ''}`
  return { source: ids.length === 1 ? one(ids[0]) : new CombinedSource(ids.map(one)), label }
}
