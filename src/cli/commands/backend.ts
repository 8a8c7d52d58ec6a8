/**
 * `scan --backend noble|bluez`: which Bluetooth stack the scan goes through. Kept apart from
 * the argument parser so the flag costs it one line.
 */

import { adapterSource } from '../../gateway/settings/source.js'
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
 * The live source for `scan` and the label of its status line (the model's `adapter`, as the
 * composition root builds it).
 */
export function scanSource(options: { backend?: Backend; hci?: number; extraHci?: number[] }): {
  source: AdvertisementSource
  label: string
} {
  return adapterSource({
    ...(options.backend === undefined ? {} : { backend: options.backend }),
    ...(options.hci === undefined ? {} : { hci: [options.hci, ...(options.extraHci ?? [])] }),
  })
}
