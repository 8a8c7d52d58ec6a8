/**
 * How far a gateway's clock is from the tracker's. Gateways stamp their batches with their own
 * clock, which may be seconds off (no NTP on a Pi that booted offline). A batch arrives after
 * it was stamped, never before, so `arrival − stamp` is the offset plus a non-negative transit
 * delay; the smallest of the recent differences is the best estimate of the offset alone (the
 * batch that travelled fastest).
 *
 * Batches come from the network, so what the estimate follows is what the gateway's batches
 * say over time, not the most extreme few: each second of arrival (tracker clock) is one vote,
 * the smallest difference of its batches, so a burst (three batches, or two hundred, in a
 * second) is one vote among the window's {@link SLOTS}. The estimate is the smallest vote within
 * {@link AGREEMENT_MS} below the window's median: the fastest batch of the majority. Stamps far
 * in the future (which would put every reading of the gateway far in the past, making its
 * beacons go) are outvoted, as they were not before when three agreed. A real step (NTP
 * correcting a Pi) is followed once {@link STEP_AGREEING} of the latest {@link STEP_SLOTS}
 * seconds agree on it: within seconds, where waiting for the window's median would take half a
 * minute. Memory is a fixed ring of SLOTS seconds.
 */

/** Seconds of batches the estimate is taken over: about a minute at one batch a second. */
export const SLOTS = 64

/** ms of arrival that make one vote. */
const SLOT_MS = 1000

/** The latest seconds a clock step is judged over. */
export const STEP_SLOTS = 5

/** Of the latest {@link STEP_SLOTS} seconds, how many must agree on a new offset before it is followed. */
export const STEP_AGREEING = 4

/** How close (ms) differences must be to agree: transit jitter on a loaded network. */
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
  /** Each slot's second of arrival (floor(arrival / SLOT_MS)), a ring; `head` is the newest. */
  private readonly second = new Float64Array(SLOTS)
  /** Each slot's vote: the smallest difference of the batches that arrived in its second. */
  private readonly vote = new Float64Array(SLOTS)
  private readonly scratch = new Float64Array(SLOTS)
  private count = 0
  private head = -1
  private best = Number.NaN

  /** Takes one batch: its stamp on the gateway clock and its arrival on the tracker clock. */
  sample(stamp: number, arrival: number): void {
    const d = arrival - stamp
    if (!Number.isFinite(d) || !Number.isFinite(arrival)) return
    const second = Math.floor(arrival / SLOT_MS)
    if (this.count > 0 && second <= this.second[this.head]) {
      // Same second (or a tracker clock that went back): the same vote.
      if (d < this.vote[this.head]) this.vote[this.head] = d
    } else {
      this.head = (this.head + 1) % SLOTS
      this.second[this.head] = second
      this.vote[this.head] = d
      if (this.count < SLOTS) this.count++
    }
    if (this.stepped()) this.count = STEP_SLOTS
    this.best = this.estimate()
  }

  /** The latest `n` votes, sorted ascending, in `scratch[0..n)`. */
  private latest(n: number): Float64Array {
    const out = this.scratch.subarray(0, n)
    for (let k = 0; k < n; k++) out[k] = this.vote[(this.head - k + SLOTS) % SLOTS]
    return out.sort()
  }

  /** Whether most of the latest STEP_SLOTS seconds agree on an offset away from the estimate. */
  private stepped(): boolean {
    if (this.count < STEP_SLOTS || Number.isNaN(this.best)) return false
    const recent = this.latest(STEP_SLOTS)
    const m = recent[STEP_SLOTS >> 1]
    if (Math.abs(m - this.best) <= AGREEMENT_MS) return false
    let agreeing = 0
    for (const v of recent) if (Math.abs(v - m) <= AGREEMENT_MS) agreeing++
    return agreeing >= STEP_AGREEING
  }

  /** The smallest vote within AGREEMENT_MS below the median of the window's votes. */
  private estimate(): number {
    const votes = this.latest(this.count)
    const floor = votes[(this.count - 1) >> 1] - AGREEMENT_MS
    for (const v of votes) if (v >= floor) return v
    return Number.NaN
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
