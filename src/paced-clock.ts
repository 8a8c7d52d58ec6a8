/** Replay time paced by another clock: a recording played at a chosen speed (see clock.ts). */
import { VirtualClock } from './clock.js'
import type { CancelTimer, Clock } from './clock.js'

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
