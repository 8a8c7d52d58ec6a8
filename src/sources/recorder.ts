/**
 * Records any source's advertisements as JSONL (DESIGN.md section 3), so a site can be
 * recorded once and replayed in tests. A radio cannot be paused, so backpressure is handled
 * by bounding what waits in memory: beyond `maxBufferedBytes` lines are dropped and counted.
 */
import { createWriteStream } from 'node:fs'
import type { Writable } from 'node:stream'
import { EventEmitter } from 'eventemitter3'
import { formatAdvertisementLine, formatRecordingHeader } from '../advertisement.js'
import type { Advertisement } from '../advertisement.js'
import { InvalidOptionError } from '../errors.js'
import type { AdvertisementSource } from './source.js'

/** Options of {@link AdvertisementRecorder}. */
export interface RecorderOptions {
  /** Start recording this source at once (same as `attach(source)`). */
  source?: AdvertisementSource
  /** Extra members of the header line (site, notes…). */
  header?: Record<string, unknown>
  /** Bytes allowed to wait for a slow disk before lines are dropped. Default 8 MiB. */
  maxBufferedBytes?: number
}

/** Counters of a recorder. */
export interface RecorderStats {
  /** Advertisement lines written (handed to the stream). */
  written: number
  /** Lines dropped because the stream fell more than `maxBufferedBytes` behind. */
  dropped: number
}

/** Events of a recorder. */
export interface RecorderEvents {
  error: [Error]
}

/**
 * Writes advertisements as JSONL: the header line first, then one line per advertisement.
 *
 * ```ts
 * const recorder = new AdvertisementRecorder('site.jsonl', { source })
 * await source.start()
 * // …
 * await recorder.close()
 * ```
 */
export class AdvertisementRecorder extends EventEmitter<RecorderEvents> {
  readonly stats: RecorderStats = { written: 0, dropped: 0 }
  private readonly out: Writable
  private readonly ownsStream: boolean
  private readonly maxBuffered: number
  private readonly sources = new Map<AdvertisementSource, (adv: Advertisement) => void>()
  private failure: Error | undefined
  private closed = false

  constructor(target: string | Writable, options: RecorderOptions = {}) {
    super()
    const max = options.maxBufferedBytes ?? 8 * 1024 * 1024
    if (!Number.isInteger(max) || max < 1) throw new InvalidOptionError('invalid_option', 'maxBufferedBytes must be a positive integer.', { option: 'maxBufferedBytes' })
    this.maxBuffered = max
    if (typeof target === 'string') {
      this.out = createWriteStream(target, { flags: 'w', encoding: 'utf8' })
      this.ownsStream = true
    } else if (typeof target === 'object' && target !== null && typeof (target as Writable).write === 'function') {
      this.out = target
      this.ownsStream = false
    } else {
      throw new InvalidOptionError('invalid_option', 'AdvertisementRecorder needs a file path or a writable stream.', { option: 'target' })
    }
    this.out.on('error', (err: Error) => this.fail(err))
    this.out.write(`${formatRecordingHeader({ recordedBy: 'beaconkit', ...options.header })}\n`)
    if (options.source !== undefined) this.attach(options.source)
  }

  /** Records `source`'s advertisements from now on. */
  attach(source: AdvertisementSource): this {
    if (this.closed || this.sources.has(source)) return this
    const listener = (adv: Advertisement): void => this.write(adv)
    this.sources.set(source, listener)
    source.on('advertisement', listener)
    return this
  }

  /** Stops recording `source`. */
  detach(source: AdvertisementSource): this {
    const listener = this.sources.get(source)
    if (listener !== undefined) source.off('advertisement', listener)
    this.sources.delete(source)
    return this
  }

  /** Writes one advertisement (also usable without a source). */
  write(adv: Advertisement): void {
    if (this.closed || this.failure !== undefined) return
    if (this.out.writableLength > this.maxBuffered) {
      this.stats.dropped++
      return
    }
    this.out.write(`${formatAdvertisementLine(adv)}\n`)
    this.stats.written++
  }

  /** Resolves once everything written so far has left the stream's buffer. */
  async flush(): Promise<void> {
    if (this.failure !== undefined) throw this.failure
    if (this.out.writableLength === 0 || !this.out.writableNeedDrain) return
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.out.off('drain', done)
        this.out.off('error', done)
        resolve()
      }
      this.out.on('drain', done)
      this.out.on('error', done)
    })
    if (this.failure !== undefined) throw this.failure
  }

  /** Detaches every source and ends the file (a stream passed in is ended only if `end` is true). Rejects with a write error, if one happened. */
  async close(options: { end?: boolean } = {}): Promise<void> {
    if (!this.closed) {
      this.closed = true
      for (const source of [...this.sources.keys()]) this.detach(source)
      if (this.ownsStream || options.end === true) {
        await new Promise<void>((resolve) => {
          if (this.out.writableFinished || this.out.destroyed) return resolve()
          this.out.once('error', () => resolve())
          this.out.end(() => resolve())
        })
      } else {
        await this.flush().catch(() => undefined)
      }
    }
    if (this.failure !== undefined) throw this.failure
  }

  private fail(err: Error): void {
    if (this.failure !== undefined) return
    const code = (err as NodeJS.ErrnoException).code
    this.failure = code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR'
      ? new InvalidOptionError('unwritable_file', `Cannot write the recording (${code}); check that the folder exists and is writable.`, { option: 'path', cause: err })
      : err
    this.emit('error', this.failure)
  }
}
