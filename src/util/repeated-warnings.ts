/**
 * Repeated warnings, counted instead of printed one by one: a full disk dropping every event,
 * or a sender flooding the webhook with malformed pushes, would otherwise print a line each
 * (1,576 "dropped 1 events" lines; 20,000 "push refused" lines). The first warning of a kind is
 * printed at once; the rest of its interval are counted and printed as one line when the
 * interval ends ("dropped 1,575 events (write_failed) in the last 10 s"). A kind quiet for a
 * whole interval starts afresh: its next warning is printed at once again.
 */

/** How long repeats of one kind of warning are counted before one line sums them up. */
export const REPEAT_INTERVAL_MS = 10_000

/** Words `count` occurrences of a kind of warning (1 for the first, printed as it happened). */
export type RepeatText = (count: number) => string

interface Kind {
  pending: number
  /** Every occurrence since the kind (re)started, for the line that says it stopped. */
  total: number
  text: RepeatText
  since: number
}

/** `1576` as `1,576`. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US')
}

/** Counts repeated warnings per kind and prints them once per interval (see the file comment). */
export class RepeatedWarnings {
  private readonly kinds = new Map<string, Kind>()
  private timer: NodeJS.Timeout | undefined

  /**
   * @param write says one line: the first of a kind (`first`) or a sum of its repeats
   * @param quiet told when a kind was quiet for a whole interval (it stopped), with how many there
   * were in all: a condition that started with the first warning clears there (log/condition-log.ts).
   */
  constructor(
    private readonly write: (text: string, key: string, first: boolean) => void,
    private readonly intervalMs = REPEAT_INTERVAL_MS,
    private readonly quiet?: (key: string, total: number) => void,
  ) {}

  /** `count` more warnings of kind `key`; `text` words them (the latest wording wins). */
  add(key: string, count: number, text: RepeatText): void {
    const kind = this.kinds.get(key)
    if (kind !== undefined) {
      kind.pending += count
      kind.total += count
      kind.text = text
      return
    }
    this.kinds.set(key, { pending: 0, total: count, text, since: Date.now() })
    this.write(text(count), key, true)
    // One timer for all kinds, and none while nothing repeats: an idle command holds no timer.
    this.timer ??= setInterval(() => this.tick(), this.intervalMs).unref()
  }

  /** Prints what is still counted (at exit: nothing counted is ever left unsaid) and stops. */
  close(): void {
    for (const [key, kind] of this.kinds) this.report(key, kind)
    this.kinds.clear()
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }

  private tick(): void {
    for (const [key, kind] of this.kinds) {
      if (kind.pending === 0) {
        this.kinds.delete(key)
        this.quiet?.(key, kind.total)
      } else this.report(key, kind)
    }
    if (this.kinds.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  private report(key: string, kind: Kind): void {
    const now = Date.now()
    if (kind.pending > 0) {
      const seconds = Math.max(1, Math.round((now - kind.since) / 1000))
      this.write(`${kind.text(kind.pending)} in the last ${seconds} s`, key, false)
    }
    kind.pending = 0
    kind.since = now
  }
}
