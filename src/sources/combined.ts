/**
 * Several adapters feeding one scanner: a Pi's on-board radio and a USB dongle, or two dongles
 * on opposite walls. The combined source starts them all, tags each advertisement with the
 * adapter that heard it, and keeps going while any adapter works: one adapter that fails to
 * start, errors or powers off is reported, never fatal to the others.
 */
import { EventEmitter } from 'eventemitter3'
import { RealClock } from '../clock.js'
import type { Clock } from '../clock.js'
import { AdapterError } from '../errors.js'
import type { AdapterFailure } from '../errors.js'
import { MAX_RETRY_MS, resolveCombined } from './combined-options.js'
import type {
  AdapterStatus,
  AdapterWarning,
  CombinedSourceEvents,
  CombinedSourceOptions,
  SourceEntry,
} from './combined-options.js'
import type { AdapterState, AdvertisementSource } from './source.js'
import { Member, asError, combinedStateOf, workingAdapters } from './combined-member.js'
import type { MemberListener } from './combined-member.js'

export type {
  AdapterStatus,
  AdapterWarning,
  CombinedSourceEvents,
  CombinedSourceOptions,
  NamedSource,
  SourceEntry,
} from './combined-options.js'

/**
 * One {@link AdvertisementSource} made of several, each an adapter. Advertisements keep an
 * `adapter` they already carry (a replayed multi-adapter recording, a nested combination);
 * the others get their source's name. A scanner fed by it tracks each beacon's RSSI per
 * adapter (`Beacon.adapters`) and takes distance from the adapter hearing it best.
 *
 * - `start()` starts every source at once and resolves when at least one started; each one
 *   that did not is reported as an `error` ({@link AdapterError} `adapter_failed`). When none
 *   started it rejects with {@link AdapterError} `no_adapter_started`, listing each failure.
 *   A source that failed to start while others run is tried again (`retryStartMs`); when it
 *   starts, a `warning` (`adapter_started`) says so.
 * - An `error` of one source is re-emitted as {@link AdapterError} `adapter_failed` naming the
 *   adapter, with the source's own error as `cause`; its warnings are re-emitted prefixed
 *   with the adapter's name.
 * - `state` is `poweredOn` while any adapter is; an adapter that leaves `poweredOn` while
 *   another stays on is a `warning` (`adapter_state`).
 * - `end` comes once every source has ended or failed (never, while a live adapter runs).
 * - The sources that expose a clock must expose the same one, which the combined source then
 *   exposes; a source without one beside them must be paced by that clock (a live adapter
 *   beside a virtual-time replay would mix two kinds of time).
 *
 * ```ts
 * const source = new CombinedSource([
 *   new NobleSource({ hciDeviceId: 0 }),
 *   new NobleSource({ hciDeviceId: 1 }),
 * ])
 * const scanner = new BeaconScanner({ source }) // or simply { source: [src0, src1] }
 * ```
 */
export class CombinedSource extends EventEmitter<CombinedSourceEvents> implements AdvertisementSource {
  /** The sources' shared clock, when they run on one (virtual time). */
  readonly clock?: Clock
  private readonly members: Member[]
  private running = false
  private starting: Promise<void> | undefined
  /** Bumped by every stop(), so a start() still waiting knows it was cancelled. */
  private generation = 0
  private combinedState: AdapterState | undefined = undefined
  private endEmitted = false
  private readonly retryStartMs: number
  private readonly timers: Clock

  /**
   * @throws InvalidOptionError when there is no source, a name repeats, the sources run on
   * different clocks, or an option is bad.
   */
  constructor(sources: readonly SourceEntry[], options: CombinedSourceOptions = {}) {
    super()
    const resolved = resolveCombined(sources, options)
    this.retryStartMs = resolved.retryStartMs
    this.members = resolved.members.map((m) => new Member(m.adapter, m.source))
    if (resolved.clock !== undefined) this.clock = resolved.clock
    this.timers = resolved.clock ?? new RealClock()
  }

  /** The adapters' names, in the order the sources were given. */
  get adapters(): string[] {
    return this.members.map((m) => m.name)
  }

  /** Where each adapter stands. */
  status(): AdapterStatus[] {
    return this.members.map((m) =>
      m.state === undefined
        ? { adapter: m.name, status: m.status }
        : { adapter: m.name, status: m.status, state: m.state },
    )
  }

  /**
   * Starts every source; resolves once at least one runs. Calling it again while running does
   * nothing.
   */
  start(): Promise<void> {
    if (this.running) return Promise.resolve()
    if (this.starting !== undefined) return this.starting
    const starting = this.startAll(this.generation).finally(() => {
      if (this.starting === starting) this.starting = undefined
    })
    this.starting = starting
    return starting
  }

