/** The outbox's in-memory events: a FIFO that reclaims its consumed prefix in bulk. */

/** FIFO of events (the outbox bounds it). */
export class EventQueue<T> {
  private items: T[] = []
  private head = 0

  get size(): number {
    return this.items.length - this.head
  }

  push(m: T): void {
    this.items.push(m)
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined
    const m = this.items[this.head++]
    // Reclaim the consumed prefix once it dominates.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return m
  }

  unshift(m: T): void {
    if (this.head > 0) this.items[--this.head] = m
    else this.items.unshift(m)
  }

  clear(): number {
    const n = this.size
    this.items = []
    this.head = 0
    return n
  }
}
