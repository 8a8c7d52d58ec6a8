/**
 * BeaconScanner: the public facade. A source feeds advertisements, the Decoder turns them into
 * readings, the RangeTable tracks beacons in clock time; the scanner only wires them together,
 * isolates listeners that throw, and offers async iteration.
 */
import type { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../advertisement.js'
import { RealClock, VirtualClock } from '../clock.js'
import { PacedClock } from '../paced-clock.js'
import type { Clock } from '../clock.js'
import { ScanDecoder } from '../decode/scan-decoder.js'
import { SlotSummary, type CacheEntry } from '../decode/cache-entry.js'
import type { DecodeStats } from '../decode/decoder.js'
import type { Beacon, BeaconReading, FrameKind } from '../reading.js'
import { EventStream } from './event-stream.js'
import type { ScannerEventIterator, ScannerWarning } from './event-stream.js'
import { eventObject } from './event-object.js'
import type { ScannerEvents, ScannerStats } from './scanner-types.js'
import type { Entry } from '../range/entry.js'
import { RangeTable } from '../range/range-table.js'
import { SafeEmitter } from '../range/safe-emitter.js'
import { resolveScannerOptions } from './options.js'
import type { ScannerOptions } from './options.js'
import type { IdentityResolver } from '../secure/identity-resolver.js'
import { NobleSource } from '../sources/noble/noble.js'
import type { AdapterState, AdvertisementSource } from '../sources/source.js'

export type { ScannerOptions } from './options.js'

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
 * An `error` with no listener is not dropped: it becomes a `process.emitWarning` (type
 * `BeaconkitWarning`, code `BEACONKIT_UNHEARD_ERROR`), once per error code.
 */
export class BeaconScanner extends SafeEmitter<ScannerEvents> {
  /** The clock all scanner time comes from. */
  readonly clock: Clock
  /** Where advertisements come from (sinks such as MqttPublisher count packets on it). */
  readonly source: AdvertisementSource
  /** Its `updated` snapshots carry packet totals (`packetsHeard`): a sink need not count packets on `source`. */
  readonly countsPackets = true
  /** Caches the two latest payloads per address, so an advertisement / scan-response pair both hit. */
  private readonly decoder: ScanDecoder<Entry>
  private readonly table: RangeTable
  private readonly identities: IdentityResolver | undefined
  private readonly streams = new Set<EventStream>()
  private readonly eventBufferSize: number
  private readonly byFrame: Record<FrameKind, number> = { ibeacon: 0, e780: 0, e781: 0, eddystone: 0 }
  private running = false
  private sourceEnded = false
  private droppedByClosedStreams = 0
  private drainWaiters: (() => void)[] = []
  private draining = false
  private readonly unsubscribe: (() => void)[] = []

  constructor(options: ScannerOptions = {}) {
    super()
    const resolved = resolveScannerOptions(options)
    this.source = resolved.source ?? new NobleSource()
    this.clock = resolved.clock ?? this.source.clock ?? new RealClock()
    this.eventBufferSize = resolved.eventBufferSize
    this.decoder = new ScanDecoder({
      ...(resolved.keyring === undefined ? {} : { keyring: resolved.keyring }),
      ...(resolved.identities === undefined ? {} : { identities: resolved.identities }),
    })
    this.identities = resolved.identities
    // Replay time skips the empty stretches of a recording instead of ticking through them.
    const replayTime = this.clock instanceof VirtualClock || this.clock instanceof PacedClock
    this.table = new RangeTable(
      { ...resolved.table, clock: this.clock, pauseTickWhenEmpty: replayTime },
      {
        found: (b) => this.publish('found', b),
        gone: (b) => {
          this.publish('gone', b)
          this.checkDrained()
        },
        // Its cached payloads go too: a million passing devices must not stay in memory.
        released: (address) => this.decoder.forget(address),
        changed: (b, c) => this.publish('changed', b, c),
        updated: (bs) => this.publish('updated', bs),
        wantsChanged: () => this.listenerCount('changed') > 0 || this.streams.size > 0,
        wantsUpdated: () => this.listenerCount('updated') > 0 || this.streams.size > 0,
      },
    )
  }

  /**
   * Starts scanning. The scanner's listeners are on the source before the source starts
   * (as the vendor SDKs do). Rejects with the source's error (e.g. BluetoothUnavailableError).
   */
  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    this.sourceEnded = false
    const src = this.source
    const onAdv = (adv: Advertisement): void => this.ingest(adv)
    const onState = (state: AdapterState): void => this.publish('state', state)
    const onError = (err: Error): void => this.publish('error', err)
    const onWarning = (w: string | ScannerWarning): void =>
      this.publish('warning', typeof w === 'string' ? { code: 'source_warning', message: w } : w)
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
    // The cache's links point at the entries just forgotten.
    this.decoder.clear()
    for (const s of [...this.streams]) s.end()
    this.releaseDrainWaiters()
    await this.source.stop()
  }

  /**
   * Snapshots of the beacons in range, nearest first: fresh copies, the caller's to keep (nested
   * objects are frozen and shared).
   */
  beacons(): Beacon[] {
    return this.table.beacons()
  }

  /** Counters: adverts seen, decoded, skipped, per frame kind, secure verdicts, range table. */
  get stats(): ScannerStats {
    let dropped = this.droppedByClosedStreams
    for (const s of this.streams) dropped += s.dropped
    const d = this.decoder.stats
    const decoder: DecodeStats = { ...d, secure: { ...d.secure, rejected: { ...d.secure.rejected } } }
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
      ...(this.identities === undefined ? {} : { identities: this.identities.stats }),
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

  private publish<T extends EventEmitter.EventNames<ScannerEvents>>(
    event: T,
    ...args: EventEmitter.EventArgs<ScannerEvents, T>
  ): void {
    if (this.streams.size > 0) {
      const e = eventObject(event, args as unknown[], this.clock.now())
      for (const s of this.streams) s.push(e)
    }
    this.emit(event, ...args)
  }

  private ingest(adv: Advertisement): void {
    if (typeof adv !== 'object' || adv === null) {
      // A user's own source may hand anything over; the decoder counts it as malformed.
      this.decoder.decodeShared(adv)
      return
    }
    try {
      // Shared, frozen readings: a repeat of the same bytes costs no copy; RSSI and time come from the packet.
      const decoder = this.decoder
      const answer = decoder.scan(adv)
      if (answer === null) return
      const frames = answer.frames
      for (let i = 0; i < frames.length; i++) this.byFrame[frames[i]]++
      // Where the answer came from: read now, as listeners run before settle() in merge().
      const cached = decoder.lastEntry
      const slot = decoder.lastSlot
      if (cached === undefined) return
      if (answer instanceof SlotSummary) {
        // The common case: a repeat of a payload whose merge would change nothing.
        const owner = decoder.unchangedOwner(cached, slot)
        if (owner !== undefined && this.table.repeat(owner, adv.rssi, adv.timestamp, adv.adapter)) return
      }
      this.merge(adv, answer, cached, slot)
    } catch (err) {
      // Never reached by design; if it is, the source must not be the one to die of it.
      this.publish('error', err instanceof Error ? err : new Error(String(err)))
    }
  }

  /**
   * The long way for a reading the range table must merge: a new payload, or a repeat whose
   * beacon changed since (decoded again). Kept out of {@link ingest}, so the code that runs
   * for nearly every packet stays small enough for V8 to optimize as a whole.
   */
  private merge(
    adv: Advertisement,
    answer: Readonly<BeaconReading> | SlotSummary,
    cached: CacheEntry,
    slot: number,
  ): void {
    const reading = answer instanceof SlotSummary ? this.decoder.redecode(adv, cached) : answer
    if (reading === null) return
    const owner = this.table.ingest(
      reading,
      adv.manufacturerData instanceof Uint8Array ? adv.manufacturerData : undefined,
      adv.rssi,
      adv.timestamp,
      adv.adapter,
    )
    // Where the answer came from was read before the table ran listeners, which may feed more packets.
    this.decoder.settle(cached, slot, owner)
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
