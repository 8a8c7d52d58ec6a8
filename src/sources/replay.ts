/**
 * Replays a JSONL recording (docs/recordings.md) as an advertisement source: in virtual time
 * (as fast as the CPU allows, timers in recording time, exact to the ms) or in real time with
 * a speed factor. A recording is data from the field: a bad line is skipped, counted and
 * reported with its line number, never fatal.
 */
import { statSync, createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { EventEmitter } from 'eventemitter3'
import { parseAdvertisementLine } from '../advertisement.js'
import type { Advertisement, RecordingHeader } from '../advertisement.js'
import { RealClock, VirtualClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import type { AdvertisementSource, AdvertisementSourceEvents } from './source.js'

/** Options of {@link ReplaySource}. */
export interface ReplayOptions {
  /** Run in virtual time: the source exposes a VirtualClock moved to each line's `t`. Default false. */
  virtual?: boolean
  /** Real-time mode: playback speed factor (2 = twice as fast). Default 1. */
  speed?: number
  /** Real-time mode: the clock to pace playback with. Default real time. */
  clock?: Clock
}

/** Counters of a replay. */
export interface ReplayStats {
  /** Lines read, including header, blank and malformed lines. */
  lines: number
  advertisements: number
  /** Lines skipped as malformed. */
  malformed: number
  /** Line numbers (1-based) of the first 100 malformed lines, with the reason. */
  malformedLines: { line: number; reason: string }[]
  /** Advertisements whose `t` went backwards (emitted, but time did not move back). */
  outOfOrder: number
}

/** A recording: a file path, the lines themselves, or a readable stream of JSONL text. */
export type ReplayInput = string | Iterable<string> | Readable

/** How many malformed lines are reported one by one before the rest are only counted. */
const MAX_REPORTED = 100
/** Virtual replays yield to the event loop this often, so I/O and timers of others still run. */
const YIELD_EVERY = 2000

function isReadable(x: unknown): x is Readable {
  return typeof x === 'object' && x !== null && typeof (x as Readable).pipe === 'function' && typeof (x as Readable).on === 'function'
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Advertisements from a recording.
 *
 * ```ts
 * const source = new ReplaySource('fixtures/demo.jsonl', { virtual: true })
 * const scanner = new BeaconScanner({ source }) // uses source.clock
 * await scanner.start(); await scanner.drain(); await scanner.stop()
 * ```
 *
 * Virtual mode: `start()` reads up to the first advertisement and sets the clock to its `t`,
 * so timers armed afterwards run on the recording's time line. Real mode: a line is emitted
 * `(t − t0) / speed` after start, with its timestamp rebased onto the pacing clock.
 * Malformed lines emit `warning` ("line N: reason"); the end of input emits `end`.
 */
export class ReplaySource extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
  /** Present in virtual mode: the recording's time line. */
  readonly clock?: VirtualClock
  /** The recording's header line, once read (if it has one). */
  header: RecordingHeader | undefined
  readonly stats: ReplayStats = { lines: 0, advertisements: 0, malformed: 0, malformedLines: [], outOfOrder: 0 }
  private readonly input: ReplayInput
  private readonly speed: number
  private readonly pace: Clock
  private running = false
  private started = false
  private lines: AsyncIterator<string> | Iterator<string> | undefined
  private close: (() => void) | undefined
  private pending: Advertisement | undefined
  private cancelWait: CancelTimer | undefined
  private wake: (() => void) | undefined

  constructor(input: ReplayInput, options: ReplayOptions = {}) {
    super()
    if (typeof options !== 'object' || options === null) throw new InvalidOptionError('invalid_option', 'ReplaySource options must be an object.', { option: 'options' })
    const speed = options.speed ?? 1
    if (typeof speed !== 'number' || !Number.isFinite(speed) || speed <= 0) {
      throw new InvalidOptionError('invalid_option', `speed must be a positive number (1 = real time, 10 = ten times faster); got ${String(speed)}.`, { option: 'speed' })
    }
    if (options.virtual !== undefined && typeof options.virtual !== 'boolean') throw new InvalidOptionError('invalid_option', 'virtual must be true or false.', { option: 'virtual' })
    if (typeof input === 'string') {
      try {
        if (!statSync(input).isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' })
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'ENOENT') throw new InvalidOptionError('file_not_found', `Recording ${input} does not exist; check the path.`, { option: 'path', cause: err })
        throw new InvalidOptionError('unreadable_file', `Recording ${input} cannot be read (${code ?? 'error'}); pass a JSONL file.`, { option: 'path', cause: err })
      }
    } else if (!isReadable(input) && (input === null || typeof (input as Iterable<string>)[Symbol.iterator] !== 'function')) {
      throw new InvalidOptionError('invalid_option', 'ReplaySource needs a file path, an array of JSONL lines or a readable stream.', { option: 'input' })
    }
    this.input = input
    this.speed = speed
    this.pace = options.clock ?? new RealClock()
    if (options.virtual === true) this.clock = new VirtualClock(0)
  }

  /** Opens the recording; in virtual mode also moves the clock to the first advertisement. */
  async start(): Promise<void> {
    if (this.started) return
    this.started = true
    this.running = true
    this.open()
    if (this.clock !== undefined) {
      this.pending = await this.nextAdvertisement()
      if (this.pending !== undefined) this.clock.advanceTo(this.pending.timestamp)
    }
    setImmediate(() => void this.pump())
  }

  /** Stops emitting; the rest of the recording is not read. Safe to call twice. */
  async stop(): Promise<void> {
    this.running = false
    this.cancelWait?.()
    this.cancelWait = undefined
    this.wake?.()
    this.close?.()
    this.close = undefined
  }

  private open(): void {
    const input = this.input
    if (typeof input === 'string' || isReadable(input)) {
      const stream = typeof input === 'string' ? createReadStream(input, { encoding: 'utf8' }) : input
      const rl = createInterface({ input: stream, crlfDelay: Infinity })
      // Errors surface through the async iterator; this keeps an early one from going unhandled.
      stream.on('error', () => undefined)
      this.lines = rl[Symbol.asyncIterator]()
      this.close = () => {
        rl.close()
        if (typeof input === 'string') (stream as Readable).destroy()
      }
    } else {
      this.lines = (input as Iterable<string>)[Symbol.iterator]()
    }
  }

  /** The next advertisement of the recording, or undefined at the end. */
  private async nextAdvertisement(): Promise<Advertisement | undefined> {
    const lines = this.lines
    while (lines !== undefined && this.running) {
      let r: IteratorResult<string>
      try {
        r = await lines.next()
      } catch (err) {
        this.emit('error', err instanceof Error ? err : new Error(String(err)))
        return undefined
      }
      if (r.done === true) return undefined
      const n = ++this.stats.lines
      const parsed = parseAdvertisementLine(r.value)
      switch (parsed.kind) {
        case 'advertisement':
          this.stats.advertisements++
          return parsed.advertisement
        case 'header':
          if (this.header === undefined) this.header = parsed.header
          break
        case 'blank':
          break
        case 'malformed':
          this.stats.malformed++
          if (this.stats.malformedLines.length < MAX_REPORTED) {
            this.stats.malformedLines.push({ line: n, reason: parsed.reason })
            this.emit('warning', `line ${n}: ${parsed.reason}; line skipped`)
          } else if (this.stats.malformed === MAX_REPORTED + 1) {
            this.emit('warning', `more than ${MAX_REPORTED} malformed lines; further ones are only counted (replay.stats.malformed)`)
          }
          break
      }
    }
    return undefined
  }

  private async pump(): Promise<void> {
    let t0: number | undefined
    let wall0 = 0
    let count = 0
    for (;;) {
      const adv = this.pending ?? (await this.nextAdvertisement())
      this.pending = undefined
      if (adv === undefined || !this.running) break
      if (this.clock !== undefined) {
        if (adv.timestamp < this.clock.now()) this.stats.outOfOrder++
        this.clock.advanceTo(adv.timestamp)
        if (++count % YIELD_EVERY === 0) await yieldToLoop()
      } else {
        if (t0 === undefined) {
          t0 = adv.timestamp
          wall0 = this.pace.now()
        }
        const due = wall0 + (adv.timestamp - t0) / this.speed
        if (due > this.pace.now()) await this.sleep(due - this.pace.now())
        if (!this.running) break
        adv.timestamp = Math.round(due)
      }
      this.emit('advertisement', adv)
    }
    const finished = this.running
    this.close?.()
    this.close = undefined
    if (finished) this.emit('end')
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve
      this.cancelWait = this.pace.setTimeout(() => {
        this.cancelWait = undefined
        this.wake = undefined
        resolve()
      }, ms)
    })
  }
}
