/**
 * Replays a JSONL recording (docs/recordings.md) as an advertisement source: in virtual time
 * (as fast as the CPU allows, timers in recording time, exact to the ms) or in real time with
 * a speed factor. A recording is data from the field: a bad line is skipped, counted and
 * reported with its line number, never fatal.
 */
import { createReadStream } from 'node:fs'
import { EventEmitter } from 'eventemitter3'
import { parseAdvertisementLine } from '../advertisement.js'
import type { Advertisement, RecordingHeader } from '../advertisement.js'
import { RealClock, VirtualClock } from '../clock.js'
import { PacedClock } from '../paced-clock.js'
import type { Clock } from '../clock.js'
import { readLines } from './line-reader.js'
import type { InputLine } from './line-reader.js'
import type { AdvertisementSource, AdvertisementSourceEvents } from './source.js'
import { checkReplayOptions, isReadable } from './replay-options.js'
import type { ReplayInput, ReplayOptions, ReplayStats } from './replay-options.js'

/** How many malformed lines are reported one by one before the rest are only counted. */
const MAX_REPORTED = 100
/** Virtual replays yield to the event loop this often, so I/O and timers of others still run. */
const YIELD_EVERY = 2000
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
 * Both modes run timers on the recording's time line, so a scanner fed by the source sees the
 * same events at the same (recording) times whatever the mode and speed. `start()` reads up to
 * the first advertisement and sets the clock to its `t`. Virtual mode: the clock is a
 * {@link VirtualClock} moved from line to line as fast as the CPU allows. Real mode: the clock
 * is a {@link PacedClock}; a line is emitted `(t − t0) / speed` after start on the pacing
 * clock, and timers (gone timeout, update tick) wait their scaled time too.
 * Malformed lines emit `warning` ("line N: reason"); the end of input emits `end`.
 */
