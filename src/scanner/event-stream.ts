/**
 * Scanner events as an async iterable. Events are pushed synchronously by the scanner and
 * pulled whenever the consumer gets round to it, so the buffer between them is bounded: a
 * consumer that falls behind loses the oldest events (counted), never the scanner's memory.
 */
import type { AdapterState } from '../sources/source.js'
import type { Beacon } from '../reading.js'
import type { BeaconChanges } from '../range/merge.js'

/** A scanner warning: something was skipped or recovered, scanning goes on. */
export interface ScannerWarning {
  /** Stable reason, e.g. `malformed_line` or `source_warning`. */
  code: string
  message: string
  /** For recordings: the 1-based line number at fault. */
  line?: number
  /** With several adapters (CombinedSource): the adapter the warning is about. */
  adapter?: string
}

/**
 * One scanner event as an object: the `--json` shapes of docs/cli.md (`found`, `gone`,
 * `changed`, `updated`), plus `state`, `warning` and `error`. `time` is clock time (ms).
 */
export type ScannerEvent =
  | { event: 'found' | 'gone'; time: number; beacon: Beacon }
  | { event: 'changed'; time: number; beacon: Beacon; changes: BeaconChanges }
  | { event: 'updated'; time: number; beacons: Beacon[] }
  | { event: 'state'; time: number; state: AdapterState }
  | { event: 'warning'; time: number; warning: ScannerWarning }
  | { event: 'error'; time: number; error: { name: string; message: string; code?: string } }

/** An async iterator over events that also says how many it dropped. */
export interface EventIterator<E> extends AsyncIterableIterator<E> {
  /** Events dropped because the consumer was slower than the emitter and the buffer was full. */
  readonly dropped: number
}

/** An async iterator over scanner events that also says how many it dropped. */
export type ScannerEventIterator = EventIterator<ScannerEvent>

/** The buffer behind one `scanner.events()` (or `tracker.events()`) iterator. */
export class EventStream<E = ScannerEvent> implements EventIterator<E> {
  private readonly buffer: E[] = []
  /** Index of the oldest unread event: shifting a large array per read would be O(n). */
  private start = 0
  private waiting: ((r: IteratorResult<E>) => void) | undefined
  private ended = false
  private droppedCount = 0

  constructor(
    private readonly capacity: number,
    private readonly onClose: () => void,
  ) {}

  get dropped(): number {
    return this.droppedCount
  }

  /** Adds an event; drops the oldest when full. */
  push(event: E): void {
    if (this.ended) return
    if (this.waiting !== undefined) {
      const resolve = this.waiting
      this.waiting = undefined
      resolve({ value: event, done: false })
      return
    }
    if (this.buffer.length - this.start >= this.capacity) {
      this.start++
      this.droppedCount++
      if (this.start > 1024 && this.start * 2 > this.buffer.length) {
        this.buffer.splice(0, this.start)
        this.start = 0
      }
    }
    this.buffer.push(event)
  }

  /** Ends the stream: buffered events are still delivered unless `discard`. */
  end(discard = false): void {
    if (this.ended) return
    this.ended = true
    if (discard) {
      this.buffer.length = 0
      this.start = 0
    }
    if (this.waiting !== undefined) {
      const resolve = this.waiting
      this.waiting = undefined
      resolve({ value: undefined, done: true })
    }
    this.onClose()
  }

  next(): Promise<IteratorResult<E>> {
    if (this.start < this.buffer.length) {
      const value = this.buffer[this.start++]
      if (this.start === this.buffer.length) {
        this.buffer.length = 0
        this.start = 0
      }
      return Promise.resolve({ value, done: false })
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true })
    return new Promise((resolve) => {
      this.waiting = resolve
    })
  }

  return(): Promise<IteratorResult<E>> {
    this.end(true)
    return Promise.resolve({ value: undefined, done: true })
  }

  [Symbol.asyncIterator](): this {
    return this
  }
}
