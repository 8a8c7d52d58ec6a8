/**
 * The flush() calls of an uploader waiting for its queue to empty: settled together, when the
 * queue is empty or upload has stopped, so that no flush waits forever.
 */

/** The flush() calls waiting on one uploader. */
export class FlushWaiters {
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = []

  /** A promise for a new waiter, settled by a later {@link settle} or {@link reject}. */
  wait(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  /** Rejects every waiter with `error`. */
  reject(error: Error): void {
    const waiters = this.waiters
    this.waiters = []
    for (const w of waiters) w.reject(error)
  }

  /**
   * Resolves every waiter when the queue is empty, rejects them with `halted` when upload has
   * stopped; otherwise they wait on. `isEmpty` is only asked when someone waits.
   */
  settle(isEmpty: () => boolean, halted: Error | undefined): void {
    const waiters = this.waiters
    if (waiters.length === 0) return
    const empty = isEmpty()
    if (!empty && halted === undefined) return
    this.waiters = []
    for (const w of waiters) {
      if (empty) w.resolve()
      else w.reject(halted as Error)
    }
  }
}
