/**
 * Opens the uploader's queue, and keeps trying. A durable queue can fail to open for reasons
 * that pass (a full disk, a directory still locked by a process shutting down, a mount not
 * there yet); giving up for good would leave the gateway queueing nothing until a restart.
 * Attempts back off like uploads do; only a refused option is final.
 */
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import { FileQueue } from '../queue/file-queue.js'
import { MemoryQueue } from '../queue/queue.js'
import type { UploadQueue } from '../queue/queue.js'
import { isLogRecord } from './records.js'
import { backoffDelay } from './uploader-options.js'
import type { UploaderOptions, UploaderSettings } from './uploader-options.js'

/**
 * How to open the queue the options ask for: the one given, a file queue in `queueDir` (its
 * records checked as log records when read back), else a memory queue.
 */
export function queueOpenerFor(
  options: Pick<UploaderOptions, 'queue' | 'queueDir' | 'maxQueueBytes'>,
): () => Promise<UploadQueue> {
  const { queue, queueDir, maxQueueBytes } = options
  return () =>
    queue !== undefined
      ? Promise.resolve(queue)
      : queueDir !== undefined
        ? FileQueue.open({
            dir: queueDir,
            accept: isLogRecord,
            ...(maxQueueBytes === undefined ? {} : { maxBytes: maxQueueBytes }),
          })
        : Promise.resolve(new MemoryQueue())
}

/** What the opener tells its owner. */
export interface QueueOpenerHooks {
  opened(queue: UploadQueue): void
  /** Every failed attempt; `final` when no retry follows. */
  failed(error: Error, final: boolean): void
}

/** A queue being opened, with retries (see the file comment). */
export class QueueOpener {
  private current: UploadQueue | undefined
  private attempt: Promise<UploadQueue> | undefined
  private lastError: Error | undefined
  private failures = 0
  private timer: CancelTimer | undefined
  private stopped = false

  constructor(
    private readonly open: () => Promise<UploadQueue>,
    private readonly clock: Clock,
    private readonly delays: Pick<UploaderSettings, 'initialDelayMs' | 'maxDelayMs'>,
    private readonly hooks: QueueOpenerHooks,
  ) {
    this.tryOpen()
  }

  /** The open queue, if it is open. */
  get queue(): UploadQueue | undefined {
    return this.current
  }

  /** Failed attempts so far. */
  get failedAttempts(): number {
    return this.failures
  }

  /**
   * The queue; or the outcome of the attempt under way; or, between attempts, the last
   * failure at once: a caller never waits longer than one attempt.
   */
  ready(): Promise<UploadQueue> {
    if (this.current !== undefined) return Promise.resolve(this.current)
    if (this.attempt !== undefined) return this.attempt
    return Promise.reject(this.lastError ?? new Error('the upload queue is not open'))
  }

  /** No more attempts (the uploader is closing). */
  stop(): void {
    this.stopped = true
    this.timer?.()
    this.timer = undefined
  }

  private tryOpen(): void {
    this.timer = undefined
    let opening: Promise<UploadQueue>
    try {
      opening = this.open()
    } catch (e) {
      opening = Promise.reject(e instanceof Error ? e : new Error(String(e)))
    }
    const attempt = opening.then(
      (queue) => {
        this.attempt = undefined
        this.lastError = undefined
        this.current = queue
        this.hooks.opened(queue)
        return queue
      },
      (e: unknown) => {
        this.attempt = undefined
        const error = e instanceof Error ? e : new Error(String(e))
        this.lastError = error
        this.failures++
        const final = this.stopped || (error instanceof InvalidOptionError && error.code === 'invalid_option')
        if (!final) this.timer = this.clock.setTimeout(() => this.tryOpen(), backoffDelay(this.failures, this.delays))
        this.hooks.failed(error, final)
        throw error
      },
    )
    // Callers of ready() see the failure; nobody else must get an unhandled rejection.
    attempt.catch(() => undefined)
    this.attempt = attempt
  }
}
