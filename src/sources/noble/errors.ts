/**
 * Why the BLE stack would not start, in words a gateway operator can act on. On Linux, loading
 * noble opens a raw HCI socket, so the usual failures are operating-system errors with an
 * errno code; each maps to one `BluetoothUnavailableError` code and one fix. macOS and Windows
 * have no HCI sockets, hciconfig, rfkill or capabilities: there, noble's adapter states get
 * that platform's fix instead.
 */

import { BluetoothUnavailableError } from '../../errors.js'
import type { BluetoothUnavailableCode } from '../../errors.js'

const INSTALL =
  'Install the optional peer dependency: `npm install @abandonware/noble` (it builds a native module: ' +
  'on Debian/Raspberry Pi OS first run `sudo apt-get install build-essential libudev-dev`).'
const SETCAP =
  'Give Node raw-socket rights: `sudo setcap cap_net_raw+eip $(eval readlink -f $(which node))`, or run as root.'

/**
 * Which adapter a message is about: `hci1` when chosen, else noble's default, which is
 * `NOBLE_HCI_DEVICE_ID` or the first adapter that is up (hci0 only when none is).
 */
function adapterName(hciDeviceId: number | undefined): string {
  if (hciDeviceId !== undefined) return `hci${hciDeviceId}`
  const fromEnv = Number.parseInt(process.env.NOBLE_HCI_DEVICE_ID ?? '', 10)
  if (!Number.isNaN(fromEnv)) return `hci${fromEnv} (NOBLE_HCI_DEVICE_ID)`
  return 'the default Bluetooth adapter (the first one that is up, else hci0)'
}

/** The number to put in `hciconfig hciN up`: the chosen adapter, else hci0 (the default when none is up). */
function adapterNumber(hciDeviceId: number | undefined): number {
  if (hciDeviceId !== undefined) return hciDeviceId
  const fromEnv = Number.parseInt(process.env.NOBLE_HCI_DEVICE_ID ?? '', 10)
  return Number.isNaN(fromEnv) ? 0 : fromEnv
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
export function bluetoothErrorFrom(
  error: unknown,
  hciDeviceId?: number,
  platform: string = process.platform,
): BluetoothUnavailableError {
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
      message =
        `Bluetooth scanning needs @abandonware/noble and its native HCI module, which could not be ` +
        `loaded (${why}). ${INSTALL}`
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
      message = poweredOffMessage(hciDeviceId, why, platform)
      break
    default:
      kind = 'start_failed'
      message =
        `The Bluetooth stack could not be started on ${adapter} (${why}). Check that the adapter is ` +
        `up (\`hciconfig\`) and retry.`
  }
  return new BluetoothUnavailableError(kind, message, { cause: error })
}

/** The message for an adapter that is present but down or blocked. */
export function poweredOffMessage(
  hciDeviceId: number | undefined,
  why?: string,
  platform: string = process.platform,
): string {
  const detail = why === undefined ? '' : ` (${why})`
  if (platform === 'darwin')
    return `Bluetooth is turned off${detail}. Turn it on in System Settings → Bluetooth (or from the menu bar).`
  if (platform === 'win32')
    return (
      `Bluetooth is turned off${detail}. Turn it on in Settings → Bluetooth & devices (and check that ` +
      `airplane mode is off).`
    )
  const n = adapterNumber(hciDeviceId)
  return (
    `The Bluetooth adapter hci${n} is powered off${detail}. ` +
    `Unblock and raise it: \`rfkill unblock bluetooth\`, then \`sudo hciconfig hci${n} up\` ` +
    '(or `sudo systemctl start bluetooth` and `bluetoothctl power on`).'
  )
}

