/**
 * The upload queue: a small pluggable store in the manner of mqtt.js's `Store`. Records go in
 * with `push`, the uploader reads the oldest with `peek`, and removes them with `ack` only
 * after the server's 2xx. The memory queue is the default; `FileQueue` survives kill -9.
 */
import { EventEmitter } from 'eventemitter3'
import type { BeaconLogRecord } from '../reading.js'

/**
 * A record with its position in the queue. Sequence numbers only grow, across restarts too.
 * `R` is the record type: upload records by default; the file queue stores any JSON object
 * (the MQTT publisher keeps its outgoing events in one).
 */
export interface QueuedRecord<R extends object = BeaconLogRecord> {
  seq: number
  record: R
}

/**
 * Why records left the queue without being delivered: on purpose (`queue_full`, `rejected`,
 * `closed`), or because the disk damaged them (`corrupt`: unreadable frames in a segment) or
 * lost them (`missing`: a segment file deleted underneath the queue).
 */
export type DropReason = 'queue_full' | 'rejected' | 'closed' | 'corrupt' | 'missing'

/** Reported whenever records are lost (bounded storage, server rejection, close, damage). */
export interface DropInfo {
  count: number
  reason: DropReason
  /** For `corrupt`: records read back past the damage (delivered as usual). */
  salvaged?: number
  /** For `corrupt` and `missing`: the segment file concerned. */
  segment?: string
}

/** Something the queue recovered from or set right; it keeps working. */
export interface QueueWarning {
  /** `stale_lock` (took over a dead process's lock), `segment_unreadable`, `segment_renumbered`. */
  code: string
  message: string
}

/** Events of every queue. */
export interface UploadQueueEvents {
  dropped: [info: DropInfo]
  warning: [warning: QueueWarning]
}

/** What a queue found while opening, before anyone could listen to its events. */
export interface QueueOpenReport {
  dropped: DropInfo[]
  warnings: QueueWarning[]
}

/**
 * A queue of records of type `R`: push, read the oldest, acknowledge. Implementations must pass
 * the contract suite in test/queue/queue-contract.ts.
 */
export interface RecordQueue<R extends object> extends EventEmitter<UploadQueueEvents> {
  /** Appends a record; resolves once it is as durable as this queue gets. Returns its seq. */
  push(record: R): Promise<number>
  /** The oldest unacknowledged records, at most `max`, in push order. Does not remove them. */
  peek(max: number): Promise<QueuedRecord<R>[]>
  /** Removes every record with seq <= `seq`. Acking an already removed seq is harmless. */
  ack(seq: number): Promise<void>
  /** Records pushed (and durable) but not acknowledged or dropped. */
  readonly size: number
  /** Optional: how close the queue is to its bound, 0 (empty) to 1 (the oldest go from here on). */
  readonly fill?: number
  /** Releases resources; records still queued stay wherever the queue keeps them. */
  close(): Promise<void>
  /**
   * Optional: what happened while opening (losses found, a stale lock taken over), handed
   * over once; the uploader re-emits it as `dropped` and `warning` events.
   */
  takeOpenReport?(): QueueOpenReport
}

/** What the uploader needs from a queue: a {@link RecordQueue} of upload records. */
export type UploadQueue = RecordQueue<BeaconLogRecord>

/** Options of {@link MemoryQueue}. */
export interface MemoryQueueOptions {
  /** Oldest records are dropped (and reported) beyond this many. Default 100,000. */
  maxRecords?: number
}

/** In-process queue: fast, bounded, and gone with the process. */
export class MemoryQueue extends EventEmitter<UploadQueueEvents> implements UploadQueue {
  private readonly maxRecords: number
  // A ring of pending records: head index moves on ack instead of shifting the array.
  private items: QueuedRecord[] = []
  private head = 0
  private nextSeq = 1
  private closed = false

  constructor(options: MemoryQueueOptions = {}) {
    super()
    const max = options.maxRecords ?? 100_000
    this.maxRecords = Number.isInteger(max) && max > 0 ? max : 100_000
  }

  get size(): number {
    return this.items.length - this.head
  }

  /** {@link RecordQueue.fill}: records held against `maxRecords`. */
  get fill(): number {
    return this.size / this.maxRecords
  }

  push(record: BeaconLogRecord): Promise<number> {
    if (this.closed) return Promise.reject(new Error('MemoryQueue is closed'))
    const seq = this.nextSeq++
    this.items.push({ seq, record })
    const over = this.size - this.maxRecords
    if (over > 0) {
      this.head += over
      this.emit('dropped', { count: over, reason: 'queue_full' })
    }
    this.compact()
    return Promise.resolve(seq)
  }

  peek(max: number): Promise<QueuedRecord[]> {
    return Promise.resolve(this.items.slice(this.head, this.head + Math.max(0, max)))
  }

  ack(seq: number): Promise<void> {
    while (this.head < this.items.length && this.items[this.head].seq <= seq) this.head++
    this.compact()
    return Promise.resolve()
  }

  close(): Promise<void> {
    this.closed = true
    return Promise.resolve()
  }

  private compact(): void {
    // Reclaim the acknowledged prefix once it dominates, so memory tracks the pending count.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
  }
}
