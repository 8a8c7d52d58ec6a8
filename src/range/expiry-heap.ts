/**
 * When tracked beacons may expire, kept lazily. A beacon heard again is not moved anywhere: its
 * `lastSeen` moves on, and the due time it was queued with becomes an early estimate. When
 * that due time comes, the range table either expires the beacon or re-queues it at
 * `lastSeen + timeout`. A beacon heard ten times a second is then re-queued about once per
 * timeout instead of being moved on every packet, and a packet writes no pointers at all.
 *
 * A binary min-heap on the queued due times: the earliest is never later than any beacon's
 * real expiry, so a timer armed for it never misses one. Due times sit in a plain array of
 * doubles beside the items (unboxed, unlike a number field on each item).
 */

/** An item that knows its place in the heap (-1 while not queued). */
export interface HeapItem {
  heapIndex: number
}

/** A min-heap of items by due time. */
export class ExpiryHeap<T extends HeapItem> {
  private readonly items: T[] = []
  private readonly dues: number[] = []

  /** Number of queued items. */
  get size(): number {
    return this.items.length
  }

  /** The `i`-th queued item, in no particular order (for iterating over all of them). */
  at(i: number): T {
    return this.items[i]
  }

  /** The earliest due time, if any item is queued. */
  nextDue(): number | undefined {
    return this.items.length === 0 ? undefined : this.dues[0]
  }

  /** The item with the earliest due time. */
  first(): T | undefined {
    return this.items[0]
  }

  /** Queues `item` (not already queued) for `due`. */
  push(item: T, due: number): void {
    const i = this.items.length
    this.items.push(item)
    this.dues.push(due)
    item.heapIndex = i
    this.up(i)
  }

  /** Gives the earliest item a later due time. */
  delayFirst(due: number): void {
    this.dues[0] = due
    this.down(0)
  }

  /** Takes `item` out (a no-op when it is not queued). */
  remove(item: T): void {
    const i = item.heapIndex
    if (i < 0 || this.items[i] !== item) return
    item.heapIndex = -1
    const last = this.items.length - 1
    const lastItem = this.items.pop() as T
    const lastDue = this.dues.pop() as number
    if (i === last) return
    this.put(i, lastItem, lastDue)
    this.down(i)
    this.up(i)
  }

  /** Empties the heap. */
  clear(): void {
    for (const item of this.items) item.heapIndex = -1
    this.items.length = 0
    this.dues.length = 0
  }

  /** Moves the item at `i` up past every parent due later than it. */
  private up(i: number): void {
    const item = this.items[i]
    const due = this.dues[i]
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (this.dues[parent] <= due) break
      this.put(i, this.items[parent], this.dues[parent])
      i = parent
    }
    this.put(i, item, due)
  }

  /** Moves the item at `i` down past every child due earlier than it. */
  private down(i: number): void {
    const n = this.items.length
    const item = this.items[i]
    const due = this.dues[i]
    for (;;) {
      let child = 2 * i + 1
      if (child >= n) break
      if (child + 1 < n && this.dues[child + 1] < this.dues[child]) child++
      if (this.dues[child] >= due) break
      this.put(i, this.items[child], this.dues[child])
      i = child
    }
    this.put(i, item, due)
  }

  /** Places `item` with `due` at `i`, telling it where it is. */
  private put(i: number, item: T, due: number): void {
    this.items[i] = item
    this.dues[i] = due
    item.heapIndex = i
  }
}
