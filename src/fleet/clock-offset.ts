/**
 * How far a gateway's clock is from the tracker's. Gateways stamp their batches with their own
 * clock, which may be seconds off (no NTP on a Pi that booted offline). A batch arrives after
 * it was stamped, never before, so `arrival − stamp` is the offset plus a non-negative transit
 * delay; the smallest of the recent differences is the best estimate of the offset alone (the
 * batch that travelled fastest). A window rather than the all-time minimum lets the estimate
 * follow a clock that is stepped or drifts.
 *
 * Batches come from the network, so one must not be able to move the estimate: the minimum
 * taken is the smallest difference that {@link CONFIRMATIONS} − 1 other batches of the window
 * confirm (lie within {@link AGREEMENT_MS} above it). A lone stamp far in the future (which
 * would put every reading of the gateway far in the past, making its beacons go) is outvoted;
 * a genuine clock step is followed once CONFIRMATIONS batches after it arrived.
 */

/** Batches the minimum is taken over: about a minute at one batch a second. */
const WINDOW = 64

/** Batches that must agree on a difference before it is the estimate (a lone outlier never is). */
export const CONFIRMATIONS = 3

/** How close (ms) differences must be to confirm each other: transit jitter on a loaded network. */
export const AGREEMENT_MS = 1000

/**
 * How far before its batch's arrival a reading's time may lie (ms). A batch carries the beacons
 * heard since the gateway's previous batch, a second ago normally; a minute covers a gateway
 * whose publisher stalled. A reading's `lastSeen` comes from the network: bounded to this window
 * before anything uses it, so no time from a gateway can be absurd (−1e20 stalled the positioner).
 */
export const READING_WINDOW_MS = 60_000

/** The offset estimate of one gateway. */
export class ClockOffset {
  /** The window's differences, sorted ascending (insertion: WINDOW is small). */
  private readonly sorted = new Float64Array(WINDOW)
  /** The window's differences in arrival order (a ring), to know which one leaves. */
  private readonly ring = new Float64Array(WINDOW)
  private count = 0
  private next = 0
  private best = Number.NaN

  /** Takes one batch: its stamp on the gateway clock and its arrival on the tracker clock. */
  sample(stamp: number, arrival: number): void {
    const d = arrival - stamp
    if (!Number.isFinite(d)) return
    if (this.count === WINDOW) this.remove(this.ring[this.next])
    this.ring[this.next] = d
    this.next = (this.next + 1) % WINDOW
    this.insert(d)
    this.best = this.estimate()
  }

  private remove(d: number): void {
    const s = this.sorted
    let i = 0
    while (i < this.count && s[i] !== d) i++
    s.copyWithin(i, i + 1, this.count)
    this.count--
  }

  private insert(d: number): void {
    const s = this.sorted
    let i = this.count
    while (i > 0 && s[i - 1] > d) {
      s[i] = s[i - 1]
      i--
    }
    s[i] = d
    this.count++
  }

  /**
   * The smallest difference with CONFIRMATIONS − 1 others within AGREEMENT_MS above it. Before
   * CONFIRMATIONS batches, the smallest (a new gateway needs an offset from its first batch;
   * a hostile first batch only poisons what it names until real batches outvote it). When no
   * difference is confirmed (transit jitter beyond AGREEMENT_MS), the CONFIRMATIONS-th
   * smallest: still never a lone outlier.
   */
  private estimate(): number {
    const s = this.sorted
    const n = this.count
    if (n < CONFIRMATIONS) return s[0]
    for (let i = 0; i + CONFIRMATIONS - 1 < n; i++) if (s[i + CONFIRMATIONS - 1] - s[i] <= AGREEMENT_MS) return s[i]
    return s[CONFIRMATIONS - 1]
  }

  /** Tracker time minus gateway time, ms; 0 before the first batch. */
  get offsetMs(): number {
    return Number.isNaN(this.best) ? 0 : this.best
  }

  /**
   * A gateway time on the tracker's clock, within the batch's arrival window: never later than
   * `arrival` (the batch cannot describe the future), never more than {@link READING_WINDOW_MS}
   * before it. A time that is not a number at all is taken as the arrival.
   */
  toTracker(gatewayTime: number, arrival: number): number {
    const t = gatewayTime + this.offsetMs
    if (!(t <= arrival)) return arrival
    return t < arrival - READING_WINDOW_MS ? arrival - READING_WINDOW_MS : t
  }
}
