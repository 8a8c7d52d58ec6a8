/**
 * Records any source's advertisements as JSONL (the recording format of fixtures/README.md),
 * so a site can be recorded once and replayed in tests. A radio cannot be paused, so backpressure is handled
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
  /**
   * The source to record. The recorder runs it: `start()` starts it and `close()` stops it.
   * (Sources added with `attach()` are the caller's to start and stop.)
   */
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
 * const recorder = new AdvertisementRecorder('site.jsonl', { source: new NobleSource() })
 * await recorder.start()   // starts the source; from now on every advertisement is written
 * // … later:
 * await recorder.close()   // stops the source, flushes and ends the file
 * ```
 */
export class AdvertisementRecorder extends EventEmitter<RecorderEvents> {
  readonly stats: RecorderStats = { written: 0, dropped: 0 }
  private readonly out: Writable
  private readonly ownsStream: boolean
  private readonly maxBuffered: number
  private readonly sources = new Map<AdvertisementSource, (adv: Advertisement) => void>()
  /** The `source` option: started by start(), stopped by close(). */
  private readonly owned: AdvertisementSource | undefined
  private started = false
  private failure: Error | undefined
  private closed = false

  constructor(target: string | Writable, options: RecorderOptions = {}) {
    super()
    const max = options.maxBufferedBytes ?? 8 * 1024 * 1024
    if (!Number.isInteger(max) || max < 1)
      throw new InvalidOptionError('invalid_option', 'maxBufferedBytes must be a positive integer.', {
        option: 'maxBufferedBytes',
      })
    this.maxBuffered = max
    if (typeof target === 'string') {
      this.out = createWriteStream(target, { flags: 'w', encoding: 'utf8' })
      this.ownsStream = true
    } else if (typeof target === 'object' && target !== null && typeof (target as Writable).write === 'function') {
      this.out = target
      this.ownsStream = false
    } else {
      throw new InvalidOptionError('invalid_option', 'AdvertisementRecorder needs a file path or a writable stream.', {
        option: 'target',
      })
    }
    this.out.on('error', (err: Error) => this.fail(err))
    this.out.write(`${formatRecordingHeader({ recordedBy: 'beaconkit', ...options.header })}\n`)
    this.owned = options.source
    if (options.source !== undefined) this.attach(options.source)
  }

  /**
   * Starts the source given as the `source` option (a second call does nothing; so does a
   * call after close()). Resolves once it runs; rejects with the source's own error (for
   * noble: BluetoothUnavailableError), and the file then holds only its header line.
   */
  async start(): Promise<void> {
    if (this.closed || this.started || this.owned === undefined) return
    this.started = true
    try {
      await this.owned.start()
    } catch (error) {
      this.started = false
      throw error
    }
  }

  /** Records `source`'s advertisements from now on; the caller starts and stops it. */
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

  /**
   * Stops the source the recorder started, detaches every source and ends the file (a stream
   * passed in is ended only if `end` is true). Rejects with a write error, if one happened.
   */
  async close(options: { end?: boolean } = {}): Promise<void> {
    if (!this.closed) {
      this.closed = true
      // Stopped before detaching: an adapter keeps running (and the process alive) otherwise.
      if (this.started && this.owned !== undefined) {
        this.started = false
        await this.owned.stop()
      }
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
    this.failure =
      code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR'
        ? new InvalidOptionError(
            'unwritable_file',
            `Cannot write the recording (${code}); check that the folder exists and is writable.`,
            { option: 'path', cause: err },
          )
        : err
    this.emit('error', this.failure)
  }
}
