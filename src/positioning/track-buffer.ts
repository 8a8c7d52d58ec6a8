/**
 * One beacon's recent packets in a fixed-size ring, kept in time order: what the single-shot
 * methods average over a window and what the filter folds in. Fixed size, so a beacon's memory
 * is bounded however fast its packets come.
 */

/** A time-ordered ring of (time, anchor index, rssi). */
export class TrackBuffer {
  private readonly times: Float64Array
  private readonly anchors: Int16Array
  private readonly rssi: Float32Array
  private start = 0
  /** Entries held. */
  length = 0

  constructor(readonly capacity: number) {
    this.times = new Float64Array(capacity)
    this.anchors = new Int16Array(capacity)
    this.rssi = new Float32Array(capacity)
  }

  /** Time of entry `i` (0 is the oldest). */
  time(i: number): number {
    return this.times[(this.start + i) % this.capacity]
  }

  /** Anchor index of entry `i`. */
  anchor(i: number): number {
    return this.anchors[(this.start + i) % this.capacity]
  }

  /** RSSI of entry `i`. */
  value(i: number): number {
    return this.rssi[(this.start + i) % this.capacity]
  }

  /** Whether the ring is full (the next push drops the oldest entry). */
  get full(): boolean {
    return this.length === this.capacity
  }

  /** Adds an entry in time order (a slightly late one slides into place); drops the oldest when full. */
  push(time: number, anchor: number, rssi: number): void {
    if (this.full) {
      this.start = (this.start + 1) % this.capacity
      this.length--
    }
    let i = this.length
    // Packets relayed by different gateways arrive a little out of order: insertion from the end
    // costs a step or two in that case and nothing otherwise.
    while (i > 0 && this.time(i - 1) > time) {
      const from = (this.start + i - 1) % this.capacity
      const to = (this.start + i) % this.capacity
      this.times[to] = this.times[from]
      this.anchors[to] = this.anchors[from]
      this.rssi[to] = this.rssi[from]
      i--
    }
    const at = (this.start + i) % this.capacity
    this.times[at] = time
    this.anchors[at] = anchor
    this.rssi[at] = rssi
    this.length++
  }

  /** Index of the first entry later than `time` (binary search; `length` when none). */
  firstAfter(time: number): number {
    let lo = 0
    let hi = this.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.time(mid) > time) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  /** Bytes held, for memory accounting. */
  get bytes(): number {
    return this.capacity * (8 + 2 + 4)
  }
}
