/**
 * Options of `NobleSource`, checked once in the constructor so a typo fails at start-up with
 * a message naming the option, not as a silent scan that never finds anything.
 */

import { RealClock } from '../../clock.js'
import type { Clock } from '../../clock.js'
import { InvalidOptionError } from '../../errors.js'

/** Options of {@link NobleSource}. */
export interface NobleSourceOptions {
  /** HCI adapter number: 0 for hci0, 1 for hci1 (often a USB dongle). Default: `NOBLE_HCI_DEVICE_ID`, else hci0. */
  hciDeviceId?: number
  /**
   * Restart scanning when no advertisement arrived for this long while scanning (adapters,
   * notably on Raspberry Pis, stop reporting without any error). Default 30 000 ms; 0 disables.
   * Repeated restarts without any advertisement back off up to 16× this interval. With
   * `allowDuplicates: false` silence is normal (each device reports once): consider 0 then.
   */
  watchdogMs?: number
  /** Report every advertisement, not just the first per address. Default `true` (beacons need every packet). */
  allowDuplicates?: boolean
  /** Only report devices advertising one of these services (16-, 32- or 128-bit hex; dashes allowed). Default: all. */
  serviceUuids?: string[]
  /**
   * How often to forget addresses not heard since the previous pass, bounding noble's memory. Default 60 000
   * ms; 0 disables.
   */
  pruneIntervalMs?: number
  /** Give up `start()` when scanning has not begun after this long. Default 15 000 ms; 0 waits forever. */
  startTimeoutMs?: number
  /**
   * While running, emit a fatal `'error'` (`BluetoothUnavailableError`, code `adapter_lost`)
   * when the adapter has not been powered on for this long. noble cannot re-open an adapter
   * that was unplugged and plugged back (or re-attached over UART): the process must be
   * restarted, and this error is the signal for it. Default 60 000 ms; 0 never gives up.
   */
  adapterLostMs?: number
  /** Time source for timestamps, the watchdog and pruning. Default: real time. */
  clock?: Clock
}

/** Options after validation, with defaults applied. */
export interface ResolvedNobleOptions {
  hciDeviceId: number | undefined
  watchdogMs: number
  allowDuplicates: boolean
  serviceUuids: string[]
  pruneIntervalMs: number
  startTimeoutMs: number
  adapterLostMs: number
  clock: Clock
  clockGiven: boolean
}

/** Shortest watchdog and prune period accepted: below this they would only churn the adapter. */
const MIN_PERIOD_MS = 1000
const UUID = /^(?:[0-9a-f]{4}|[0-9a-f]{8}|[0-9a-f]{32})$/

function invalid(option: string, message: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', `NobleSource option ${option}: ${message}`, { option })
}

function period(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || (value !== 0 && value < MIN_PERIOD_MS)) {
    throw invalid(name, `expected 0 (off) or a number of milliseconds ≥ ${MIN_PERIOD_MS}, got ${describe(value)}.`)
  }
  return value
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  return typeof value === 'object' ? 'an object' : String(value)
}

/**
 * noble compares filter uuids with strings it builds itself: 16-bit service uuids via
 * `readUInt16LE().toString(16)`, which drops leading zeros ("0a0b" → "a0b"), but service-data
 * uuids from hex bytes, which keep them. Passing both spellings makes the filter match either.
 */
function serviceUuids(value: unknown): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value))
    throw invalid('serviceUuids', `expected an array of hex uuids such as ["81e7"], got ${describe(value)}.`)
  const out = new Set<string>()
  for (const item of value) {
    const uuid = typeof item === 'string' ? item.replace(/-/g, '').toLowerCase() : ''
    if (!UUID.test(uuid)) {
      throw invalid(
        'serviceUuids',
        `${describe(item)} is not a 16-, 32- or 128-bit hex uuid (e.g. "81e7" or ` +
          `"0000feaa-0000-1000-8000-00805f9b34fb").`,
      )
    }
    out.add(uuid)
    if (uuid.length === 4) out.add(uuid.replace(/^0+(?=.)/, ''))
  }
  return [...out]
}

function isClock(value: unknown): value is Clock {
  if (value === null || typeof value !== 'object') return false
  const c = value as Record<string, unknown>
  return typeof c.now === 'function' && typeof c.setTimeout === 'function' && typeof c.setInterval === 'function'
}

/** Validates and completes `NobleSource` options; throws `InvalidOptionError` (`invalid_option`). */
export function resolveNobleOptions(options: unknown): ResolvedNobleOptions {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError('invalid_option', `NobleSource options must be an object, got ${describe(options)}.`)
  }
  const o = options as Record<string, unknown>

  const id = o.hciDeviceId
  if (id !== undefined && (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 255)) {
    throw invalid('hciDeviceId', `expected an adapter number 0–255 (0 for hci0, 1 for hci1), got ${describe(id)}.`)
  }
  if (o.allowDuplicates !== undefined && typeof o.allowDuplicates !== 'boolean') {
    throw invalid('allowDuplicates', `expected true or false, got ${describe(o.allowDuplicates)}.`)
  }
  if (o.clock !== undefined && !isClock(o.clock)) {
    throw invalid('clock', 'expected an object with now(), setTimeout() and setInterval() (RealClock or VirtualClock).')
  }
  const startTimeoutMs = o.startTimeoutMs
  if (
    startTimeoutMs !== undefined &&
    (typeof startTimeoutMs !== 'number' || !Number.isFinite(startTimeoutMs) || startTimeoutMs < 0)
  ) {
    throw invalid(
      'startTimeoutMs',
      `expected 0 (wait forever) or a positive number of milliseconds, got ${describe(startTimeoutMs)}.`,
    )
  }

  return {
    hciDeviceId: id as number | undefined,
    watchdogMs: period('watchdogMs', o.watchdogMs, 30_000),
    allowDuplicates: (o.allowDuplicates as boolean | undefined) ?? true,
    serviceUuids: serviceUuids(o.serviceUuids),
    pruneIntervalMs: period('pruneIntervalMs', o.pruneIntervalMs, 60_000),
    startTimeoutMs: (startTimeoutMs as number | undefined) ?? 15_000,
    adapterLostMs: period('adapterLostMs', o.adapterLostMs, 60_000),
    clock: (o.clock as Clock | undefined) ?? new RealClock(),
    clockGiven: o.clock !== undefined,
  }
}