/** The error for a noble adapter state that rules out scanning ('unsupported', 'unauthorized', 'poweredOff'). */
export function bluetoothErrorForState(
  state: string,
  hciDeviceId?: number,
  platform: string = process.platform,
): BluetoothUnavailableError {
  const adapter = adapterName(hciDeviceId)
  if (state === 'unauthorized') {
    let message: string
    if (platform === 'darwin') {
      message =
        "macOS refused Bluetooth access (state 'unauthorized'). Allow Bluetooth for the app that runs Node " +
        '(Terminal, ' +
        'your IDE, or the service) in System Settings → Privacy & Security → Bluetooth, then restart that app.'
    } else if (platform === 'win32') {
      message =
        "Windows refused Bluetooth access (state 'unauthorized'). Allow apps to use Bluetooth in Settings → " +
        'Privacy & security, and check that the radio is on.'
    } else {
      // On Linux the socket opens without privileges; the first command write fails with EPERM,
      // which noble turns into this state.
      message =
        `Not allowed to send commands to ${adapter} (state 'unauthorized': the raw HCI socket ` +
        `refused a write with EPERM). ${SETCAP}`
    }
    return new BluetoothUnavailableError('unauthorized', message)
  }
  if (state === 'poweredOff')
    return new BluetoothUnavailableError('powered_off', poweredOffMessage(hciDeviceId, undefined, platform))
  if (platform === 'darwin' || platform === 'win32') {
    return new BluetoothUnavailableError(
      'unsupported',
      `This computer's Bluetooth does not support Bluetooth Low Energy, or noble cannot use it here (state ` +
        `'${state}'). ` +
        (platform === 'win32' ? 'noble needs Windows 10 (build 15063) or later and a BLE adapter; ' : '') +
        'feed the scanner from a ReplaySource or SimulatedSource meanwhile.',
    )
  }
  return new BluetoothUnavailableError(
    'unsupported',
    `${adapter} does not support Bluetooth Low Energy (state '${state}'). ` +
      'Use a Bluetooth 4.0+ adapter and select it with the hciDeviceId option (e.g. 1 for hci1).',
  )
}

/** Socket errors after which noble's socket points at a device that is gone (unplugged or re-attached). */
const DETACHED = new Set(['EBADFD', 'ENODEV', 'EPIPE'])

/**
 * The fatal error of a running source whose adapter has not been powered on for `limitMs`.
 * `socketErrorCode` is the last error of noble's socket: EBADFD and friends mean the adapter was
 * unplugged, and noble (which binds its socket once) can never reach it again in this process.
 */
export function adapterLostError(
  hciDeviceId: number | undefined,
  limitMs: number,
  socketErrorCode?: string,
): BluetoothUnavailableError {
  const adapter = adapterName(hciDeviceId)
  const seconds = Math.round(limitMs / 1000)
  const restart =
    'Restart the process to scan again (under systemd: exit non-zero on this error and keep ' +
    'Restart=on-failure, as examples/gateway.ts does).'
  const message =
    socketErrorCode !== undefined && DETACHED.has(socketErrorCode)
      ? `${adapter} was unplugged or re-attached (${socketErrorCode} on noble's socket) and has not come ` +
        `back for ${seconds} s: ` +
        `noble keeps its socket bound to the old device and cannot re-open the adapter. ${restart}`
      : `${adapter} has been powered off for ${seconds} s. If it was unplugged, noble cannot re-open it: ${restart} ` +
        `Otherwise raise it: ${poweredOffMessage(hciDeviceId)}`
  return new BluetoothUnavailableError('adapter_lost', message)
}

/** HCI status codes (Core spec Vol 1 Part F) that scan commands come back with. */
const HCI_STATUS: Record<number, string> = {
  0x01: 'Unknown HCI Command',
  0x03: 'Hardware Failure',
  0x0c: 'Command Disallowed',
  0x11: 'Unsupported Feature or Parameter Value',
  0x12: 'Invalid HCI Command Parameters',
  0x1f: 'Unspecified Error',
  0x3a: 'Controller Busy',
}

/** `Command Disallowed (0x0c)`. */
export function hciStatusText(status: number): string {
  const hex = `0x${status.toString(16).padStart(2, '0')}`
  const name = HCI_STATUS[status]
  return name === undefined ? `HCI status ${hex}` : `${name} (${hex})`
}

/**
 * start() gave up: the controller never confirmed scanning within `timeoutMs`. `lastAttempt` is
 * `'; last attempt: …'` or empty.
 */
export function startTimeoutError(timeoutMs: number, state: string, lastAttempt: string): BluetoothUnavailableError {
  return new BluetoothUnavailableError(
    'start_failed',
    `Scanning did not start within ${timeoutMs} ms (adapter state '${state}'${lastAttempt}). ` +
      'Check the adapter with `hciconfig`; if bluetoothd is busy with it, restart it ' +
      '(`sudo systemctl restart bluetooth`), or pick another adapter with hciDeviceId.',
  )
}
