/**
 * The sensor-data uploader (spec 4.14, 6.5: off unless created). Readings become beacon log
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
import type { CallOptions, UploadResult } from './account-client.js'
import { FileQueue } from './file-queue.js'
import { MemoryQueue } from './queue.js'
import type { DropInfo, QueuedRecord, UploadQueue } from './queue.js'
import { locationProblem, toLogRecord } from './records.js'
import type { BeaconLogRecord, GeoLocation } from './records.js'

/** What the uploader needs of a client: `AccountClient` fits. */
export interface LogUploadClient {
  uploadLogs(records: BeaconLogRecord[], options?: CallOptions): Promise<UploadResult>
}

/** The scanner events the uploader listens to; a `BeaconScanner` fits. */
export interface UploadEventSource {
  on(event: 'updated', listener: (beacons: Beacon[]) => void): unknown
  on(event: 'found', listener: (beacon: Beacon) => void): unknown
  on(event: 'changed', listener: (beacon: Beacon, changes: unknown) => void): unknown
  off(event: 'updated', listener: (beacons: Beacon[]) => void): unknown
  off(event: 'found', listener: (beacon: Beacon) => void): unknown
  off(event: 'changed', listener: (beacon: Beacon, changes: unknown) => void): unknown
}

/** Options of {@link Uploader}. */
export interface UploaderOptions {
  client: LogUploadClient
  /** Directory of the durable queue; without it (and without `queue`) records are kept in memory. */
  queueDir?: string
  /** Bound on the durable queue's disk use; default 256 MiB. Oldest records are dropped beyond it. */
  maxQueueBytes?: number
  /** Your own queue implementation (overrides `queueDir`). */
  queue?: UploadQueue
  /** Records per request. Default 500. */
  batchSize?: number
  /** A partial batch waits at most this long. Default 5,000 ms. */
  flushIntervalMs?: number
  /** At most one record per beacon per this interval (by reading time). Default 30,000 ms. */
  minIntervalPerBeaconMs?: number
  /** The gateway's position, sent with every record. */
  location?: GeoLocation
  /** Backoff after network errors, 5xx and 429: doubling from initialDelayMs (default 1 s) up to maxDelayMs (default 5 min), jittered. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number }
  /** How long `close()` tries to deliver what is queued. Default 10,000 ms. */
  closeTimeoutMs?: number
  /** Timers; default real time. */
  clock?: Clock
}

/** Counters since the uploader was created. */
export interface UploaderStats {
  /** Records put in the queue. */
  queued: number
  /** Records the server acknowledged. */
  uploaded: number
  /** Of those, records the server reported it already had (redeliveries). */
  duplicates: number
  /** Records the server rejected (400) one by one, and dropped. */
  rejected: number
  /** Records lost on purpose: disk bound, rejection, or close with a memory queue. */
  dropped: number
  /** Readings without a serial number (the account interface cannot attribute them). */
  skippedNoSerial: number
  /** Readings within minIntervalPerBeaconMs of the previous record of the same beacon. */
  skippedInterval: number
  /** Failed attempts that will be retried. */
  retries: number
}

/** A retry about to happen. */
export interface RetryInfo {
  error: AccountError
  attempt: number
  delayMs: number
}

/** Events of {@link Uploader}. */
export interface UploaderEvents {
  uploaded: [info: { count: number; duplicates?: number }]
  dropped: [info: DropInfo & { error?: AccountError }]
  /** Upload stopped (401/403 or a missing endpoint), or a queue write failed. */
  error: [error: Error]
  retrying: [info: RetryInfo]
}

function option(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < min) throw new InvalidOptionError('invalid_option', `${name} must be a number >= ${min}`, { option: name })
  return value
}

function asAccountError(e: unknown): AccountError {
  if (e instanceof AccountError) return e
  // The client validates records before sending; a refusal there is as final as a 400.
  if (e instanceof InvalidOptionError) return new AccountError('bad_request', e.message)
  return new AccountError('network', e instanceof Error ? e.message : 'upload failed')
}

