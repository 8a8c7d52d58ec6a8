/**
 * How the uploader sends one batch: retried with backoff until the server acknowledges it or
 * refuses it for good, and a 400 narrowed down to the records that caused it. Kept apart from
 * the uploader's scheduling, which decides when a batch goes.
 */
import type { EventEmitter } from 'eventemitter3'
import type { Clock } from '../clock.js'
import type { AccountError } from '../errors.js'
import type { QueuedRecord, UploadQueue } from '../queue/queue.js'
import { asAccountError, backoffDelay } from './uploader-options.js'
import type { LogUploadClient, UploaderEvents, UploaderSettings, UploaderStats } from './uploader-options.js'
import type { UploaderReports } from './uploader-reports.js'

/** What delivery needs from the uploader it works for. */
export interface DeliveryHost {
  /** True once upload has stopped: delivery gives up. */
  stopped(): boolean
  /** The server refused for good (credentials, URL): upload stops until resume(). */
  halt(error: AccountError): void
}

/** What the uploader hands its {@link BatchDelivery}. */
export interface DeliveryParts {
  client: LogUploadClient
  settings: UploaderSettings
  clock: Clock
  stats: UploaderStats
  /** The uploader, which emits `uploaded` and `retrying`. */
  emitter: EventEmitter<UploaderEvents>
  reports: UploaderReports
  host: DeliveryHost
}

/** Sends batches for one uploader; {@link BatchDelivery.cancel} cuts off the request in flight. */
export class BatchDelivery {
  private readonly abort = new AbortController()
  private wakeUp: (() => void) | undefined

  constructor(private readonly parts: DeliveryParts) {}

  /** Ends a backoff pause now (the uploader is closing). */
  wake(): void {
    this.wakeUp?.()
  }

  /** Aborts the request in flight; every later one fails `aborted` at once. */
  cancel(): void {
    this.abort.abort()
  }

  /** Sends one batch until it is acknowledged or rejected; false when upload has stopped. */
  async deliver(queue: UploadQueue, batch: QueuedRecord[]): Promise<boolean> {
    const { client, settings, stats, emitter, host } = this.parts
    for (let attempt = 1; ; attempt++) {
      if (host.stopped()) return false
      let error: AccountError
      try {
        const result = await client.uploadLogs(
          batch.map((q) => q.record),
          { signal: this.abort.signal },
        )
        await queue.ack(batch[batch.length - 1].seq)
        stats.uploaded += batch.length
        stats.duplicates += result.duplicates ?? 0
        emitter.emit(
          'uploaded',
          result.duplicates === undefined
            ? { count: batch.length }
            : { count: batch.length, duplicates: result.duplicates },
        )
        return true
      } catch (e) {
        error = asAccountError(e)
      }
      if (error.code === 'aborted' || host.stopped()) return false
      if (error.code === 'bad_request') return this.rejected(queue, batch, error)
      if (error.code === 'unauthorized' || error.code === 'not_found' || error.code === 'insecure_url') {
        host.halt(error)
        return false
      }
      stats.retries++
      const delayMs = backoffDelay(attempt, settings, error.retryAfterSeconds)
      emitter.emit('retrying', { error, attempt, delayMs })
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
    this.parts.stats.rejected++
    this.parts.reports.dropped({ count: 1, reason: 'rejected', error })
    return true
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.parts.clock.setTimeout(() => {
        this.wakeUp = undefined
        resolve()
      }, ms)
      this.wakeUp = () => {
        cancel()
        this.wakeUp = undefined
        resolve()
      }
    })
  }
}
