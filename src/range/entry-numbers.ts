/**
 * The numbers of each tracked entry that change on every packet (last seen, the packet's
 * timestamp, the smoothing state), four to an entry in one shared Float64Array. As object
 * fields, each would be a boxed double of its own (a pointer plus a 16-byte heap number), and
 * with 10,000 beacons each box read on a packet is a likely cache miss; here an entry's four
 * share 32 bytes, one cache line, and cost 32 bytes instead of 96.
 */

/** Numbers per entry: lastSeen, timestamp, smoothed, weight. */
export const NUMBERS_PER_ENTRY = 4
const INITIAL_SLOTS = 64

/** Slots of four numbers, taken by entries and given back when they are gone. */
export class EntryNumbers {
  /** Slot values; an entry's slot starts at the base {@link EntryNumbers.take} gave it. Replaced when it grows. */
  values = new Float64Array(INITIAL_SLOTS * NUMBERS_PER_ENTRY)
  /** Bases given back, reused before the array grows. */
  private free: number[] = []
  /** Bases below this were handed out at some point. */
  private top = 0

  /** Slots in use. */
  get used(): number {
    return (this.top - this.free.length * NUMBERS_PER_ENTRY) / NUMBERS_PER_ENTRY
  }

  /** A free slot's base offset. */
  take(): number {
    const reused = this.free.pop()
    if (reused !== undefined) return reused
    if (this.top === this.values.length) {
      // Half again as large: a doubling array would hold up to twice what the beacons need.
      const grown = new Float64Array(Math.ceil((this.values.length * 1.5) / NUMBERS_PER_ENTRY) * NUMBERS_PER_ENTRY)
      grown.set(this.values)
      this.values = grown
    }
    const base = this.top
    this.top += NUMBERS_PER_ENTRY
    return base
  }

  /**
   * Gives a slot back. The entry that held it must not be read again: its numbers may soon be
   * another entry's. When no slot is in use any more, the array shrinks back to its first size,
   * so a crowd that came and went leaves nothing behind.
   */
  give(base: number): void {
    this.free.push(base)
    if (this.free.length * NUMBERS_PER_ENTRY === this.top) this.clear()
  }

  /** Gives every slot back at once. */
  clear(): void {
    this.free = []
    this.top = 0
    if (this.values.length > INITIAL_SLOTS * NUMBERS_PER_ENTRY)
      this.values = new Float64Array(INITIAL_SLOTS * NUMBERS_PER_ENTRY)
  }
}
