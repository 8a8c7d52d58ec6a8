/**
 * Pacing for restarting a scan that did not start or was stopped by someone else. A fixed
 * delay turns two programs on one adapter into a restart loop at that period forever (each
 * restart begins with a scan disable that the other one sees), and a controller refusing a
 * command would be asked again every second; doubling delays make both cost almost nothing.
 */

/** Doubling delays from `baseMs` up to `maxMs`. */
export class Backoff {
  private attempts = 0

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  /** The delay before the next attempt; each call doubles the one after. */
  next(): number {
    const delay = Math.min(this.baseMs * 2 ** Math.min(this.attempts, 30), this.maxMs)
    this.attempts++
    return delay
  }

  reset(): void {
    this.attempts = 0
  }
}

/**
 * Counts interruptions of a running scan by other programs. Interruptions closer together
 * than `calmMs` belong to one episode; `loopAfter` of them in one episode is a restart loop.
 */
export class InterruptionTracker {
  private readonly backoff: Backoff
  private last = Number.NEGATIVE_INFINITY
  private count = 0

  constructor(
    baseMs: number,
    maxMs: number,
    private readonly calmMs: number,
    private readonly loopAfter: number,
  ) {
    this.backoff = new Backoff(baseMs, maxMs)
  }

  /** Records an interruption at `now`; returns the delay before resuming and whether this is a loop. */
  record(now: number): { delayMs: number; loop: boolean; count: number } {
    if (now - this.last > this.calmMs) {
      this.count = 0
      this.backoff.reset()
    }
    this.last = now
    this.count++
    return { delayMs: this.backoff.next(), loop: this.count >= this.loopAfter, count: this.count }
  }
}
