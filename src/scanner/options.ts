/**
 * The scanner's options: their types, and their validation into range-table settings. Every
 * bad option is an InvalidOptionError (code `invalid_option`) naming the option and what is
 * allowed, raised from the constructor before anything starts.
 */
import type { Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import type { BroadcastKey } from '../secure/broadcast-key.js'
import { Keyring } from '../secure/keyring.js'
import { IdentityKeyring } from '../secure/identity-keyring.js'
import { IdentityResolver } from '../secure/identity-resolver.js'
import type { AdvertisementSource } from '../sources/source.js'
import { CombinedSource } from '../sources/combined.js'
import type { SourceEntry } from '../sources/combined.js'
import { checkProximityThresholds } from '../decode/distance.js'
import type { ProximityThresholds } from '../decode/distance.js'
import { compileFilter } from '../range/filter.js'
import type { BeaconFilter } from '../range/filter.js'
import type { RangeTableOptions } from '../range/range-table-types.js'
import { createRssiFilter } from '../range/rssi-filter.js'
import type { SmoothingOptions } from '../range/rssi-filter.js'

/** Options of {@link BeaconScanner}. */
export interface ScannerOptions {
  /**
   * Where advertisements come from; a `NobleSource` (the local adapter) by default. Several
   * sources (adapters) are combined into one `CombinedSource`: each beacon then also lists the
   * adapters hearing it (`Beacon.adapters`).
   */
  source?: AdvertisementSource | readonly SourceEntry[]
  /** Broadcast keys for private broadcasts: a Keyring, or key strings / parsed keys. */
  keys?: Keyring | Iterable<string | BroadcastKey>
  /**
   * Identity resolving keys (an IRK file's keys, or a resolver to share): a phone or watch whose
   * resolvable private address resolves is one device `irk:<name>` across its rotations, tracked
   * even when it carries no known frame (docs/phones.md).
   */
  identities?: IdentityResolver | IdentityKeyring
  /** A beacon not heard for this long is gone. Default 8000 ms, as the vendor SDKs. */
  goneTimeoutMs?: number
  /** Period of the `updated` event. Default 1000 ms, as the vendor SDKs. */
  updateIntervalMs?: number
  /** Time source; default: the source's clock if it has one (virtual replays), else real time. */
  clock?: Clock
  filter?: BeaconFilter
  /** RSSI smoothing; default a time-decayed ARMA, time constant 1.5 s (DEFAULT_SMOOTHING says why). */
  smoothing?: SmoothingOptions
  /** Upper bounds of the proximity zones in metres; default { immediate: 0.5, near: 4 }. */
  proximityThresholds?: ProximityThresholds
  /** iOS-style hysteresis: a beacon is found only once its smoothed RSSI reaches this (dBm). */
  enterRssi?: number
  /** …and gone once it falls below this (dBm; at most `enterRssi`). */
  leaveRssi?: number
  /** Hide encrypted devices that cannot be verified (key id not in the keyring, or frames failing verification). */
  hideUnverifiedSecure?: boolean
  /**
   * A beacon whose first packet carries no serial number (an iBeacon advertisement whose
   * vendor scan response is a moment behind) is announced this long after that packet,
   * unless the packet completing its identity arrives first — so `found` carries the final
   * id instead of a beaconID that is replaced a millisecond later. A device awaiting
   * confirmation of its private broadcast waits for it. Default 100 ms; 0 announces at once.
   */
  identitySettleMs?: number
  /** Events buffered per `events()` iterator before the oldest are dropped. Default 10,000. */
  eventBufferSize?: number
}

/** Validated options; the source and clock defaults are the scanner's to pick. */
export interface ResolvedScannerOptions {
  source: AdvertisementSource | undefined
  clock: Clock | undefined
  keyring: Keyring | undefined
  identities: IdentityResolver | undefined
  eventBufferSize: number
  table: Omit<RangeTableOptions, 'clock'>
}

function bad(option: string, what: string): never {
  throw new InvalidOptionError('invalid_option', `${option} ${what}`, { option })
}

function positive(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1)
    bad(option, `must be a number of milliseconds >= 1 (got ${String(value)}).`)
  return value
}

