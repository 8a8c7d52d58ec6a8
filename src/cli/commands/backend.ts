/**
 * `scan --backend noble|bluez`: which Bluetooth stack the scan goes through. Kept apart from
 * the argument parser so the flag costs it one line.
 */

import { BluezSource } from '../../sources/bluez/bluez.js'
import { CombinedSource } from '../../sources/combined.js'
import { NobleSource } from '../../sources/noble/noble.js'
import type { AdvertisementSource } from '../../sources/source.js'
import { fail, str } from '../arg-values.js'
import type { Values } from '../arg-values.js'
import type { Backend } from '../command-line.js'

/** `--backend <noble|bluez>`, or undefined when not given (noble). */
export function backend(values: Values, command: string): Backend | undefined {
  const v = str(values, 'backend')
  if (v === undefined || v === 'noble' || v === 'bluez') return v
  fail(
    'backend',
    `--backend must be noble (raw HCI, the default) or bluez (through bluetoothd over D-Bus), got '${v.slice(0, 24)}'`,
    command,
  )
}

/**
 * The live source for `scan` and the label of its status line: hci<n> through noble, or the
 * same adapter through bluetoothd; several adapters (`--hci 0 --hci 1`) are combined into one.
 */
export function scanSource(options: { backend?: Backend; hci?: number; extraHci?: number[] }): {
  source: AdvertisementSource
  label: string
} {
  const ids = [options.hci ?? 0, ...(options.extraHci ?? [])]
  const one = (id: number): AdvertisementSource =>
    options.backend === 'bluez'
      ? new BluezSource({ adapter: `hci${id}` })
      : new NobleSource(options.hci === undefined && id === 0 ? {} : { hciDeviceId: id })
  const via = options.backend === 'bluez' ? ' (bluez)' : ''
  const label = `scan ${ids.map((id) => `hci${id}`).join(' + ')}${via}`
  return { source: ids.length === 1 ? one(ids[0]) : new CombinedSource(ids.map(one)), label }
}
