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

/** Wall-clock time and Node's timers. Timers are unref'd only when asked: a scanner must keep the process alive. */
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
  /** Insertion order: timers due at the same ms fire periodic ones first, then in the order they were set. */
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

/**
 * Replay time paced by another clock (real time by default): `speed` ms of replay time pass
 * per ms of the pacing clock. Timers run on the replay time line, exactly as on a
 * {@link VirtualClock} (each fires with `now()` equal to its due time, in due order), only
 * each waits for its moment on the pacing clock. So a replay at any speed sees the same
 * events at the same replay times as a virtual replay; only the wall time differs.
 *
 * `now()` moves in steps: to a timer's due time when it fires, to a line's time when the
 * replay reaches it ({@link PacedClock.waitUntil}).
 */
export class PacedClock implements Clock {
  private readonly line: VirtualClock
  /** Pacing-clock time at which the replay time line was at `origin`. */
  private paceOrigin = 0
  private origin = 0
  private cancelWake: CancelTimer | undefined
  private target: { t: number; resolve: () => void } | undefined
  private waking = false
  private halted = false
  /** Time stands still (a reader is fetching the next line, whose time is not known yet). */
  private held = false

  constructor(
    private readonly pace: Clock,
    /** Replay ms per pacing ms (2 = twice as fast). */
    readonly speed: number,
    start = 0,
  ) {
    this.line = new VirtualClock(start)
    this.origin = start
    this.paceOrigin = pace.now()
  }

  now(): number {
    return this.line.now()
  }

  setTimeout(fn: () => void, ms: number): CancelTimer {
    const cancel = this.line.setTimeout(fn, ms)
    this.rearm()
    return cancel
  }

  setInterval(fn: () => void, ms: number): CancelTimer {
    const cancel = this.line.setInterval(fn, ms)
    this.rearm()
    return cancel
  }

  /** Pins replay time `t` (not before now) to the pacing clock's present moment. */
  anchor(t: number): void {
    this.line.advanceTo(t)
    this.origin = this.line.now()
    this.paceOrigin = this.pace.now()
    this.rearm()
  }

  /**
   * Resolves when replay time reaches `t`, firing the timers due before it on the way, each
   * at its own paced moment. Resolves at once for a time already passed. One wait at a time.
   */
  waitUntil(t: number): Promise<void> {
    this.held = false
    if (this.halted || t <= this.line.now()) return Promise.resolve()
    return new Promise((resolve) => {
      this.target = { t, resolve }
      this.rearm()
    })
  }

  /**
   * Stops time until the next {@link PacedClock.waitUntil} or {@link PacedClock.release}: while
   * a replay reads its next line, a timer due after that line must not fire before it.
   */
  hold(): void {
    this.held = true
    this.cancelWake?.()
    this.cancelWake = undefined
  }

  /** Lets time run on after {@link PacedClock.hold} (at the end of a recording). */
  release(): void {
    this.held = false
    this.rearm()
  }

  /** Stops pacing: no timer fires any more and a pending wait resolves. */
  halt(): void {
    this.halted = true
    this.cancelWake?.()
    this.cancelWake = undefined
    const target = this.target
    this.target = undefined
    target?.resolve()
  }

  /** When replay time `t` comes on the pacing clock. */
  private paceTimeOf(t: number): number {
    return this.paceOrigin + (t - this.origin) / this.speed
  }

  private rearm(): void {
    if (this.waking || this.halted || this.held) return
    this.cancelWake?.()
    this.cancelWake = undefined
    const due = this.line.nextDue()
    const next = this.target === undefined ? due : due === undefined ? this.target.t : Math.min(due, this.target.t)
    if (next === undefined) return
    this.cancelWake = this.pace.setTimeout(() => this.wake(), Math.max(0, this.paceTimeOf(next) - this.pace.now()))
  }

  private wake(): void {
    this.cancelWake = undefined
    this.waking = true
    try {
      const paceNow = this.pace.now()
      // Timers due before the awaited line fire first, each at its exact due time, as in a virtual replay.
      const limit = this.target?.t ?? Infinity
      for (
        let due = this.line.nextDue();
        due !== undefined && due <= limit && this.paceTimeOf(due) <= paceNow && !this.halted;
        due = this.line.nextDue()
      ) {
        this.line.advanceTo(due)
      }
      const target = this.target
      if (target !== undefined && this.paceTimeOf(target.t) <= paceNow && !this.halted) {
        this.line.advanceTo(target.t)
        this.target = undefined
        target.resolve()
      }
    } finally {
      this.waking = false
    }
    this.rearm()
  }
}
