/**
 * The publisher's events on disk (`queueDir`): every event goes through the durable queue of
 * the uploader (FileQueue), in order, and leaves it only when the broker acknowledged it
 * (PUBACK). So an event survives a broker that is away, a full in-memory outbox and a killed
 * gateway alike; nothing but the disk bound (`maxQueueBytes`) or damage drops one.
 *
 * All events, not only the overflow: one path keeps the order simple (disk order is publish
 * order) and a SIGKILL while events are in flight loses nothing that was written. The price is
 * one fdatasync per group of events (group commit), which a gateway's event rate easily pays.
 *
 * Memory stays bounded: events waiting for their write (at most `maxWriting`, the excess is
 * dropped and counted), a window of records read back for sending, and the in-flight ones.
 */

import type { DropInfo, QueueWarning, QueuedRecord, RecordQueue } from '../queue/queue.js'
import { isPublishTopic } from '../util/topic-level.js'

/** An event as the queue stores it. */
export interface StoredEvent {
  topic: string
  payload: string
}

/** Largest event payload taken back from disk (UTF-16 units); events are small JSON objects. */
export const MAX_STORED_PAYLOAD = 256 * 1024

/**
 * Whether a record read back from the queue directory can be published: a topic valid for
 * PUBLISH (a wildcard makes the broker disconnect us, for ever, as the record is retried) and
 * a text payload within {@link MAX_STORED_PAYLOAD}. Anything else is damage, not an event.
 */
export function isStoredEvent(record: object): boolean {
  const { topic, payload } = record as Partial<Record<keyof StoredEvent, unknown>>
  return (
    typeof topic === 'string' &&
    isPublishTopic(topic) &&
    typeof payload === 'string' &&
    payload.length <= MAX_STORED_PAYLOAD
  )
}

/**
 * Events let go by the disk queue (a subset of the outbox's MqttDropInfo; kept here so the outbox can
 * depend on this file alone).
 */
export interface DiskDropInfo {
  count: number
  reason: 'queue_full' | 'closed' | 'corrupt' | 'missing' | 'write_failed'
  kind: 'event'
  /** For `corrupt` and `missing`: the segment file of the queue directory concerned. */
  segment?: string
}

function diskDrop(info: DropInfo): DiskDropInfo {
  const { reason, segment } = info
  if (reason !== 'corrupt' && reason !== 'missing') return { count: info.count, reason: 'queue_full', kind: 'event' }
  return { count: info.count, reason, kind: 'event', ...(segment === undefined ? {} : { segment }) }
}

/** Callbacks of {@link DiskEvents}. */
export interface DiskEventHooks {
  /** Something became sendable (written, or read back from disk). */
  ready(): void
  dropped(info: DiskDropInfo): void
  /** The queue set something right on disk and carries on (an ignored damaged ack file, an unreadable segment). */
  warning?(warning: QueueWarning): void
  /** A write or read failed (the disk is full or gone); the events concerned are dropped or retried. */
  failed(error: Error): void
}

/** Records read from disk at once for sending. */
const WINDOW = 256

/** The disk side of the outbox (see the file comment). */
export class DiskEvents {
  /** Pushes not yet durable. */
  private writing = 0
  /** Read back, not yet handed out, in seq order. */
  private window: QueuedRecord<StoredEvent>[] = []
  /** Highest seq read into the window or handed out: the next read starts after it. */
  private seen = 0
  /** Handed out and not yet acknowledged by the broker, in seq order. */
  private readonly outstanding: number[] = []
  private readonly acknowledged = new Set<number>()
  private loading: Promise<void> | undefined
  /** A push became durable while a read was under way: read again. */
  private stale = false
  private ackedUpTo = 0
  /** Acknowledged by the broker, not yet on disk: `peek` still returns them. */
  private ackBacklog = 0
  private acking: Promise<void> | undefined
  private closed = false

  constructor(
    private readonly queue: RecordQueue<StoredEvent>,
    private readonly maxWriting: number,
    private readonly hooks: DiskEventHooks,
  ) {
    queue.on('dropped', (info) => hooks.dropped(diskDrop(info)))
    queue.on('warning', (w) => hooks.warning?.(w))
    // What the queue found at open, before anyone could listen: said now, never swallowed.
    const report = queue.takeOpenReport?.()
    for (const d of report?.dropped ?? []) hooks.dropped(diskDrop(d))
    for (const w of report?.warnings ?? []) hooks.warning?.(w)
    this.load()
  }