function nonNegative(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    bad(option, `must be a number of milliseconds >= 0 (got ${String(value)}).`)
  return value
}

function isClock(c: unknown): c is Clock {
  const x = c as Partial<Clock> | null
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.now === 'function' &&
    typeof x.setTimeout === 'function' &&
    typeof x.setInterval === 'function'
  )
}

function isSource(s: unknown): s is AdvertisementSource {
  const x = s as Partial<AdvertisementSource> | null
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.start === 'function' &&
    typeof x.stop === 'function' &&
    typeof x.on === 'function'
  )
}

/** Validates scanner options; throws InvalidOptionError (or BroadcastKeyError for a bad key). */
export function resolveScannerOptions(options: ScannerOptions): ResolvedScannerOptions {
  if (typeof options !== 'object' || options === null) bad('options', 'must be an object.')
  const source = Array.isArray(options.source)
    ? new CombinedSource(options.source as readonly SourceEntry[])
    : options.source
  if (source !== undefined && !isSource(source))
    bad('source', 'must be an AdvertisementSource (start(), stop(), on()) or an array of them.')
  if (options.clock !== undefined && !isClock(options.clock))
    bad('clock', 'must be a Clock (now(), setTimeout(), setInterval()).')
  for (const name of ['enterRssi', 'leaveRssi'] as const) {
    const v = options[name]
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v)))
      bad(name, 'must be a number of dBm, e.g. -75.')
  }
  const enterRssi = options.enterRssi ?? options.leaveRssi
  const leaveRssi = options.leaveRssi ?? options.enterRssi
  if (enterRssi !== undefined && leaveRssi !== undefined && leaveRssi > enterRssi)
    bad('leaveRssi', `must not exceed enterRssi (${enterRssi} dBm): hysteresis needs leave <= enter.`)
  if (options.hideUnverifiedSecure !== undefined && typeof options.hideUnverifiedSecure !== 'boolean')
    bad('hideUnverifiedSecure', 'must be true or false.')
  const eventBufferSize = options.eventBufferSize ?? 10_000
  if (!Number.isInteger(eventBufferSize) || eventBufferSize < 1) bad('eventBufferSize', 'must be a positive integer.')
  let keyring: Keyring | undefined
  if (options.keys instanceof Keyring) keyring = options.keys
  else if (options.keys !== undefined) {
    if (
      typeof options.keys === 'string' ||
      typeof (options.keys as Iterable<unknown>)[Symbol.iterator] !== 'function'
    ) {
      bad('keys', 'must be a Keyring or an array of key strings / parsed keys.')
    }
    keyring = new Keyring(options.keys)
  }
  const ids = options.identities
  if (ids !== undefined && !(ids instanceof IdentityResolver) && !(ids instanceof IdentityKeyring))
    bad('identities', 'must be an IdentityKeyring (IdentityKeyring.fromFile) or an IdentityResolver.')
  const thresholds =
    options.proximityThresholds === undefined ? undefined : checkProximityThresholds(options.proximityThresholds)
  return {
    source: source as AdvertisementSource | undefined,
    clock: options.clock,
    keyring,
    identities: ids instanceof IdentityKeyring ? new IdentityResolver(ids) : ids,
    eventBufferSize,
    table: {
      goneTimeoutMs: positive(options.goneTimeoutMs, 'goneTimeoutMs', 8000),
      updateIntervalMs: positive(options.updateIntervalMs, 'updateIntervalMs', 1000),
      filter: compileFilter(options.filter),
      smoothing: createRssiFilter(options.smoothing),
      ...(thresholds === undefined ? {} : { proximityThresholds: thresholds }),
      ...(enterRssi === undefined ? {} : { enterRssi }),
      ...(leaveRssi === undefined ? {} : { leaveRssi }),
      hideUnverifiedSecure: options.hideUnverifiedSecure === true,
      identitySettleMs: nonNegative(options.identitySettleMs, 'identitySettleMs', 100),
    },
  }
}
