/**
 * Why BlueZ would not scan, in words a gateway operator can act on. Failures arrive either as
 * socket errors while connecting to the system bus (errno codes) or as D-Bus error names in
 * replies: from the bus itself (AccessDenied: the bus policy in /etc/dbus-1/system.d/
 * bluetooth.conf lets only root and the `bluetooth` group talk to bluetoothd; ServiceUnknown:
 * nobody owns org.bluez) or from bluetoothd (org.bluez.Error.NotReady: adapter powered off).
 */

import { BluetoothUnavailableError } from '../../errors.js'
import type { BluetoothUnavailableCode } from '../../errors.js'
import { DbusCallError } from './dbus.js'

const START_BLUETOOTHD = 'Start it: `sudo systemctl enable --now bluetooth` (Debian/Raspberry Pi OS package `bluez`).'
const GROUP =
  'Run as a member of the `bluetooth` group (`sudo usermod -aG bluetooth $USER`, then log in again) or as root; ' +
  'the system bus policy /etc/dbus-1/system.d/bluetooth.conf decides who may talk to bluetoothd.'

/** The message for an adapter that bluetoothd knows but has not powered. */
export function bluezPoweredOffMessage(adapter: string): string {
  return (
    `The Bluetooth adapter ${adapter} is powered off. Power it on: \`bluetoothctl power on\` ` +
    '(if that fails: `rfkill unblock bluetooth`; set AutoEnable=true in /etc/bluetooth/main.conf to power it at boot).'
  )
}

/** The error for a bus without org.bluez. */
export function bluezNotRunning(cause?: unknown): BluetoothUnavailableError {
  return new BluetoothUnavailableError(
    'bluez_not_running',
    `bluetoothd (org.bluez) is not running on the D-Bus system bus. ${START_BLUETOOTHD}`,
    { cause },
  )
}

/** The error for a running source whose system-bus connection closed (dbus-daemon restarted or died). */
export function bluezBusLost(cause: Error): BluetoothUnavailableError {
  return new BluetoothUnavailableError(
    'bluez_not_running',
    `Lost the connection to the D-Bus system bus (${cause.message}); scanning stopped. ` +
      'The bus daemon restarted or died: restart this program (or call start() again) once `systemctl ' +
      'status dbus` is active.',
    { cause },
  )
}

/** The error for an adapter bluetoothd does not have. */
export function bluezNoAdapter(adapter: string, present: string[]): BluetoothUnavailableError {
  const seen = present.length === 0 ? 'bluetoothd has no adapter at all' : `bluetoothd has ${present.join(', ')}`
  return new BluetoothUnavailableError(
    'no_adapter',
    `No Bluetooth adapter ${adapter} (${seen}). Check \`bluetoothctl list\` and \`rfkill list\`; ` +
      "pick another adapter with the adapter option (e.g. 'hci1' for a USB dongle).",
  )
}

function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/**
 * Maps an error met while connecting to the bus or calling bluetoothd to a
 * `BluetoothUnavailableError` whose message says what to do; the original is kept as `cause`.
 *
 * - socket ENOENT / ECONNREFUSED / ECONNRESET or no handshake (no working system bus) and
 *   ServiceUnknown / NameHasNoOwner → `bluez_not_running`
 * - AccessDenied / org.bluez.Error.NotAuthorized / NotPermitted, socket EACCES, a refused
 *   authentication → `permission_denied`
 * - org.bluez.Error.NotReady → `powered_off`
 * - UnknownObject / UnknownMethod on the adapter path, org.bluez.Error.NoSuchAdapter → `no_adapter`
 * - anything else (NoReply: bluetoothd hangs; org.bluez.Error.Failed) → `start_failed`
 */
export function bluezErrorFrom(error: unknown, adapter: string, busAddress: string): BluetoothUnavailableError {
  if (error instanceof BluetoothUnavailableError) return error
  const name = error instanceof DbusCallError ? error.dbusName : undefined
  const errno = errnoCode(error)
  const why = error instanceof Error ? error.message : String(error)
  let code: BluetoothUnavailableCode
  let message: string
  if (errno === 'ENOENT' || errno === 'ECONNREFUSED' || errno === 'ETIMEDOUT' || errno === 'ECONNRESET') {
    code = 'bluez_not_running'
    message =
      `The D-Bus system bus at ${busAddress} cannot be reached (${why}). Start it: \`sudo systemctl ` +
      `start dbus\`; in a container, mount the host's /run/dbus/system_bus_socket.`
  } else if (
    name === 'org.freedesktop.DBus.Error.ServiceUnknown' ||
    name === 'org.freedesktop.DBus.Error.NameHasNoOwner'
  ) {
    return bluezNotRunning(error)
  } else if (
    errno === 'EACCES' ||
    errno === 'EPERM' ||
    name === 'org.freedesktop.DBus.Error.AccessDenied' ||
    name === 'org.bluez.Error.NotAuthorized' ||
    name === 'org.bluez.Error.NotPermitted' ||
    // The bus refused our authentication handshake (no D-Bus error name, no errno).
    (/auth/i.test(why) && name === undefined && errno === undefined)
  ) {
    code = 'permission_denied'
    message = `Not allowed to scan with ${adapter} through bluetoothd (${why}). ${GROUP}`
  } else if (name === 'org.bluez.Error.NotReady') {
    code = 'powered_off'
    message = bluezPoweredOffMessage(adapter)
  } else if (
    name === 'org.freedesktop.DBus.Error.UnknownObject' ||
    name === 'org.freedesktop.DBus.Error.UnknownMethod' ||
    name === 'org.freedesktop.DBus.Error.UnknownInterface' ||
    name === 'org.bluez.Error.NoSuchAdapter'
  ) {
    code = 'no_adapter'
    message =
      `bluetoothd has no adapter ${adapter} (${why}). Check \`bluetoothctl list\`; pick another ` +
      `with the adapter option.`
  } else {
    code = 'start_failed'
    message =
      `bluetoothd could not start scanning on ${adapter} (${why}). Check \`bluetoothctl show\` and ` +
      `\`journalctl -u bluetooth\`; restart it with \`sudo systemctl restart bluetooth\`.`
  }
  return new BluetoothUnavailableError(code, message, { cause: error })
}