  /** Events written to disk and not yet acknowledged by the broker. */
  get size(): number {
    return this.queue.size
  }

  /** Events waiting to be handed out (being written, or on disk and not in flight). */
  get waiting(): number {
    return Math.max(0, this.queue.size + this.writing - this.outstanding.length)
  }

  /** Appends an event; it becomes sendable once durable. */
  push(topic: string, payload: string): void {
    if (this.closed) {
      this.hooks.dropped({ count: 1, reason: 'closed', kind: 'event' })
      return
    }
    if (this.writing >= this.maxWriting) {
      // The disk does not keep up: memory must not grow without bound meanwhile.
      this.hooks.dropped({ count: 1, reason: 'queue_full', kind: 'event' })
      return
    }
    this.writing++
    this.queue.push({ topic, payload }).then(
      () => {
        this.writing--
        if (this.loading !== undefined) this.stale = true
        else if (this.window.length === 0) this.load()
      },
      (error: unknown) => {
        this.writing--
        this.hooks.dropped({ count: 1, reason: 'write_failed', kind: 'event' })
        this.hooks.failed(error instanceof Error ? error : new Error(String(error)))
      },
    )
  }

  /** The next event to send, or undefined (more may come from disk: `ready` says when). */
  take(): QueuedRecord<StoredEvent> | undefined {
    const next = this.window.shift()
    if (next !== undefined) this.outstanding.push(next.seq)
    if (this.window.length < WINDOW / 4) this.load()
    return next
  }

  /** The broker acknowledged `seq`: it may go from disk once everything before it went too. */
  sent(seq: number): void {
    this.acknowledged.add(seq)
    let upTo = 0
    while (this.outstanding.length > 0 && this.acknowledged.has(this.outstanding[0])) {
      upTo = this.outstanding.shift() as number
      this.acknowledged.delete(upTo)
      this.ackBacklog++
    }
    if (upTo > this.ackedUpTo) {
      this.ackedUpTo = upTo
      this.acking ??= this.ackLoop()
    }
  }

  /** A publish mqtt.js gave up on (client ended): it goes out again, in its place. */
  returned(record: QueuedRecord<StoredEvent>): void {
    const i = this.outstanding.indexOf(record.seq)
    if (i >= 0) this.outstanding.splice(i, 1)
    let at = 0
    while (at < this.window.length && this.window[at].seq < record.seq) at++
    this.window.splice(at, 0, record)
  }

  /** Waits for writes and acknowledgements under way, then closes the queue; the rest stays on disk. */
  async close(): Promise<void> {
    this.closed = true
    await this.loading
    await this.acking
    await this.queue.close()
  }

  /** Writes acknowledgements, one at a time, each covering everything acknowledged so far. */
  private async ackLoop(): Promise<void> {
    let done = 0
    while (done < this.ackedUpTo) {
      const upTo = this.ackedUpTo
      const covered = this.ackBacklog
      try {
        await this.queue.ack(upTo)
        this.ackBacklog -= covered
      } catch (error) {
        // Not written: those events are sent again after a restart (at least once, never lost).
        this.hooks.failed(error instanceof Error ? error : new Error(String(error)))
      }
      done = upTo
    }
    this.acking = undefined
    // The queue shrank: whoever waits for it to empty (flush, close) looks again.
    this.hooks.ready()
  }

  private load(): void {
    if (this.loading !== undefined || this.closed) return
    // peek starts at the oldest record not acknowledged on disk: skip what is already in hand.
    const want = this.ackBacklog + this.outstanding.length + this.window.length + WINDOW
    this.stale = false
    this.loading = this.queue.peek(want).then(
      (records) => {
        let added = 0
        for (const r of records) {
          if (r.seq <= this.seen) continue
          this.window.push(r)
          this.seen = r.seq
          added++
        }
        this.loading = undefined
        if (this.stale && !this.closed) this.load()
        if (added > 0) this.hooks.ready()
      },
      (error: unknown) => {
        this.loading = undefined
        this.hooks.failed(error instanceof Error ? error : new Error(String(error)))
      },
    )
  }
}
