/**
 * Items that each wait the same delay, on one timer. Because every delay is equal, arrival
 * order is due order: a FIFO replaces a priority queue, and 10,000 waiting items still cost
 * a single timer.
 */
import type { CancelTimer, Clock } from '../clock.js'

/** A FIFO of items due `delayMs` after they were pushed. */
export class DelayQueue<T> {
  private items: { item: T; due: number }[] = []
  private head = 0
  private cancel: CancelTimer | undefined

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
    private readonly onDue: (item: T, now: number) => void,
  ) {}

  /** Schedules `item` for now + delayMs. */
  push(item: T): void {
    this.items.push({ item, due: this.clock.now() + this.delayMs })
    if (this.cancel === undefined) this.arm()
  }

  /** Drops every waiting item and the timer. */
  clear(): void {
    this.cancel?.()
    this.cancel = undefined
    this.items = []
    this.head = 0
  }

  private arm(): void {
    const next = this.items[this.head]
    if (next === undefined) return
    this.cancel = this.clock.setTimeout(() => this.fire(), Math.max(0, next.due - this.clock.now()))
  }

  private fire(): void {
    this.cancel = undefined
    const now = this.clock.now()
    const q = this.items
    while (this.head < q.length && q[this.head].due <= now) this.onDue(q[this.head++].item, now)
    if (this.head === q.length) {
      this.items = []
      this.head = 0
    } else if (this.head > 1024) {
      // Compact now and then rather than shifting on every item.
      this.items = q.slice(this.head)
      this.head = 0
    }
    this.arm()
  }
}