export class ReplaySource extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
  /** The recording's time line: a VirtualClock in virtual mode, a PacedClock in real mode. */
  readonly clock: VirtualClock | PacedClock
  /** The recording's header line, once read (if it has one). */
  header: RecordingHeader | undefined
  readonly stats: ReplayStats = { lines: 0, advertisements: 0, malformed: 0, malformedLines: [], outOfOrder: 0 }
  private readonly input: ReplayInput
  private readonly maxLineBytes: number
  /** The pacing clock (real mode), which `presentTime` reads the present from. */
  private readonly pace: Clock | undefined
  private readonly presentTime: boolean
  /** ms added to every advertisement's time (`presentTime`); 0 otherwise. */
  private shift = 0
  /** Lines come from readLines (a file or stream), not from an array the caller gave. */
  private fromStream = false
  private running = false
  private started = false
  private lines: AsyncIterator<InputLine> | Iterator<unknown> | undefined
  private close: (() => void) | undefined
  private pending: Advertisement | undefined
  /**
   * Ends the read in progress, if any: a read from a stream that is not ours (stdin) may never
   * end.
   */
  private cancelRead: (() => void) | undefined

  constructor(input: ReplayInput, options: ReplayOptions = {}) {
    super()
    const { speed, maxLineBytes } = checkReplayOptions(input, options)
    this.input = input
    this.maxLineBytes = maxLineBytes
    this.presentTime = options.presentTime === true
    this.pace = options.virtual === true ? undefined : (options.clock ?? new RealClock())
    this.clock = this.pace === undefined ? new VirtualClock(0) : new PacedClock(this.pace, speed)
  }

  /**
   * Opens the recording and sets the clock to the first advertisement's time (in real mode,
   * pinned to the pacing clock's now).
   */
  async start(): Promise<void> {
    if (this.started) return
    this.started = true
    this.running = true
    this.open()
    this.pending = await this.nextAdvertisement()
    if (this.pending !== undefined && this.presentTime && this.pace !== undefined) {
      this.shift = this.pace.now() - this.pending.timestamp
      this.pending = { ...this.pending, timestamp: this.pending.timestamp + this.shift }
    }
    if (this.pending !== undefined) {
      if (this.clock instanceof VirtualClock) this.clock.advanceTo(this.pending.timestamp)
      else this.clock.anchor(this.pending.timestamp)
    }
    setImmediate(() => void this.pump())
  }

  /** Stops emitting; the rest of the recording is not read. Safe to call twice. */
  async stop(): Promise<void> {
    this.running = false
    this.cancelRead?.()
    if (this.clock instanceof PacedClock) this.clock.halt()
    this.close?.()
    this.close = undefined
  }

  private open(): void {
    const input = this.input
    if (typeof input === 'string' || isReadable(input)) {
      const stream = typeof input === 'string' ? createReadStream(input) : input
      // Errors surface through the async iterator; this keeps an early one from going unhandled.
      stream.on('error', () => undefined)
      this.lines = readLines(stream, this.maxLineBytes)
      this.fromStream = true
      this.close = () => {
        if (typeof input === 'string') stream.destroy()
      }
    } else {
      this.lines = (input as Iterable<unknown>)[Symbol.iterator]()
    }
  }

  /** One line as read: the text, or why it cannot be parsed at all. */
  private lineText(value: unknown): { text: string } | { reason: string } {
    if (this.fromStream) {
      const line = value as InputLine
      if ('text' in line) return line
      if ('tooLong' in line) return { reason: `longer than ${this.maxLineBytes} bytes` }
      return { reason: `the stream gave a ${line.notText}, not text` }
    }
    if (typeof value !== 'string') return { reason: `not a string (a ${value === null ? 'null' : typeof value})` }
    // Lines given as an array are bounded the same way, so both inputs skip the same lines.
    if (value.length > this.maxLineBytes && Buffer.byteLength(value) > this.maxLineBytes)
      return { reason: `longer than ${this.maxLineBytes} bytes` }
    return { text: value }
  }

  /** The next line, or the end once stop() is called while waiting for it. */
  private read(
    lines: AsyncIterator<InputLine> | Iterator<unknown>,
  ): Promise<IteratorResult<unknown>> | IteratorResult<unknown> {
    if (!this.fromStream) return (lines as Iterator<unknown>).next()
    // A promise per read, not a race against one shared stop promise: each race would leave
    // a reaction on it, one per line, for the life of the replay.
    return new Promise((resolve, reject) => {
      this.cancelRead = () => resolve({ done: true, value: undefined })
      ;(lines as AsyncIterator<InputLine>).next().then(resolve, reject)
    })
  }

  /** The next advertisement of the recording, or undefined at the end. */
  private async nextAdvertisement(): Promise<Advertisement | undefined> {
    const lines = this.lines
    while (lines !== undefined && this.running) {
      let r: IteratorResult<unknown>
      try {
        r = await this.read(lines)
      } catch (err) {
        if (!this.running) return undefined
        this.emit('error', err instanceof Error ? err : new Error(String(err)))
        return undefined
      }
      if (r.done === true) return undefined
      const n = ++this.stats.lines
      const line = this.lineText(r.value)
      const parsed =
        'text' in line ? parseAdvertisementLine(line.text) : { kind: 'malformed' as const, reason: line.reason }
      switch (parsed.kind) {
        case 'advertisement':
          this.stats.advertisements++
          return this.shift === 0
            ? parsed.advertisement
            : { ...parsed.advertisement, timestamp: parsed.advertisement.timestamp + this.shift }
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
            this.emit(
              'warning',
              `more than ${MAX_REPORTED} malformed lines; further ones are only counted (replay.stats.malformed)`,
            )
          }
          break
      }
    }
    return undefined
  }

  private async pump(): Promise<void> {
    const clock = this.clock
    let count = 0
    for (;;) {
      if (clock instanceof PacedClock) clock.hold()
      const adv = this.pending ?? (await this.nextAdvertisement())
      this.pending = undefined
      if (adv === undefined || !this.running) break
      // Time never moves back: a line out of order is emitted at the present time.
      if (adv.timestamp < clock.now()) this.stats.outOfOrder++
      if (clock instanceof VirtualClock) {
        clock.advanceTo(adv.timestamp)
        if (++count % YIELD_EVERY === 0) await yieldToLoop()
      } else {
        await clock.waitUntil(adv.timestamp)
        if (!this.running) break
      }
      this.emit('advertisement', adv)
    }
    const finished = this.running
    // The end of the recording: time runs on, so its beacons age out on time.
    if (clock instanceof PacedClock && finished) clock.release()
    this.close?.()
    this.close = undefined
    if (finished) this.emit('end')
  }
}
