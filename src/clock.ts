/**
 * The one place time comes from. Real time for live scanning; virtual time for replays,
 * where the recording's timestamps move the clock, so tests are instant and exact to the ms.
 */

/** Cancels a timer; calling it twice is harmless. */
export type CancelTimer = () => void

/** Time and timers. Everything in the SDK that waits goes through one of these. */
export interface Clock {
  /** Milliseconds on this clock's time line (Unix epoch for the real clock). */
  now(): number
  /** Calls `fn` once after `ms`. */
  setTimeout(fn: () => void, ms: number): CancelTimer
  /** Calls `fn` every `ms` until cancelled. */
  setInterval(fn: () => void, ms: number): CancelTimer
}

/** Node's timers take at most 2^31 − 1 ms; a longer delay would fire after 1 ms instead. */
const MAX_NODE_DELAY = 2 ** 31 - 1

/**
 * Wall-clock time and Node's timers. Timers are unref'd only when asked: a scanner must keep the
 * process alive.
 */
export class RealClock implements Clock {
  now(): number {
    return Date.now()
  }

  setTimeout(fn: () => void, ms: number): CancelTimer {
    // A replay paced in real time may wait longer than Node's limit (a recording's gap of weeks).
    let handle: NodeJS.Timeout
    const wait = (left: number): void => {
      handle =
        left > MAX_NODE_DELAY ? setTimeout(() => wait(left - MAX_NODE_DELAY), MAX_NODE_DELAY) : setTimeout(fn, left)
    }
    wait(Number.isFinite(ms) && ms > 0 ? ms : 0)
    return () => clearTimeout(handle)
  }

  setInterval(fn: () => void, ms: number): CancelTimer {
    const handle = setInterval(fn, ms)
    return () => clearInterval(handle)
  }
}

interface VirtualTimer {
  due: number
  /**
   * Insertion order: timers due at the same ms fire periodic ones first, then in the order they
   * were set.
   */
  seq: number
  fn: () => void
  /** 0 for one-shot timers. */
  every: number
  cancelled: boolean
}

/**
 * Time that moves only when told to. `advanceTo(t)` fires every timer due at or before `t`
 * in due order, with `now()` equal to each timer's due time while it runs. Timers due at the
 * same ms fire periodic ones first, then in the order they were set.
 */
export class VirtualClock implements Clock {
  private current: number
  private seq = 0
  /** Binary min-heap on (due, seq). */
  private readonly heap: VirtualTimer[] = []

  constructor(start = 0) {
    this.current = start
  }

  now(): number {
    return this.current
  }

  setTimeout(fn: () => void, ms: number): CancelTimer {
    return this.add(fn, ms, 0)
  }

  setInterval(fn: () => void, ms: number): CancelTimer {
    // A zero or negative period would make advanceTo loop forever.
    return this.add(fn, ms, Math.max(1, ms))
  }

  /** Due time of the next live timer, or undefined when none is set. */
  nextDue(): number | undefined {
    this.dropCancelledHead()
    return this.heap[0]?.due
  }

  /** Moves time forward to `t` (never backward), firing due timers on the way. */
  advanceTo(t: number): void {
    for (;;) {
      this.dropCancelledHead()
      const next = this.heap[0]
      if (next === undefined || next.due > t) break
      this.pop()
      this.current = Math.max(this.current, next.due)
      if (next.every > 0) {
        next.due += next.every
        this.push(next)
      } else {
        next.cancelled = true
      }
      next.fn()
    }
    this.current = Math.max(this.current, t)
  }

  /** Moves time forward by `ms`. */
  advanceBy(ms: number): void {
    this.advanceTo(this.current + ms)
  }

  private add(fn: () => void, ms: number, every: number): CancelTimer {
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0
    const timer: VirtualTimer = { due: this.current + delay, seq: this.seq++, fn, every, cancelled: false }
    this.push(timer)
    return () => {
      timer.cancelled = true
    }
  }

  private dropCancelledHead(): void {
    while (this.heap.length > 0 && this.heap[0].cancelled) this.pop()
  }

  private less(a: VirtualTimer, b: VirtualTimer): boolean {
    if (a.due !== b.due) return a.due < b.due
    // Periodic timers first: a tick paused and resumed later keeps its place before the
    // one-shot timers due at the same ms, as the tick that ran from the start had.
    if (a.every > 0 !== b.every > 0) return a.every > 0
    return a.seq < b.seq
  }

  private push(timer: VirtualTimer): void {
    const heap = this.heap
    heap.push(timer)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(heap[i], heap[parent])) break
      ;[heap[i], heap[parent]] = [heap[parent], heap[i]]
      i = parent
    }
  }

  private pop(): void {
    const heap = this.heap
    const last = heap.pop()
    if (last === undefined || heap.length === 0) return
    heap[0] = last
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < heap.length && this.less(heap[l], heap[m])) m = l
      if (r < heap.length && this.less(heap[r], heap[m])) m = r
      if (m === i) break
      ;[heap[i], heap[m]] = [heap[m], heap[i]]
      i = m
    }
  }
}
