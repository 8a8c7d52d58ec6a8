/**
 * The uploader's public types, option checks and backoff rule, apart from its machinery.
 */
import type { Clock } from '../clock.js'
import { AccountError, InvalidOptionError } from '../errors.js'
import type { Beacon } from '../reading.js'
import type { CallOptions, UploadResult } from './account-options.js'
import type { DropInfo, QueueWarning, UploadQueue } from '../queue/queue.js'
import { locationProblem } from './records.js'
import type { BeaconLogRecord, GeoLocation } from '../reading.js'

/** What the uploader needs of a client: `AccountClient` fits. */
export interface LogUploadClient {
  uploadLogs(records: BeaconLogRecord[], options?: CallOptions): Promise<UploadResult>
}

/** Arguments of the scanner events the uploader listens to. */
export interface UploadEventArgs {
  updated: [beacons: Beacon[]]
  found: [beacon: Beacon]
  changed: [beacon: Beacon, changes: unknown]
}

/**
 * The scanner events the uploader listens to; a `BeaconScanner` fits (the generic signature
 * mirrors eventemitter3's, so no cast is needed).
 */
export interface UploadEventSource {
  on<E extends keyof UploadEventArgs>(event: E, listener: (...args: UploadEventArgs[E]) => void): unknown
  off<E extends keyof UploadEventArgs>(event: E, listener: (...args: UploadEventArgs[E]) => void): unknown
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
  /**
   * Backoff after network errors, 5xx and 429: doubling from initialDelayMs (default 1 s) up to maxDelayMs
   * (default 5 min), jittered.
   */
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
  /** Records lost: disk bound, rejection, close with a memory queue, or damage (see `lost`). */
  dropped: number
  /** Of those, accepted records lost to a damaged or deleted segment file of the durable queue. */
  lost: number
  /** Records read back past damage in a segment file (they are delivered as usual). */
  salvaged: number
  /** Readings without a serial number (the account interface cannot attribute them). */
  skippedNoSerial: number
  /** Readings within minIntervalPerBeaconMs of the previous record of the same beacon. */
  skippedInterval: number
  /** Readings whose fields would not make a valid record (for example a non-string beaconID). */
  skippedInvalid: number
  /** Failed attempts that will be retried. */
  retries: number
  /** Failed attempts to open the queue (each followed by another, with backoff). */
  queueOpenFailures: number
}

/** All counters at zero. */
export function emptyStats(): UploaderStats {
  return {
    queued: 0,
    uploaded: 0,
    duplicates: 0,
    rejected: 0,
    dropped: 0,
    lost: 0,
    salvaged: 0,
    skippedNoSerial: 0,
    skippedInterval: 0,
    skippedInvalid: 0,
    retries: 0,
    queueOpenFailures: 0,
  }
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
  /**
   * Upload stopped (401/403 or a missing endpoint), the queue could not be opened or read, or
   * a queue write failed. Reported once per distinct failure, not once per retry. With no
   * listener, a process warning is emitted instead (once per error code).
   */
  error: [error: Error]
  /** The queue recovered from something (`stale_lock`, `segment_unreadable`, `segment_renumbered`). */
  warning: [warning: QueueWarning]
  retrying: [info: RetryInfo]
}

function option(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < min)
    throw new InvalidOptionError('invalid_option', `${name} must be a number >= ${min}`, { option: name })
  return value
}

/** Any failure of an upload attempt, as an AccountError the retry logic can branch on. */
export function asAccountError(e: unknown): AccountError {
  if (e instanceof AccountError) return e
  // The client validates records before sending; a refusal there is as final as a 400.
  if (e instanceof InvalidOptionError) return new AccountError('bad_request', e.message)
  return new AccountError('network', e instanceof Error ? e.message : 'upload failed')
}

/** Options after validation and defaults. */
export interface UploaderSettings {
  batchSize: number
  flushIntervalMs: number
  minIntervalMs: number
  initialDelayMs: number
  maxDelayMs: number
  closeTimeoutMs: number
  location: GeoLocation | undefined
}

/** Validates options (typed errors naming the option) and applies defaults. */
export function uploaderSettings(options: UploaderOptions): UploaderSettings {
  if (options === null || typeof options !== 'object' || typeof options.client?.uploadLogs !== 'function') {
    throw new InvalidOptionError('invalid_option', 'client must be an AccountClient (or anything with uploadLogs)', {
      option: 'client',
    })
  }
  let location: GeoLocation | undefined
  if (options.location !== undefined) {
    const problem = locationProblem(options.location)
    if (problem !== undefined)
      throw new InvalidOptionError('invalid_option', `location: ${problem}`, { option: 'location' })
    location = { lat: options.location.lat, lon: options.location.lon }
  }
  const initialDelayMs = option('retry.initialDelayMs', options.retry?.initialDelayMs, 1_000, 1)
  return {
    batchSize: Math.floor(option('batchSize', options.batchSize, 500, 1)),
    flushIntervalMs: option('flushIntervalMs', options.flushIntervalMs, 5_000, 0),
    minIntervalMs: option('minIntervalPerBeaconMs', options.minIntervalPerBeaconMs, 30_000, 0),
    initialDelayMs,
    maxDelayMs: option('retry.maxDelayMs', options.retry?.maxDelayMs, 300_000, initialDelayMs),
    closeTimeoutMs: option('closeTimeoutMs', options.closeTimeoutMs, 10_000, 0),
    location,
  }
}

/**
 * Backoff before retry `attempt` (1-based): doubling from initialDelayMs up to maxDelayMs,
 * with "equal jitter" (between half and all of the step) so gateways that failed together
 * do not retry together; a longer Retry-After wins, up to an hour.
 */
export function backoffDelay(
  attempt: number,
  s: Pick<UploaderSettings, 'initialDelayMs' | 'maxDelayMs'>,
  retryAfterSeconds?: number,
): number {
  const ceiling = Math.min(s.maxDelayMs, s.initialDelayMs * 2 ** Math.min(attempt - 1, 30))
  const delay = ceiling / 2 + Math.random() * (ceiling / 2)
  return retryAfterSeconds === undefined ? delay : Math.max(delay, Math.min(retryAfterSeconds * 1000, 3_600_000))
}
