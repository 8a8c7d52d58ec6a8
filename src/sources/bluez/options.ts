/**
 * Options of `BluezSource`, checked once in the constructor so a typo fails at start-up with
 * a message naming the option.
 */

import { RealClock } from '../../clock.js'
import type { Clock } from '../../clock.js'
import { InvalidOptionError } from '../../errors.js'
import { systemBusAddress } from './dbus.js'

/** Options of {@link BluezSource}. */
export interface BluezSourceOptions {
  /** The adapter's name as bluetoothd knows it (`bluetoothctl list`): 'hci0', 'hci1'… Default 'hci0'. */
  adapter?: string
  /**
   * The D-Bus bus where bluetoothd lives. Default: `DBUS_SYSTEM_BUS_ADDRESS`, else the system
   * bus at unix:path=/var/run/dbus/system_bus_socket. Tests point it at a private bus.
   */
  busAddress?: string
  /** Give up a D-Bus call (and `start()`) when bluetoothd does not answer within this long. Default 10 000 ms. */
  callTimeoutMs?: number
  /**
   * Register a passive advertisement monitor for beaconkit's beacon frames, which makes the
   * kernel turn the controller's duplicate filter off: every advertisement of those beacons is
   * reported instead of about one per 10 s. Needs bluetoothd's experimental interfaces
   * (`Experimental = true` in /etc/bluetooth/main.conf); without them the source warns once and
   * scans anyway. Default `true`.
   */
  monitor?: boolean
  /** Time source for timestamps. Default: real time. */
  clock?: Clock
}

/** Options after validation, with defaults applied. */
export interface ResolvedBluezOptions {
  adapter: string
  adapterPath: string
  busAddress: string
  callTimeoutMs: number
  monitor: boolean
  clock: Clock
  clockGiven: boolean
}

function invalid(option: string, message: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', `BluezSource option ${option}: ${message}`, { option })
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (value === null) return 'null'
  return typeof value === 'object' ? 'an object' : String(value)
}

function isClock(value: unknown): value is Clock {
  if (value === null || typeof value !== 'object') return false
  const c = value as Record<string, unknown>
  return typeof c.now === 'function' && typeof c.setTimeout === 'function' && typeof c.setInterval === 'function'
}

/** Validates and completes `BluezSource` options; throws `InvalidOptionError` (`invalid_option`). */
export function resolveBluezOptions(options: unknown): ResolvedBluezOptions {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError('invalid_option', `BluezSource options must be an object, got ${describe(options)}.`)
  }
  const o = options as Record<string, unknown>
  const adapter = o.adapter ?? 'hci0'
  // An object path element: letters, digits and underscores only.
  if (typeof adapter !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(adapter)) {
    throw invalid(
      'adapter',
      `expected an adapter name such as 'hci0' or 'hci1' (see \`bluetoothctl list\`), got ${describe(adapter)}.`,
    )
  }
  const busAddress = o.busAddress ?? systemBusAddress()
  if (typeof busAddress !== 'string' || !/^[a-z]+:/.test(busAddress)) {
    throw invalid(
      'busAddress',
      `expected a D-Bus address such as 'unix:path=/run/dbus/system_bus_socket', got ${describe(busAddress)}.`,
    )
  }
  const callTimeoutMs = o.callTimeoutMs ?? 10_000
  if (typeof callTimeoutMs !== 'number' || !Number.isFinite(callTimeoutMs) || callTimeoutMs < 100) {
    throw invalid('callTimeoutMs', `expected a number of milliseconds ≥ 100, got ${describe(callTimeoutMs)}.`)
  }
  if (o.monitor !== undefined && typeof o.monitor !== 'boolean')
    throw invalid('monitor', `expected true or false, got ${describe(o.monitor)}.`)
  if (o.clock !== undefined && !isClock(o.clock)) {
    throw invalid('clock', 'expected an object with now(), setTimeout() and setInterval() (RealClock or VirtualClock).')
  }
  return {
    adapter,
    adapterPath: `/org/bluez/${adapter}`,
    busAddress,
    callTimeoutMs,
    monitor: (o.monitor as boolean | undefined) ?? true,
    clock: (o.clock as Clock | undefined) ?? new RealClock(),
    clockGiven: o.clock !== undefined,
  }
}
