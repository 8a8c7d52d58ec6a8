/**
 * Why the BLE stack would not start, in words a gateway operator can act on. Loading noble
 * opens a raw HCI socket, so the usual failures are operating-system errors with an errno
 * code; each maps to one `BluetoothUnavailableError` code and one fix.
 */

import { BluetoothUnavailableError } from '../errors.js'
import type { BluetoothUnavailableCode } from '../errors.js'

const INSTALL =
  'Install the optional peer dependency: `npm install @abandonware/noble` (it builds a native module: ' +
  'on Debian/Raspberry Pi OS first run `sudo apt-get install build-essential libudev-dev`).'
const SETCAP =
  'Give Node raw-socket rights: `sudo setcap cap_net_raw+eip $(eval readlink -f $(which node))`, or run as root.'

/** Which adapter a message is about: `hci1` when chosen, else "the default adapter". */
function adapterName(hciDeviceId: number | undefined): string {
  return hciDeviceId === undefined ? 'the default Bluetooth adapter (hci0)' : `hci${hciDeviceId}`
}

function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Maps an error thrown while loading or initialising noble to a `BluetoothUnavailableError`
 * whose message says what to do; the original error is kept as `cause`.
 *
 * - `MODULE_NOT_FOUND` / `ERR_MODULE_NOT_FOUND` (noble or its native HCI module missing) → `not_installed`
 * - `EAFNOSUPPORT` (the kernel has no AF_BLUETOOTH sockets: no Bluetooth support at all, as in
 *   containers and most CI machines) → `unsupported`: no adapter setting can fix it
 * - `ENODEV` (no such hciX) → `no_adapter`
 * - `EPERM` / `EACCES` (no cap_net_raw) → `permission_denied`
 * - `ERFKILL` / `ENETDOWN` → `powered_off`
 * - anything else → `start_failed`
 */
export function bluetoothErrorFrom(error: unknown, hciDeviceId?: number): BluetoothUnavailableError {
  if (error instanceof BluetoothUnavailableError) return error
  const code = errorCode(error)
  const adapter = adapterName(hciDeviceId)
  const why = `${code ?? 'error'}: ${errorMessage(error)}`
  let kind: BluetoothUnavailableCode
  let message: string
  switch (code) {
    case 'MODULE_NOT_FOUND':
    case 'ERR_MODULE_NOT_FOUND':
      kind = 'not_installed'
      message = `Bluetooth scanning needs @abandonware/noble and its native HCI module, which could not be loaded (${why}). ${INSTALL}`
      break
    case 'EAFNOSUPPORT':
      kind = 'unsupported'
      message =
        `This machine's kernel has no Bluetooth support (${why}): no Bluetooth socket can be opened here. ` +
        'Run on a host with a Bluetooth adapter and the kernel Bluetooth modules (in a container: use the host ' +
        'network and pass the adapter through), or feed the scanner from a ReplaySource or SimulatedSource.'
      break
    case 'ENODEV':
      kind = 'no_adapter'
      message =
        `No Bluetooth adapter found at ${adapter} (${why}). Check \`hciconfig -a\` or \`btmgmt info\`; ` +
        'pick another adapter with the hciDeviceId option (e.g. 1 for a USB dongle on hci1).'
      break
    case 'EPERM':
    case 'EACCES':
      kind = 'permission_denied'
      message = `Not allowed to open a raw Bluetooth socket on ${adapter} (${why}). ${SETCAP}`
      break
    case 'ERFKILL':
    case 'ENETDOWN':
      kind = 'powered_off'
      message = poweredOffMessage(hciDeviceId, why)
      break
    default:
      kind = 'start_failed'
      message = `The Bluetooth stack could not be started on ${adapter} (${why}). Check that the adapter is up (\`hciconfig\`) and retry.`
  }
  return new BluetoothUnavailableError(kind, message, { cause: error })
}

/** The message for an adapter that is present but down or blocked. */
export function poweredOffMessage(hciDeviceId: number | undefined, why?: string): string {
  const n = hciDeviceId ?? 0
  return (
    `The Bluetooth adapter hci${n} is powered off${why === undefined ? '' : ` (${why})`}. ` +
    `Unblock and raise it: \`rfkill unblock bluetooth\`, then \`sudo hciconfig hci${n} up\` ` +
    '(or `sudo systemctl start bluetooth` and `bluetoothctl power on`).'
  )
}

/** The error for a noble adapter state that rules out scanning ('unsupported', 'unauthorized', 'poweredOff'). */
export function bluetoothErrorForState(state: string, hciDeviceId?: number): BluetoothUnavailableError {
  const adapter = adapterName(hciDeviceId)
  if (state === 'unauthorized') {
    return new BluetoothUnavailableError(
      'unauthorized',
      `The Bluetooth stack refused access to ${adapter} (state 'unauthorized'). ${SETCAP}`,
    )
  }
  if (state === 'poweredOff') return new BluetoothUnavailableError('powered_off', poweredOffMessage(hciDeviceId))
  return new BluetoothUnavailableError(
    'unsupported',
    `${adapter} does not support Bluetooth Low Energy (state '${state}'). ` +
      'Use a Bluetooth 4.0+ adapter and select it with the hciDeviceId option (e.g. 1 for hci1).',
  )
}
