/**
 * BeaconScanner: the public facade. A source feeds advertisements, the Decoder turns them into
 * readings, the RangeTable tracks beacons in clock time; the scanner only wires them together,
 * isolates listeners that throw, and offers async iteration.
 */
import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from './advertisement.js'
import { RealClock, VirtualClock } from './clock.js'
import type { Clock } from './clock.js'
import { Decoder } from './decoder.js'
import type { DecodeStats } from './decoder.js'
import { InvalidOptionError } from './errors.js'
import type { Beacon, FrameKind } from './reading.js'
import { checkProximityThresholds } from './range/distance.js'
import type { ProximityThresholds } from './range/distance.js'
import { EventStream } from './range/event-stream.js'
import type { ScannerEvent, ScannerEventIterator, ScannerWarning } from './range/event-stream.js'
import { compileFilter } from './range/filter.js'
import type { BeaconFilter } from './range/filter.js'
import type { BeaconChanges } from './range/merge.js'
import { RangeTable } from './range/range-table.js'
import type { RangeTableStats } from './range/range-table.js'
import { rssiFilterFactory } from './range/rssi-filter.js'
import type { SmoothingOptions } from './range/rssi-filter.js'
import type { BroadcastKey } from './secure/broadcast-key.js'
import { Keyring } from './secure/keyring.js'
import { NobleSource } from './sources/noble.js'
import type { AdapterState, AdvertisementSource } from './sources/source.js'

/** Events of a {@link BeaconScanner}. */
export interface ScannerEvents {
  /** A beacon was heard for the first time, or again after it was gone. */
  found: [beacon: Beacon]
  /** A beacon was not heard for `goneTimeoutMs` (emitted at exactly `lastSeen + goneTimeoutMs`), or fell below `leaveRssi`. */
  gone: [beacon: Beacon]
  /** Every `updateIntervalMs`: the beacons in range, nearest first. */
  updated: [beacons: Beacon[]]
  /** rssi (smoothed, whole dBm), temperature, light, accelerometerCount, movingState or batteryLevel changed. */
  changed: [beacon: Beacon, changes: BeaconChanges]
  /** The adapter's state, as the source reports it. */
  state: [state: AdapterState]
  /** Something was skipped or recovered (a malformed recording line, a restarted scan); scanning goes on. */
  warning: [warning: ScannerWarning]
  /** A source error, or a listener that threw (scanning goes on either way). */
  error: [error: Error]
}

/** Options of {@link BeaconScanner}. */
export interface ScannerOptions {
  /** Where advertisements come from; a `NobleSource` (the local adapter) by default. */
  source?: AdvertisementSource
  /** Broadcast keys for private broadcasts: a Keyring, or key strings / parsed keys. */
  keys?: Keyring | Iterable<string | BroadcastKey>
  /** A beacon not heard for this long is gone. Default 8000 ms (spec 6.5). */
  goneTimeoutMs?: number
  /** Period of the `updated` event. Default 1000 ms (spec 6.5). */
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

/** Counters of a scanner. */
export interface ScannerStats {
  /** Advertisements received from the source. */
  advertisements: number
  /** Readings decoded from them. */
  decoded: number
  /** Advertisements skipped as unusable (bad envelope). */
  malformed: number
  /** Advertisements with no known frame (other devices). */
  ignored: number
  /** Readings per frame kind. */
  byFrame: Record<FrameKind, number>
  /** Decoder counters, including encrypted frames decrypted / verified / rejected by reason. */
  decoder: DecodeStats
  secure: DecodeStats['secure']
  range: RangeTableStats
  /** Events dropped by slow `events()` consumers. */
  eventsDropped: number
  /** Listeners that threw (each reported as `error`). */
  listenerErrors: number
}

type Listener = { fn: (...args: unknown[]) => void; context: unknown; once: boolean }

function bad(option: string, what: string): never {
  throw new InvalidOptionError('invalid_option', `${option} ${what}`, { option })
}

function positive(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) bad(option, `must be a number of milliseconds >= 1 (got ${String(value)}).`)
  return value
}

function nonNegative(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) bad(option, `must be a number of milliseconds >= 0 (got ${String(value)}).`)
  return value
}

function isClock(c: unknown): c is Clock {
  const x = c as Partial<Clock> | null
  return typeof x === 'object' && x !== null && typeof x.now === 'function' && typeof x.setTimeout === 'function' && typeof x.setInterval === 'function'
}

