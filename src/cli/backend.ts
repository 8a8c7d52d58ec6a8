/**
 * `scan --backend noble|bluez`: which Bluetooth stack the scan goes through. Kept apart from
 * the argument parser so the flag costs it one line.
 */

import { BluezSource } from '../sources/bluez.js'
import { NobleSource } from '../sources/noble.js'
import type { AdvertisementSource } from '../sources/source.js'
import { fail, str } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { CommandName } from './args.js'

/** The Bluetooth stacks `scan` can use. */
export type Backend = 'noble' | 'bluez'

/** `--backend <noble|bluez>`, or undefined when not given (noble). */
export function backend(values: Values, command: CommandName): Backend | undefined {
  const v = str(values, 'backend')
  if (v === undefined || v === 'noble' || v === 'bluez') return v
  fail('backend', `--backend must be noble (raw HCI, the default) or bluez (through bluetoothd over D-Bus), got '${v.slice(0, 24)}'`, command)
}

/** The live source for `scan`: hci<n> through noble, or the same adapter through bluetoothd. */
export function scanSource(options: { backend?: Backend; hci?: number }): AdvertisementSource {
  if (options.backend === 'bluez') return new BluezSource({ adapter: `hci${options.hci ?? 0}` })
  return new NobleSource(options.hci === undefined ? {} : { hciDeviceId: options.hci })
}