/** Uploads beacon sensor data through the account interface. */
export class Uploader extends EventEmitter<UploaderEvents> {
  /** Counters since creation. */
  readonly stats: UploaderStats = { queued: 0, uploaded: 0, duplicates: 0, rejected: 0, dropped: 0, skippedNoSerial: 0, skippedInterval: 0, retries: 0 }

  private readonly client: LogUploadClient
  private readonly ready: Promise<UploadQueue>
  private queue: UploadQueue | undefined
  private readonly batchSize: number
  private readonly flushIntervalMs: number
  private readonly minIntervalMs: number
  private readonly location: GeoLocation | undefined
  private readonly initialDelayMs: number
  private readonly maxDelayMs: number
  private readonly closeTimeoutMs: number
  private readonly clock: Clock
  private readonly lastQueued = new Map<string, number>()
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
    if (options === null || typeof options !== 'object' || typeof options.client?.uploadLogs !== 'function') {
      throw new InvalidOptionError('invalid_option', 'client must be an AccountClient (or anything with uploadLogs)', { option: 'client' })
    }
    this.client = options.client
    this.batchSize = Math.floor(option('batchSize', options.batchSize, 500, 1))
    this.flushIntervalMs = option('flushIntervalMs', options.flushIntervalMs, 5_000, 0)
    this.minIntervalMs = option('minIntervalPerBeaconMs', options.minIntervalPerBeaconMs, 30_000, 0)
    this.initialDelayMs = option('retry.initialDelayMs', options.retry?.initialDelayMs, 1_000, 1)
    this.maxDelayMs = option('retry.maxDelayMs', options.retry?.maxDelayMs, 300_000, this.initialDelayMs)
    this.closeTimeoutMs = option('closeTimeoutMs', options.closeTimeoutMs, 10_000, 0)
    if (options.location !== undefined) {
      const problem = locationProblem(options.location)
      if (problem !== undefined) throw new InvalidOptionError('invalid_option', `location: ${problem}`, { option: 'location' })
      this.location = { lat: options.location.lat, lon: options.location.lon }
    }
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
    if (this.halted === undefined && this.closeTimeoutMs > 0) {
      let cancel: CancelTimer | undefined
      const deadline = new Promise<void>((resolve) => {
        cancel = this.clock.setTimeout(resolve, this.closeTimeoutMs)
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
    if (last !== undefined && t >= last && t - last < this.minIntervalMs) {
      this.stats.skippedInterval++
      return undefined
    }
    this.lastQueued.set(serial, t)
    if (this.lastQueued.size > 50_000) this.pruneIntervals(t)
    const record = toLogRecord(reading, randomUUID(), this.location) as BeaconLogRecord
    const queue = await this.ready
    try {
      await queue.push(record)
    } catch (e) {
      if (this.lastQueued.get(serial) === t) this.lastQueued.delete(serial)
      throw e
    }
    this.stats.queued++
    this.schedule()
    return record.msgId
  }

  private pruneIntervals(now: number): void {
    for (const [serial, t] of this.lastQueued) if (now - t >= this.minIntervalMs) this.lastQueued.delete(serial)
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
    if (size >= this.batchSize || this.due) {
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
          else if (this.halted === undefined) this.timer ??= this.clock.setTimeout(() => this.retryAfterFailure(), Math.max(this.flushIntervalMs, this.initialDelayMs))
        })
      return
    }
    this.timer ??= this.clock.setTimeout(() => {
      this.timer = undefined
      this.due = true
      this.schedule()
    }, this.flushIntervalMs)
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
      const batch = await queue.peek(this.batchSize)
      if (batch.length === 0 || (batch.length < this.batchSize && !this.due)) break
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
      const ceiling = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** Math.min(attempt - 1, 30))
      let delayMs = ceiling / 2 + Math.random() * (ceiling / 2)
      if (error.retryAfterSeconds !== undefined) delayMs = Math.max(delayMs, Math.min(error.retryAfterSeconds * 1000, 3_600_000))
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