function isSource(s: unknown): s is AdvertisementSource {
  const x = s as Partial<AdvertisementSource> | null
  return typeof x === 'object' && x !== null && typeof x.start === 'function' && typeof x.stop === 'function' && typeof x.on === 'function'
}

/**
 * Scans for beacons and tracks which are in range.
 *
 * ```ts
 * const scanner = new BeaconScanner({ keys: ['7b4b5ff594fdaf8f9fc7f2b494e400016f461205'] })
 * scanner.on('found', (b) => console.log('found', b.id, b.proximity))
 * scanner.on('gone', (b) => console.log('gone', b.id))
 * await scanner.start()
 * ```
 *
 * Listeners run synchronously; one that throws is reported as `error` and the others still run.
 */
export class BeaconScanner extends EventEmitter<ScannerEvents> {
  /** The clock all scanner time comes from. */
  readonly clock: Clock
  private readonly source: AdvertisementSource
  /**
   * Two decoders: under active scanning an address alternates between its advertisement
   * (iBeacon only) and its scan response (with service data), and the Decoder caches one
   * payload per address, so one decoder would miss on every packet. Only service data can
   * carry encrypted frames, so the verified-serial memory all lives in `decoder`.
   */
  private readonly decoder: Decoder
  private readonly plainDecoder: Decoder
  private readonly table: RangeTable
  private readonly streams = new Set<EventStream>()
  private readonly eventBufferSize: number
  private readonly byFrame: Record<FrameKind, number> = { ibeacon: 0, e780: 0, e781: 0, eddystone: 0 }
  private running = false
  private sourceEnded = false
  private droppedByClosedStreams = 0
  private listenerErrors = 0
  private drainWaiters: (() => void)[] = []
  private draining = false
  private readonly unsubscribe: (() => void)[] = []

  constructor(options: ScannerOptions = {}) {
    super()
    if (typeof options !== 'object' || options === null) bad('options', 'must be an object.')
    if (options.source !== undefined && !isSource(options.source)) bad('source', 'must be an AdvertisementSource (start(), stop(), on()).')
    if (options.clock !== undefined && !isClock(options.clock)) bad('clock', 'must be a Clock (now(), setTimeout(), setInterval()).')
    for (const name of ['enterRssi', 'leaveRssi'] as const) {
      const v = options[name]
      if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) bad(name, 'must be a number of dBm, e.g. -75.')
    }
    const enterRssi = options.enterRssi ?? options.leaveRssi
    const leaveRssi = options.leaveRssi ?? options.enterRssi
    if (enterRssi !== undefined && leaveRssi !== undefined && leaveRssi > enterRssi) bad('leaveRssi', `must not exceed enterRssi (${enterRssi} dBm): hysteresis needs leave <= enter.`)
    if (options.hideUnverifiedSecure !== undefined && typeof options.hideUnverifiedSecure !== 'boolean') bad('hideUnverifiedSecure', 'must be true or false.')
    const bufferSize = options.eventBufferSize ?? 10_000
    if (!Number.isInteger(bufferSize) || bufferSize < 1) bad('eventBufferSize', 'must be a positive integer.')
    let keyring: Keyring | undefined
    if (options.keys instanceof Keyring) keyring = options.keys
    else if (options.keys !== undefined) {
      if (typeof options.keys === 'string' || typeof (options.keys as Iterable<unknown>)[Symbol.iterator] !== 'function') {
        bad('keys', 'must be a Keyring or an array of key strings / parsed keys.')
      }
      keyring = new Keyring(options.keys)
    }
    const thresholds = options.proximityThresholds === undefined ? undefined : checkProximityThresholds(options.proximityThresholds)