  /**
   * Stops every source (all of them, even when one's stop() fails; then rejects with the first
   * such error).
   */
  async stop(): Promise<void> {
    this.generation++
    const wasActive = this.running || this.starting !== undefined
    this.running = false
    this.detachAll()
    if (!wasActive) return
    for (const m of this.members) {
      m.cancelRetry?.()
      m.cancelRetry = undefined
    }
    const active = this.members.filter((m) => m.status !== 'stopped')
    for (const m of active) m.status = 'stopped'
    const results = await Promise.allSettled(active.map((m) => m.source.stop()))
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed !== undefined) throw asError(failed.reason)
  }

  private async startAll(generation: number): Promise<void> {
    this.combinedState = undefined
    this.endEmitted = false
    for (const m of this.members) {
      m.state = undefined
      m.status = 'starting'
      m.retryDelay = this.retryStartMs
      this.attach(m)
    }
    const results = await Promise.allSettled(this.members.map((m) => m.source.start()))
    if (generation !== this.generation) return
    const failures: AdapterFailure[] = []
    results.forEach((r, i) => {
      const m = this.members[i]
      if (r.status === 'fulfilled') {
        // A finite source may have ended while the others were still starting.
        if (m.status === 'starting') m.status = 'running'
      } else {
        m.status = 'failed'
        m.release()
        failures.push({ adapter: m.name, error: asError(r.reason) })
      }
    })
    if (failures.length === this.members.length) {
      const message =
        new Set(failures.map((f) => f.error.message)).size === 1
          ? `No adapter could start (${failures.map((f) => f.adapter).join(', ')}): ${failures[0].error.message}`
          : `No adapter could start (${failures.map((f) => `${f.adapter}: ${f.error.message}`).join('; ')}). ` +
            'Fix at least one of them as its message says.'
      throw new AdapterError('no_adapter_started', message, { failures, cause: failures[0].error })
    }
    this.running = true
    const later = this.retryStartMs > 0 ? `, tried again in ${Math.round(this.retryStartMs / 1000)} s` : ''
    for (const f of failures) {
      this.emit(
        'error',
        new AdapterError(
          'adapter_failed',
          `${f.adapter} could not start and is left out${later}; ` +
            `scanning goes on with ${this.working()}: ${f.error.message}`,
          { adapter: f.adapter, cause: f.error },
        ),
      )
    }
    for (const m of this.members) if (m.status === 'failed') this.scheduleRetry(m, generation)
    this.updateState()
    this.checkEnded()
  }

  /** Tries a failed adapter's start() again after its delay; the delay doubles on each failure. */
  private scheduleRetry(m: Member, generation: number): void {
    if (m.retryDelay <= 0) return
    const delay = m.retryDelay
    m.retryDelay = Math.min(delay * 2, MAX_RETRY_MS)
    m.cancelRetry = this.timers.setTimeout(() => {
      m.cancelRetry = undefined
      if (generation !== this.generation || !this.running) return
      m.status = 'starting'
      this.attach(m)
      m.source.start().then(
        () => {
          if (generation !== this.generation) return
          m.status = 'running'
          this.warn({
            code: 'adapter_started',
            message: `${m.name} started on a later attempt and scans too`,
            adapter: m.name,
          })
          this.updateState()
        },
        () => {
          if (generation !== this.generation) return
          // Reported once, when it first failed; a retry that fails again is quiet.
          m.status = 'failed'
          m.release()
          this.scheduleRetry(m, generation)
        },
      )
    }, delay)
  }

  private attach(m: Member): void {
    m.attach(this.listener)
  }

  /** Where every member's events go. */
  private readonly listener: MemberListener = {
    advertisement: (adv) => this.emit('advertisement', adv),
    stateChanged: (m, was) => {
      if (
        was === 'poweredOn' &&
        m.state !== 'poweredOn' &&
        this.members.some((o) => o !== m && o.state === 'poweredOn')
      ) {
        this.warn({
          code: 'adapter_state',
          message: `${m.name} is ${String(m.state)}; scanning goes on with ${this.working()}`,
          adapter: m.name,
        })
      }
      this.updateState()
    },
    error: (error) => this.emit('error', error),
    warning: (w) => this.warn(w),
    ended: () => this.checkEnded(),
  }

  private detachAll(): void {
    for (const m of this.members) m.release()
  }

  private warn(w: AdapterWarning): void {
    this.emit('warning', w)
  }

  /** The adapters scanning now (running, and on or silent about their state), for messages. */
  private working(): string {
    return workingAdapters(this.members)
  }

  private updateState(): void {
    const next = combinedStateOf(this.members)
    if (next === undefined || next === this.combinedState) return
    this.combinedState = next
    this.emit('state', next)
  }

  private checkEnded(): void {
    if (!this.running || this.endEmitted) return
    if (this.members.every((m) => m.status === 'ended' || m.status === 'failed')) {
      this.endEmitted = true
      this.emit('end')
    }
  }
}

/** Shorthand for `new CombinedSource(sources, options)`. */
export function combineSources(sources: readonly SourceEntry[], options?: CombinedSourceOptions): CombinedSource {
  return new CombinedSource(sources, options)
}
