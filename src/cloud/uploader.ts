/**
 * The sensor-data uploader (docs/cloud-upload.md; off unless created). Readings become beacon log
 * records, go into a queue (memory, or durable with `queueDir`), and leave it in batches; a
 * record is removed only after the server's 2xx, so delivery is at-least-once and a repeat is
 * recognisable by its msgId.
 */
import { EventEmitter } from 'eventemitter3'
import type { ScannerSink } from '../scanner/sink.js'
import { RealClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { AccountError } from '../errors.js'
import type { Beacon, BeaconReading } from '../reading.js'
import { MemoryQueue } from '../queue/queue.js'
import type { UploadQueue } from '../queue/queue.js'
import { QueueOpener, queueOpenerFor } from './queue-opener.js'
import { RecordGate } from './record-gate.js'
import { BatchDelivery } from './batch-delivery.js'
import { FlushWaiters } from './flush-waiters.js'
import { emptyStats, uploaderSettings } from './uploader-options.js'
import { UploaderReports } from './uploader-reports.js'
import type {
  UploadEventSource,
  UploaderEvents,
  UploaderOptions,
  UploaderSettings,
  UploaderStats,
} from './uploader-options.js'

/**
 * Uploads beacon sensor data through the account interface.
 *
 * Listen to `'error'`: an error with no listener is not lost (eventemitter3 would drop it) but
 * becomes a `process.emitWarning`, once per error code, rather than a throw that would crash a
 * gateway over a passing failure. The same holds for `'warning'`.
 */
export class Uploader extends EventEmitter<UploaderEvents> implements ScannerSink<UploadEventSource> {
  /** Counters since creation. */
  readonly stats: UploaderStats = emptyStats()

  private readonly opener: QueueOpener
  private readonly settings: UploaderSettings
  private readonly clock: Clock
  private readonly gate: RecordGate
  private readonly inflight = new Set<Promise<unknown>>()
  private readonly detachers = new Set<() => void>()
  private readonly flushWaiters = new FlushWaiters()
  private pumping: Promise<void> | undefined
  private timer: CancelTimer | undefined
  private due = false
  private halted: AccountError | undefined
  private closing: Promise<void> | undefined
  private readonly reports: UploaderReports
  private readonly delivery: BatchDelivery
  private failedPumps = 0

  constructor(options: UploaderOptions) {
    super()
    this.settings = uploaderSettings(options)
    this.clock = options.clock ?? new RealClock()
    this.reports = new UploaderReports(this, this.stats)
    this.gate = new RecordGate(this.settings.minIntervalMs, this.settings.location, this.stats)
    this.delivery = new BatchDelivery({
      client: options.client,
      settings: this.settings,
      clock: this.clock,
      stats: this.stats,
      emitter: this,
      reports: this.reports,
      host: {
        stopped: () => this.halted !== undefined,
        halt: (error) => {
          this.halted = error
          // Always reported, even if the same stop happened before a resume().
          this.reports.error(error, 'stop')
          this.settleWaiters()
        },
      },
    })
    this.opener = new QueueOpener(queueOpenerFor(options), this.clock, this.settings, {
      opened: (q) => this.adopt(q),
      failed: (e) => {
        this.stats.queueOpenFailures++
        this.reports.error(e, 'open')
        this.rejectWaiters(e)
      },
    })
  }

  /** Records in the queue, not yet acknowledged by the server. */
  get pending(): number {
    return this.queue?.size ?? 0
  }

  /** How close the queue is to its bound (0 … 1; 0 before it is open or when it cannot say). */
  get queueFill(): number {
    return this.queue?.fill ?? 0
  }

  private get queue(): UploadQueue | undefined {
    return this.opener.queue
  }

  private adopt(q: UploadQueue): void {
    // What the open found on disk (a stale lock taken over, damaged segments) is reported even
    // when close() came first: a short run must not lose those reports.
    q.on('dropped', (info) => this.reports.dropped(info))
    q.on('warning', (w) => this.reports.warning(w))
    const report = q.takeOpenReport?.()
    for (const w of report?.warnings ?? []) this.reports.warning(w)
    for (const d of report?.dropped ?? []) this.reports.dropped(d)
    if (this.closing !== undefined) return
    this.reports.recovered('open')
    // Records recovered from disk go out as soon as possible.
    if (q.size > 0) this.due = true
    this.schedule()
  }

  /**
   * Queues a reading (or a tracked beacon). Resolves with the record's msgId once it is in the
   * queue (on disk, with `queueDir`), or with undefined when skipped: no serial number, or
   * within the per-beacon minimum interval.
   */
  push(reading: BeaconReading | Beacon): Promise<string | undefined> {
    const p = this.pushOne(reading)
    this.inflight.add(p)
    const done = (): void => {
      this.inflight.delete(p)
    }
    p.then(done, done)
    return p
  }

  /**
   * Uploads every record of `scanner`'s `found`, `changed` and `updated` events; returns a
   * detach function.
   */
  attach(scanner: UploadEventSource): () => void {
    const one = (beacon: Beacon): void => {
      if (beacon.inRange === false || this.closing !== undefined) return
      this.push(beacon).catch((e: unknown) => this.reports.error(e, 'push'))
    }
    const many = (beacons: Beacon[]): void => {
      for (const b of beacons) one(b)
    }
    scanner.on('found', one)
    scanner.on('changed', one)
    scanner.on('updated', many)
    const detach = (): void => {
      scanner.off('found', one)
      scanner.off('changed', one)
      scanner.off('updated', many)
      this.detachers.delete(detach)
    }
    this.detachers.add(detach)
    return detach
  }

  /**
   * Sends everything queued now, without waiting for a full batch. Resolves when the queue is
   * empty; rejects when upload has stopped (see `error`), when the queue cannot be opened, or
   * when reading the queue fails twice in a row with the same error (uploading carries on
   * trying in the background either way).
   */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.inflight])
    const queue = await this.opener.ready()
    if (this.halted !== undefined) throw this.halted
    if (queue.size === 0) return
    const done = this.flushWaiters.wait()
    this.due = true
    this.schedule()
    return done
  }

  /** Resumes uploading after an `error` stop (for example once credentials are fixed). */
  resume(): void {
    if (this.closing !== undefined) return
    this.halted = undefined
    this.due = true
    this.schedule()
  }

  /**
   * Detaches from scanners, tries for up to `closeTimeoutMs` to deliver what is queued, then
   * stops. With a file queue undelivered records stay on disk for the next start; with the
   * memory queue they are reported as `dropped` (reason `closed`).
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown()
    return this.closing
  }

  private async shutdown(): Promise<void> {
    for (const detach of [...this.detachers]) detach()
    this.opener.stop()
    // An open still under way is waited for, so that its queue (a lock, file handles) is closed.
    const queue = await this.opener.ready().catch(() => undefined)
    if (queue === undefined) {
      this.halted ??= new AccountError('aborted', 'the uploader is closed')
      this.rejectWaiters(this.halted)
      return
    }
    if (this.halted === undefined && this.settings.closeTimeoutMs > 0) {
      await this.within(
        this.flush().catch(() => undefined),
        this.settings.closeTimeoutMs,
      )
    }
    this.halted ??= new AccountError('aborted', 'the uploader is closed')
    this.timer?.()
    this.delivery.wake()
    // A request in flight may already have been stored by the server: give it up to another
    // closeTimeoutMs to answer, so its records are counted by the answer (uploaded, or left
    // and dropped) instead of all being reported dropped. Only then is it cut off.
    if (this.pumping !== undefined) await this.within(this.pumping, this.settings.closeTimeoutMs)
    this.delivery.cancel()
    this.delivery.wake()
    await this.pumping
    const left = queue.size
    if (left > 0 && queue instanceof MemoryQueue) this.reports.dropped({ count: left, reason: 'closed' })
    this.settleWaiters()
    await queue.close()
  }

  /** Waits for `p`, but at most `ms` on the uploader's clock. */
  private async within(p: Promise<unknown>, ms: number): Promise<void> {
    let cancel: CancelTimer | undefined
    const deadline = new Promise<void>((resolve) => {
      cancel = this.clock.setTimeout(resolve, ms)
    })
    await Promise.race([p, deadline])
    cancel?.()
  }

  private async pushOne(reading: BeaconReading | Beacon): Promise<string | undefined> {
    if (this.closing !== undefined)
      throw new AccountError('aborted', 'the uploader is closed; create a new one to upload more')
    const record = this.gate.admit(reading)
    if (record === undefined) return undefined
    try {
      const queue = await this.opener.ready()
      await queue.push(record)
    } catch (e) {
      this.gate.withdraw(reading)
      throw e
    }
    this.stats.queued++
    this.reports.recovered('push')
    this.schedule()
    return record.msgId
  }

  private schedule(): void {
    const queue = this.queue
    if (queue === undefined || this.pumping !== undefined || this.halted !== undefined) return
    const size = queue.size
    if (size === 0) {
      this.due = false
      this.settleWaiters()
      return
    }
    if (size >= this.settings.batchSize || this.due) {
      this.timer?.()
      this.timer = undefined
      let failed = false
      this.pumping = this.pump(queue)
        .then(() => {
          if (this.failedPumps === 0) return
          this.failedPumps = 0
          this.reports.recovered('read')
        })
        .catch((e: unknown) => {
          // The queue itself failed (a read error): report it once and try again after a
          // pause. A flush gives up when it happens again: it must not wait forever.
          failed = true
          const error = e instanceof Error ? e : new Error(String(e))
          const repeated = this.reports.error(error, 'read')
          if (++this.failedPumps >= 2 && repeated) this.rejectWaiters(error)
        })
        .finally(() => {
          this.pumping = undefined
          if (!failed) this.schedule()
          else if (this.halted === undefined)
            this.timer ??= this.clock.setTimeout(
              () => this.retryAfterFailure(),
              Math.max(this.settings.flushIntervalMs, this.settings.initialDelayMs),
            )
        })
      return
    }
    this.timer ??= this.clock.setTimeout(() => {
      this.timer = undefined
      this.due = true
      this.schedule()
    }, this.settings.flushIntervalMs)
  }

  private retryAfterFailure(): void {
    this.timer = undefined
    this.due = true
    this.schedule()
  }

  private rejectWaiters(error: Error): void {
    this.flushWaiters.reject(error)
  }

  private settleWaiters(): void {
    this.flushWaiters.settle(() => this.queue !== undefined && this.queue.size === 0, this.halted)
  }

  private async pump(queue: UploadQueue): Promise<void> {
    while (this.halted === undefined) {
      const batch = await queue.peek(this.settings.batchSize)
      if (batch.length === 0 || (batch.length < this.settings.batchSize && !this.due)) break
      if (!(await this.delivery.deliver(queue, batch))) break
      if (queue.size === 0) this.due = false
    }
  }
}
