/**
 * The sensor-data uploader (docs/cloud-upload.md; off unless created). Readings become beacon log
 * records, go into a queue (memory, or durable with `queueDir`), and leave it in batches; a
 * record is removed only after the server's 2xx, so delivery is at-least-once and a repeat is
 * recognisable by its msgId.
 */
import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'eventemitter3'
import { RealClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { AccountError, InvalidOptionError } from '../errors.js'
import type { Beacon, BeaconReading } from '../reading.js'
import { FileQueue } from './file-queue.js'
import { MemoryQueue } from './queue.js'
import type { DropInfo, QueuedRecord, UploadQueue } from './queue.js'
import { parseLogRecord, toLogRecord } from './records.js'
import type { BeaconLogRecord } from './records.js'
import { asAccountError, backoffDelay, uploaderSettings } from './uploader-options.js'
import type { LogUploadClient, UploadEventSource, UploaderEvents, UploaderOptions, UploaderSettings, UploaderStats } from './uploader-options.js'

export type { LogUploadClient, RetryInfo, UploadEventArgs, UploadEventSource, UploaderEvents, UploaderOptions, UploaderStats } from './uploader-options.js'

/** Uploads beacon sensor data through the account interface. */
export class Uploader extends EventEmitter<UploaderEvents> {
  /** Counters since creation. */
  readonly stats: UploaderStats = { queued: 0, uploaded: 0, duplicates: 0, rejected: 0, dropped: 0, skippedNoSerial: 0, skippedInterval: 0, skippedInvalid: 0, retries: 0 }

  private readonly client: LogUploadClient
  private readonly ready: Promise<UploadQueue>
  private queue: UploadQueue | undefined
  private readonly settings: UploaderSettings
  private readonly clock: Clock
  private readonly lastQueued = new Map<string, number>()
  private pruneAt = 50_000
  private readonly inflight = new Set<Promise<unknown>>()
  private readonly detachers = new Set<() => void>()
  private flushWaiters: { resolve: () => void; reject: (e: Error) => void }[] = []
  private abort = new AbortController()
  private pumping: Promise<void> | undefined
  private timer: CancelTimer | undefined
  private wake: (() => void) | undefined
  private due = false
  private halted: AccountError | undefined
  private closing: Promise<void> | undefined

  constructor(options: UploaderOptions) {
    super()
    this.settings = uploaderSettings(options)
    this.client = options.client
    this.clock = options.clock ?? new RealClock()
    const queue: Promise<UploadQueue> =
      options.queue !== undefined
        ? Promise.resolve(options.queue)
        : options.queueDir !== undefined
          ? FileQueue.open({ dir: options.queueDir, ...(options.maxQueueBytes === undefined ? {} : { maxBytes: options.maxQueueBytes }) })
          : Promise.resolve(new MemoryQueue())
    this.ready = queue.then((q) => {
      this.queue = q
      q.on('dropped', (info) => this.dropped(info))
      // Records recovered from disk go out as soon as possible.
      if (q.size > 0) this.due = true
      this.schedule()
      return q
    })
    this.ready.catch((e: unknown) => this.emit('error', e instanceof Error ? e : new Error(String(e))))
  }

  /** Records in the queue, not yet acknowledged by the server. */
  get pending(): number {
    return this.queue?.size ?? 0
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

  /** Uploads every record of `scanner`'s `found`, `changed` and `updated` events; returns a detach function. */
  attach(scanner: UploadEventSource): () => void {
    const one = (beacon: Beacon): void => {
      if (beacon.inRange === false || this.closing !== undefined) return
      this.push(beacon).catch((e: unknown) => this.emit('error', e instanceof Error ? e : new Error(String(e))))
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
   * empty; rejects when upload has stopped (see `error`).
   */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.inflight])
    await this.ready
    if (this.halted !== undefined) throw this.halted
    if ((this.queue as UploadQueue).size === 0) return
    const done = new Promise<void>((resolve, reject) => this.flushWaiters.push({ resolve, reject }))
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
    let queue: UploadQueue
    try {
      queue = await this.ready
    } catch {
      return
    }
    if (this.halted === undefined && this.settings.closeTimeoutMs > 0) {
      let cancel: CancelTimer | undefined
      const deadline = new Promise<void>((resolve) => {
        cancel = this.clock.setTimeout(resolve, this.settings.closeTimeoutMs)
      })
      await Promise.race([this.flush().catch(() => undefined), deadline])
      cancel?.()
    }
    this.halted ??= new AccountError('aborted', 'the uploader is closed')
    this.abort.abort()
    this.timer?.()
    this.wake?.()
    await this.pumping
    const left = queue.size
    if (left > 0 && queue instanceof MemoryQueue) this.dropped({ count: left, reason: 'closed' })
    this.settleWaiters()
    await queue.close()
  }

  private async pushOne(reading: BeaconReading | Beacon): Promise<string | undefined> {
    if (this.closing !== undefined) throw new AccountError('aborted', 'the uploader is closed; create a new one to upload more')
    if (reading === null || typeof reading !== 'object' || typeof reading.timestamp !== 'number' || !Number.isFinite(reading.timestamp)) {
      throw new InvalidOptionError('invalid_option', 'push needs a BeaconReading or Beacon with a numeric timestamp', { option: 'reading' })
    }
    const serial = reading.serialNumber
    if (typeof serial !== 'string' || serial.length === 0) {
      this.stats.skippedNoSerial++
      return undefined
    }
    const t = reading.timestamp
    const last = this.lastQueued.get(serial)
    // A reading older than the last one sent (a clock stepped back) starts the interval afresh.
    if (last !== undefined && t >= last && t - last < this.settings.minIntervalMs) {
      this.stats.skippedInterval++
      return undefined
    }
    this.lastQueued.set(serial, t)
    if (this.lastQueued.size > this.pruneAt) {
      this.pruneIntervals(t)
      // Doubling keeps pruning amortised O(1) even when every entry is still recent.
      this.pruneAt = Math.max(50_000, this.lastQueued.size * 2)
    }
    const record = toLogRecord(reading, randomUUID(), this.settings.location) as BeaconLogRecord
    try {
      // A record the server would refuse is better counted here than dropped after a 400.
      parseLogRecord(record, 'record', true)
    } catch {
      this.lastQueued.delete(serial)
      this.stats.skippedInvalid++
      return undefined
    }
    try {
      const queue = await this.ready
      await queue.push(record)
    } catch (e) {
      // Not queued, so the beacon's next reading must not be held back by the interval.
      if (this.lastQueued.get(serial) === t) this.lastQueued.delete(serial)
      throw e
    }
    this.stats.queued++
    this.schedule()
    return record.msgId
  }

  private pruneIntervals(now: number): void {
    for (const [serial, t] of this.lastQueued) if (now - t >= this.settings.minIntervalMs) this.lastQueued.delete(serial)
  }

  private dropped(info: DropInfo & { error?: AccountError }): void {
    this.stats.dropped += info.count
    this.emit('dropped', info)
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
        .catch((e: unknown) => {
          // The queue itself failed (a read error): report it and try again after a pause.
          failed = true
          this.emit('error', e instanceof Error ? e : new Error(String(e)))
        })
        .finally(() => {
          this.pumping = undefined
          if (!failed) this.schedule()
          else if (this.halted === undefined) this.timer ??= this.clock.setTimeout(() => this.retryAfterFailure(), Math.max(this.settings.flushIntervalMs, this.settings.initialDelayMs))
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

  private settleWaiters(): void {
    const waiters = this.flushWaiters
    if (waiters.length === 0) return
    const empty = this.queue !== undefined && this.queue.size === 0
    if (!empty && this.halted === undefined) return
    this.flushWaiters = []
    for (const w of waiters) {
      if (empty) w.resolve()
      else w.reject(this.halted as AccountError)
    }
  }

  private async pump(queue: UploadQueue): Promise<void> {
    while (this.halted === undefined) {
      const batch = await queue.peek(this.settings.batchSize)
      if (batch.length === 0 || (batch.length < this.settings.batchSize && !this.due)) break
      if (!(await this.deliver(queue, batch))) break
      if (queue.size === 0) this.due = false
    }
  }

  /** Sends one batch until it is acknowledged or rejected; false when upload has stopped. */
  private async deliver(queue: UploadQueue, batch: QueuedRecord[]): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      if (this.halted !== undefined) return false
      let error: AccountError
      try {
        const result = await this.client.uploadLogs(
          batch.map((q) => q.record),
          { signal: this.abort.signal },
        )
        await queue.ack(batch[batch.length - 1].seq)
        this.stats.uploaded += batch.length
        this.stats.duplicates += result.duplicates ?? 0
        this.emit('uploaded', result.duplicates === undefined ? { count: batch.length } : { count: batch.length, duplicates: result.duplicates })
        return true
      } catch (e) {
        error = asAccountError(e)
      }
      if (error.code === 'aborted') return false
      if (error.code === 'bad_request') return this.rejected(queue, batch, error)
      if (error.code === 'unauthorized' || error.code === 'not_found' || error.code === 'insecure_url') {
        this.halted = error
        this.emit('error', error)
        this.settleWaiters()
        return false
      }
      this.stats.retries++
      const delayMs = backoffDelay(attempt, this.settings, error.retryAfterSeconds)
      this.emit('retrying', { error, attempt, delayMs })
      await this.sleep(delayMs)
    }
  }

  /** A 400: halve the batch until the bad records are alone, then drop just those. */
  private async rejected(queue: UploadQueue, batch: QueuedRecord[], error: AccountError): Promise<boolean> {
    if (batch.length > 1) {
      const mid = batch.length >> 1
      return (await this.deliver(queue, batch.slice(0, mid))) && (await this.deliver(queue, batch.slice(mid)))
    }
    await queue.ack(batch[0].seq)
    this.stats.rejected++
    this.dropped({ count: 1, reason: 'rejected', error })
    return true
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.clock.setTimeout(() => {
        this.wake = undefined
        resolve()
      }, ms)
      this.wake = () => {
        cancel()
        this.wake = undefined
        resolve()
      }
    })
  }
}
