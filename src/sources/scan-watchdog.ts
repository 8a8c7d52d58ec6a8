/**
 * Notices a scan that has gone quiet. Bluetooth controllers, notably the Raspberry Pi's
 * on-board one, stop delivering advertising reports after minutes or hours without any error
 * (noble issues #129, #314, #632, #598 describe it; users restart scanning on a timer). The
 * only symptom is silence, so the watchdog measures silence.
 *
 * One timer at a time, re-armed only when it fires: the per-advertisement path is a single
 * assignment (`heard`) instead of a timer reset, which matters at thousands of packets/s.
 */

import type { CancelTimer, Clock } from '../clock.js'

/** Back-off cap: with nothing on air, report a stall at most every 16 × the period. */
const MAX_BACKOFF_SHIFT = 4

/** Calls `onStall(silentMs)` whenever `periodMs` pass without `heard()` while armed. */
export class ScanWatchdog {
  private lastHeard = 0
  private backoff = 0
  private cancel: CancelTimer | undefined

  /**
   * @param periodMs - silence that counts as a stall; 0 disables the watchdog.
   * @param onStall - restarts the scan; called with the silence in ms. Stalls in a row double
   *   the next period (up to 16×) until something is heard again.
   */
  constructor(
    private readonly clock: Clock,
    private readonly periodMs: number,
    private readonly onStall: (silentMs: number) => void,
  ) {}

  /** Whether a check is pending. */
  get armed(): boolean {
    return this.cancel !== undefined
  }

  /** Starts watching from now (scanning began or resumed); does nothing while armed. */
  start(): void {
    if (this.cancel !== undefined || this.periodMs === 0) return
    this.lastHeard = this.clock.now()
    this.arm(this.limit())
  }

  /** Stops watching (scanning stopped, adapter off). */
  stop(): void {
    this.cancel?.()
    this.cancel = undefined
  }

  /** Something arrived at `now`. */
  heard(now: number): void {
    this.lastHeard = now
    if (this.backoff !== 0) this.endBackoff()
  }

  /** Advertisements are back: the pending, backed-off check would come too late. */
  private endBackoff(): void {
    this.backoff = 0
    if (this.cancel === undefined) return
    this.stop()
    this.arm(this.periodMs)
  }

  private limit(): number {
    return this.periodMs * 2 ** Math.min(this.backoff, MAX_BACKOFF_SHIFT)
  }

  private arm(delay: number): void {
    this.cancel = this.clock.setTimeout(() => {
      this.cancel = undefined
      const limit = this.limit()
      const silent = this.clock.now() - this.lastHeard
      if (silent < limit) {
        this.arm(limit - silent)
        return
      }
      this.backoff++
      this.lastHeard = this.clock.now()
      this.arm(this.limit())
      this.onStall(silent)
    }, delay)
  }
}