    this.source = options.source ?? new NobleSource()
    this.clock = options.clock ?? this.source.clock ?? new RealClock()
    this.eventBufferSize = bufferSize
    this.decoder = new Decoder({ ...(keyring === undefined ? {} : { keyring }) })
    this.plainDecoder = new Decoder()
    this.table = new RangeTable(
      {
        clock: this.clock,
        goneTimeoutMs: positive(options.goneTimeoutMs, 'goneTimeoutMs', 8000),
        updateIntervalMs: positive(options.updateIntervalMs, 'updateIntervalMs', 1000),
        filter: compileFilter(options.filter),
        newRssiFilter: rssiFilterFactory(options.smoothing),
        ...(thresholds === undefined ? {} : { proximityThresholds: thresholds }),
        ...(enterRssi === undefined ? {} : { enterRssi }),
        ...(leaveRssi === undefined ? {} : { leaveRssi }),
        hideUnverifiedSecure: options.hideUnverifiedSecure === true,
        identitySettleMs: options.identitySettleMs === undefined ? 100 : nonNegative(options.identitySettleMs, 'identitySettleMs'),
      },
      {
        found: (b) => this.publish('found', b),
        gone: (b) => {
          this.publish('gone', b)
          this.checkDrained()
        },
        changed: (b, c) => this.publish('changed', b, c),
        updated: (bs) => this.publish('updated', bs),
        wantsChanged: () => this.listenerCount('changed') > 0 || this.streams.size > 0,
        wantsUpdated: () => this.listenerCount('updated') > 0 || this.streams.size > 0,
      },
    )
  }

  /**
   * Starts scanning. The scanner's listeners are on the source before the source starts
   * (spec 6.5). Rejects with the source's error (e.g. BluetoothUnavailableError).
   */
  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    this.sourceEnded = false
    const src = this.source
    const onAdv = (adv: Advertisement): void => this.ingest(adv)
    const onState = (state: AdapterState): void => this.publish('state', state)
    const onError = (err: Error): void => this.publish('error', err)
    const onWarning = (w: string | ScannerWarning): void => this.publish('warning', typeof w === 'string' ? { code: 'source_warning', message: w } : w)
    const onEnd = (): void => this.onSourceEnd()
    src.on('advertisement', onAdv)
    src.on('state', onState)
    src.on('error', onError)
    // Replays report malformed lines as structured warnings; the interface types them as strings.
    src.on('warning', onWarning as (w: string) => void)
    src.on('end', onEnd)
    this.unsubscribe.push(() => {
      src.off('advertisement', onAdv)
      src.off('state', onState)
      src.off('error', onError)
      src.off('warning', onWarning as (w: string) => void)
      src.off('end', onEnd)
    })
    try {
      await src.start()
    } catch (err) {
      this.detach()
      this.running = false
      throw err
    }
    if (this.running) this.table.start()
  }

  /** Stops the source and the timers, forgets all beacons (without `gone`), and ends every `events()` iterator. */
  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    this.detach()
    this.table.stop()
    for (const s of [...this.streams]) s.end()
    this.releaseDrainWaiters()
    await this.source.stop()
  }

  /** Snapshots of the beacons in range, nearest first. Snapshots are frozen copies. */
  beacons(): Beacon[] {
    return this.table.beacons()
  }

  /** Counters: adverts seen, decoded, skipped, per frame kind, secure verdicts, range table. */
  get stats(): ScannerStats {
    let dropped = this.droppedByClosedStreams
    for (const s of this.streams) dropped += s.dropped
    const d = this.decoder.stats
    const p = this.plainDecoder.stats
    const decoder: DecodeStats = {
      advertisements: d.advertisements + p.advertisements,
      decoded: d.decoded + p.decoded,
      ignored: d.ignored + p.ignored,
      malformed: d.malformed + p.malformed,
      cacheHits: d.cacheHits + p.cacheHits,
      secure: { ...d.secure, rejected: { ...d.secure.rejected } },
    }
    return {
      advertisements: decoder.advertisements,
      decoded: decoder.decoded,
      malformed: decoder.malformed,
      ignored: decoder.ignored,
      byFrame: { ...this.byFrame },
      decoder,
      secure: decoder.secure,
      range: this.table.stats,
      eventsDropped: dropped,
      listenerErrors: this.listenerErrors,
    }
  }

  /**
   * The scanner's events as an async iterable of `{ event, time, ... }` objects (the `--json`
   * shapes). Ends when the scanner stops or `signal` aborts. Up to `eventBufferSize` events
   * wait for a slow consumer; beyond that the oldest are dropped and counted (`iterator.dropped`).
   */
  events(options: { signal?: AbortSignal } = {}): ScannerEventIterator {
    const { signal } = options
    const onAbort = (): void => stream.end(true)
    const stream: EventStream = new EventStream(this.eventBufferSize, () => {
      this.streams.delete(stream)
      this.droppedByClosedStreams += stream.dropped
      signal?.removeEventListener('abort', onAbort)
    })
    this.streams.add(stream)
    if (signal?.aborted === true) stream.end(true)
    else signal?.addEventListener('abort', onAbort, { once: true })
    return stream
  }

  /** Same as `events()` without a signal: `for await (const e of scanner)`. */
  [Symbol.asyncIterator](): ScannerEventIterator {
    return this.events()
  }

  /**
   * Resolves once the source has ended and no beacon is tracked any more. With a virtual clock
   * the scanner moves time on by itself after the end, so every beacon goes at its exact
   * gone time; with real time this simply waits. Resolves at once when the scanner is stopped.
   */
  drain(): Promise<void> {
    if (!this.running || (this.sourceEnded && this.table.size === 0)) return Promise.resolve()
    return new Promise((resolve) => this.drainWaiters.push(resolve))
  }

  /**
   * Calls the listeners one by one, so that one that throws neither stops the others nor the
   * scanner: the error is emitted as `error` instead. eventemitter3 stops at the first throw,
   * hence this copy of its dispatch over its (stable, documented-by-source) listener store.
   */
  override emit<T extends EventEmitter.EventNames<ScannerEvents>>(event: T, ...args: EventEmitter.EventArgs<ScannerEvents, T>): boolean {
    const store = (this as unknown as { _events: Record<string, Listener | Listener[] | undefined> })._events
    const key = (typeof EventEmitter.prefixed === 'string' ? EventEmitter.prefixed : '') + String(event)
    const found = store[key]
    if (found === undefined) return false
    const list = Array.isArray(found) ? found.slice() : [found]
    for (const l of list) {
      if (l.once) this.removeListener(event, l.fn as never, l.context, true)
      try {
        l.fn.apply(l.context, args)
      } catch (err) {
        this.listenerErrors++
        // An 'error' listener that throws has nowhere left to report to.
        if (event !== 'error') this.emit('error', err instanceof Error ? err : new Error(`listener of '${String(event)}' threw ${String(err)}`))
      }
    }
    return true
  }

  private publish<T extends EventEmitter.EventNames<ScannerEvents>>(event: T, ...args: EventEmitter.EventArgs<ScannerEvents, T>): void {
    if (this.streams.size > 0) {
      const e = this.toEventObject(event, args as unknown[])
      for (const s of this.streams) s.push(e)
    }
    this.emit(event, ...args)
  }

  private toEventObject(event: keyof ScannerEvents, args: unknown[]): ScannerEvent {
    const time = this.clock.now()
    switch (event) {
      case 'found':
      case 'gone':
        return { event, time, beacon: args[0] as Beacon }
      case 'changed':
        return { event, time, beacon: args[0] as Beacon, changes: args[1] as BeaconChanges }
      case 'updated':
        return { event, time, beacons: args[0] as Beacon[] }
      case 'state':
        return { event, time, state: args[0] as AdapterState }
      case 'warning':
        return { event, time, warning: args[0] as ScannerWarning }
      case 'error': {
        const err = args[0] as Error & { code?: unknown }
        return { event, time, error: { name: err.name, message: err.message, ...(typeof err.code === 'string' ? { code: err.code } : {}) } }
      }
    }
  }

  private ingest(adv: Advertisement): void {
    // Shared, frozen readings: a repeat of the same bytes costs no copy; RSSI and time come from the packet.
    const sd = adv.serviceData
    const reading = (sd !== undefined && sd.length > 0 ? this.decoder : this.plainDecoder).decodeShared(adv)
    if (reading === null) return
    const frames = reading.frames
    for (let i = 0; i < frames.length; i++) this.byFrame[frames[i]]++
    this.table.ingest(reading, adv.manufacturerData, adv.rssi, adv.timestamp)
  }

  private onSourceEnd(): void {
    this.sourceEnded = true
    if (this.clock instanceof VirtualClock) void this.runVirtualTimeOut(this.clock)
    this.checkDrained()
  }

  /** After a virtual replay ends, moves time on timer by timer until every beacon is gone. */
  private async runVirtualTimeOut(clock: VirtualClock): Promise<void> {
    if (this.draining) return
    this.draining = true
    try {
      let steps = 0
      while (this.running && this.table.size > 0) {
        const due = clock.nextDue()
        if (due === undefined) break
        clock.advanceTo(due)
        // Let I/O (a CLI writing lines, a test awaiting) run now and then.
        if (++steps % 256 === 0) await new Promise((r) => setImmediate(r))
      }
    } finally {
      this.draining = false
      this.checkDrained()
    }
  }

  private checkDrained(): void {
    if (this.sourceEnded && this.table.size === 0) this.releaseDrainWaiters()
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters
    this.drainWaiters = []
    for (const w of waiters) w()
  }

  private detach(): void {
    for (const u of this.unsubscribe.splice(0)) u()
  }
}
