/**
 * How far a gateway's clock is from the tracker's. Gateways stamp their batches with their own
 * clock, which may be seconds off (no NTP on a Pi that booted offline). A batch arrives after
 * it was stamped, never before, so `arrival − stamp` is the offset plus a non-negative transit
 * delay; the smallest of the recent differences is the best estimate of the offset alone (the
 * batch that travelled fastest). A window rather than the all-time minimum lets the estimate
 * follow a clock that is stepped or drifts.
 */

/** Batches the minimum is taken over: about a minute at one batch a second. */
const WINDOW = 64

/** The offset estimate of one gateway. */
export class ClockOffset {
  private readonly samples = new Float64Array(WINDOW)
  private count = 0
  private next = 0
  private best = Number.NaN

  /** Takes one batch: its stamp on the gateway clock and its arrival on the tracker clock. */
  sample(stamp: number, arrival: number): void {
    const d = arrival - stamp
    if (!Number.isFinite(d)) return
    const leaving = this.count === WINDOW ? this.samples[this.next] : Number.NaN
    this.samples[this.next] = d
    this.next = (this.next + 1) % WINDOW
    if (this.count < WINDOW) this.count++
    if (Number.isNaN(this.best) || d <= this.best) this.best = d
    else if (leaving === this.best) {
      // The minimum just left the window: find the new one (rare; O(WINDOW)).
      let m = Infinity
      for (let i = 0; i < this.count; i++) if (this.samples[i] < m) m = this.samples[i]
      this.best = m
    }
  }

  /** Tracker time minus gateway time, ms; 0 before the first batch. */
  get offsetMs(): number {
    return Number.isNaN(this.best) ? 0 : this.best
  }

  /** A gateway time on the tracker's clock, never later than `arrival` (the batch cannot describe the future). */
  toTracker(gatewayTime: number, arrival: number): number {
    const t = gatewayTime + this.offsetMs
    return t > arrival ? arrival : t
  }
}
