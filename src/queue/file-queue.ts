/**
 * A durable record queue (the uploader's, and the MQTT publisher's for events): append-only
 * segment files of framed records plus a tiny ack file.
 *
 * Frames and the ack file are described in journal.ts; what recovery makes of a directory in
 * recovery.ts. `push` resolves only after the frame is written and fdatasync'd;
 * concurrent pushes share one write and one fdatasync (group commit). A seq is assigned when
 * its frame is written, and handed back if the write fails, so seqs on disk have no gaps
 * except lost records. Acknowledgement writes the acked seq into one of two checksummed slots
 * of the ack file, alternating, so a torn ack write leaves the previous one readable (at worst
 * a batch is sent twice, never lost). Segments wholly acknowledged are deleted; when the
 * segments exceed `maxBytes` the oldest is deleted, its unacknowledged records reported as
 * dropped and the ack moved past them. Recovered segments are never appended to; every
 * process start writes a fresh segment.
 *
 * One process per directory, enforced by a lock file (dir-lock.ts).
 */
import { readFile, unlink } from 'node:fs/promises'
import { EventEmitter } from 'eventemitter3'
import { InvalidOptionError, QueueError } from '../errors.js'
import { SegmentWriter } from './segment-writer.js'
import { lockDir, staleLockWarning } from './dir-lock.js'
import type { DirLock } from './dir-lock.js'
import { MAX_FRAME, decodeSegment, encodePayload, makeDir } from './journal.js'
import type { RecordCheck } from './journal.js'
import { AckFile } from './ack-file.js'
import { gaps, recoverQueue, unacked } from './recovery.js'
import type { Loss, Segment } from './recovery.js'
import { writeKnownLosses, writeWritten } from './loss-files.js'
import { emptyFileQueueStats, resolveFileQueueOptions } from './file-queue-options.js'
import type { FileQueueOptions, FileQueueStats, ResolvedFileQueueOptions } from './file-queue-options.js'
import type { BeaconLogRecord } from '../reading.js'
import type { DropInfo, QueueOpenReport, QueuedRecord, RecordQueue, UploadQueueEvents } from './queue.js'
/**
 * The durable queue behind `Uploader({ queueDir })` and `MqttPublisher({ queueDir })`. Create
 * with {@link FileQueue.open}. `R` is the record type, any JSON object: records come back as
 * JSON.parse makes them, so `R` must survive a JSON round trip.
 */
export class FileQueue<R extends object = BeaconLogRecord>
  extends EventEmitter<UploadQueueEvents>
  implements RecordQueue<R>
{
  /** What recovery found and what has been dropped since. */
  readonly stats: FileQueueStats = emptyFileQueueStats()

  private readonly dir: string
  private readonly maxBytes: number
  private readonly segmentBytes: number
  private readonly accept: RecordCheck | undefined
  private segments: Segment[] = []
  private readonly writer: SegmentWriter
  private ackFile: AckFile | undefined
  private lock: DirLock | undefined
  private acked = 0
  private ackChain: Promise<void> = Promise.resolve()
  // The seq the next record gets; the writer advances it.
  private nextSeq = 1
  private closed = false
  private report: QueueOpenReport = { dropped: [], warnings: [] }
  private knownLosses: [number, number][] = []

  private constructor(options: ResolvedFileQueueOptions) {
    super()
    this.dir = options.dir
    this.maxBytes = options.maxBytes
    this.segmentBytes = options.segmentBytes
    this.accept = options.accept
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the host's accessors reach the queue's seq counter
    const queue = this
    this.writer = new SegmentWriter({
      dir: this.dir,
      segmentBytes: this.segmentBytes,
      get nextSeq() {
        return queue.nextSeq
      },
      set nextSeq(seq: number) {
        queue.nextSeq = seq
      },
      added: (seg) => {
        this.segments.push(seg)
        this.updateDiskStats()
      },
      removed: (seg) => {
        this.segments = this.segments.filter((s) => s !== seg)
        this.updateDiskStats()
      },
      sealed: async (seg) => {
        // A lower bound is enough (a crash after this only under-counts a later loss).
        await writeWritten(this.dir, seg.lastSeq).catch(() => undefined)
        if (seg.lastSeq <= this.acked) await this.deleteAcked()
      },
      written: () => this.enforceBound(),
    })
  }

  private get active(): Segment | undefined {
    return this.writer.active
  }

  /**
   * Opens (and recovers) the queue in `options.dir`. Rejects with `QueueError` `queue_locked`
   * when another live process uses the directory, and with `InvalidOptionError` when the
   * directory cannot be used; a failed open leaves no file handle or lock behind.
   */
  static async open<R extends object = BeaconLogRecord>(options: FileQueueOptions): Promise<FileQueue<R>> {
    const resolved = resolveFileQueueOptions(options)
    const queue = new FileQueue<R>(resolved)
    try {
      await queue.recover()
    } catch (e) {
      await queue.release()
      if (e instanceof QueueError) throw e
      const code = (e as NodeJS.ErrnoException).code ?? 'error'
      throw new InvalidOptionError(
        'unreadable_file',
        `cannot use queue directory ${options.dir} (${code}); ` +
          'check that it exists, is a directory, is writable and has free space',
        {
          option: 'queueDir',
          cause: e,
        },
      )
    }
    return queue
  }

  /** {@link RecordQueue.fill}: segment bytes on disk against `maxBytes`. */
  get fill(): number {
    return this.stats.bytes / this.maxBytes
  }

  get size(): number {
    let n = 0
    for (const seg of this.segments) n += unacked(seg, this.acked)
    return n
  }

  push(record: R): Promise<number> {
    if (this.closed) return Promise.reject(new Error('FileQueue is closed'))
    const payload = encodePayload(record)
    if (payload.length > MAX_FRAME)
      return Promise.reject(
        new RangeError(`a record of ${payload.length} bytes is larger than the queue's 1 MiB frame limit`),
      )
    return new Promise<number>((resolve, reject) => {
      this.writer.add({ payload, record, resolve, reject })
    })
  }

  async peek(max: number): Promise<QueuedRecord<R>[]> {
    const out: QueuedRecord<R>[] = []
    const touched = new Set<Segment>()
    for (const seg of [...this.segments]) {
      if (out.length >= max) break
      if (unacked(seg, this.acked) === 0) continue
      const records = await this.load(seg)
      // The disk bound may have deleted the segment while it was being read: its records are gone.
      if (!this.segments.includes(seg)) continue
      touched.add(seg)
      // Records are in seq order: start at the first unacknowledged one.
      let lo = 0
      let hi = records.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (records[mid].seq <= this.acked) lo = mid + 1
        else hi = mid
      }
      for (let k = lo; k < records.length && out.length < max; k++) out.push(records[k])
    }
    // Only the segments being consumed and the one being written stay decoded in memory.
    for (const seg of this.segments) if (seg !== this.active && !touched.has(seg)) seg.records = undefined
    return out
  }

  ack(seq: number): Promise<void> {
    const result = this.ackChain.then(async () => {
      // Never acknowledge past what is on disk: later pushes would reuse those seqs and vanish.
      const durable = this.segments.reduce((m, s) => Math.max(m, s.lastSeq), 0)
      seq = Math.min(seq, Math.max(durable, this.acked))
      if (seq <= this.acked) return
      await this.writeAck(seq)
      await this.deleteAcked()
    })
    this.ackChain = result.catch(() => undefined)
    return result
  }

  takeOpenReport(): QueueOpenReport {
    const report = this.report
    this.report = { dropped: [], warnings: [] }
    return report
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.writer.close()
    await this.ackChain
    if (this.lock !== undefined) await writeWritten(this.dir, this.nextSeq - 1).catch(() => undefined)
    await this.release()
  }

  /** Closes every handle and gives the lock back; safe to call on a half-opened queue. */
  private async release(): Promise<void> {
    await this.writer.close()
    const ack = this.ackFile
    this.ackFile = undefined
    await ack?.close()
    const lock = this.lock
    this.lock = undefined
    await lock?.release()
  }

  private async writeAck(seq: number): Promise<void> {
    await (this.ackFile as AckFile).write(seq)
    this.acked = seq
  }

  private async recover(): Promise<void> {
    await makeDir(this.dir)
    this.lock = await lockDir(this.dir)
    const previous = this.lock.tookOverFrom
    if (previous !== undefined) this.report.warnings.push(staleLockWarning(this.dir, previous))
    this.ackFile = await AckFile.open(this.dir)
    this.acked = this.ackFile.acked
    const { found, acked, warnings } = await recoverQueue(this.dir, this.ackFile, this.accept)
    this.acked = acked
    this.report.warnings.push(...warnings)
    this.knownLosses = found.known
    this.segments = found.segments
    this.nextSeq = found.maxSeq + 1
    // From now on a damaged last segment can be counted: the seqs up to here were written.
    // Not fatal: a full disk must still let the queue open and drain (a later loss is then uncounted).
    await writeWritten(this.dir, found.maxSeq).catch(() => undefined)
    Object.assign(this.stats, {
      tornBytes: found.tornBytes,
      damagedBytes: found.damagedBytes,
      salvaged: found.salvaged,
    })
    this.report.warnings.push(...found.warnings)
    if (found.losses.length > 0) {
      await this.recordLosses(found.known, found.losses)
      this.report.dropped.push(...found.losses.map((l) => this.lossInfo(l)))
    }
    // Only now that the losses are on record may the files that showed them go.
    for (const path of found.obsolete) await unlink(path).catch(() => undefined)
    this.stats.recovered = this.size
    this.updateDiskStats()
    for (const { path, records } of found.renumber) {
      // Copies first, original after: a crash in between sends some twice (same msgIds), never none.
      // Records of this queue's own files: written as R, so read back as R.
      await Promise.all(records.map((r) => this.push(r as R)))
      await unlink(path)
      this.stats.recovered += records.length
    }
  }

  /** Counts a loss and writes it down so that a restart does not report it again. */
  private async recordLosses(known: [number, number][], losses: Loss[]): Promise<void> {
    this.knownLosses = [...known, ...losses.map((l): [number, number] => [l.from, l.to])]
    await writeKnownLosses(this.dir, this.knownLosses, this.acked)
  }

  private lossInfo(loss: Loss): DropInfo {
    const count = loss.to - loss.from + 1
    this.stats.lost += count
    this.stats.dropped += count
    return {
      count,
      reason: loss.reason,
      segment: loss.segment,
      ...(loss.reason === 'corrupt' ? { salvaged: loss.salvaged } : {}),
    }
  }

  private async load(seg: Segment): Promise<QueuedRecord<R>[]> {
    // Every frame of this queue's files was written from an R (see push).
    return (await this.loadAny(seg)) as QueuedRecord<R>[]
  }

  private async loadAny(seg: Segment): Promise<QueuedRecord<object>[]> {
    if (seg.records !== undefined) return seg.records
    let buf: Buffer
    try {
      buf = await readFile(seg.path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      buf = Buffer.alloc(0)
    }
    // The disk bound may have deleted it meanwhile (already reported).
    if (!this.segments.includes(seg)) return []
    const { records, salvaged } = decodeSegment(buf, seg.firstSeq, false, this.accept)
    const live = records.filter((r) => r.seq <= seg.lastSeq)
    const before = unacked(seg, this.acked)
    const after = live.filter((r) => r.seq > this.acked).length
    // Only a segment with holes needs its seqs listed (and pays for it in `size`).
    if (after < before) {
      seg.seqs = live.map((r) => r.seq)
      await this.damagedWhileRunning(seg, before - after, buf.length === 0 ? 'missing' : 'corrupt', salvaged)
    }
    seg.records = live
    return live
  }

  /** A segment lost records underneath the running queue (deleted, truncated, overwritten). */
  private async damagedWhileRunning(
    seg: Segment,
    lost: number,
    reason: 'missing' | 'corrupt',
    salvaged: number,
  ): Promise<void> {
    const name = seg.path.slice(this.dir.length + 1)
    this.knownLosses.push(...gaps(seg.seqs ?? [], Math.max(this.acked + 1, seg.firstSeq), seg.lastSeq))
    await writeKnownLosses(this.dir, this.knownLosses, this.acked).catch(() => undefined)
    // Nothing left to deliver in it: the file goes like an acknowledged one.
    if (unacked(seg, this.acked) === 0 && seg !== this.active) {
      this.segments = this.segments.filter((s) => s !== seg)
      await unlink(seg.path).catch(() => undefined)
    }
    seg.count = seg.seqs?.length ?? 0
    this.stats.lost += lost
    this.stats.dropped += lost
    this.updateDiskStats()
    this.emit('dropped', { count: lost, reason, segment: name, ...(reason === 'corrupt' ? { salvaged } : {}) })
  }

  private async enforceBound(): Promise<void> {
    let bytes = this.segments.reduce((n, s) => n + s.bytes, 0)
    while (bytes > this.maxBytes && this.segments.length > 1 && this.segments[0] !== this.active) {
      const seg = this.segments.shift() as Segment
      const lost = unacked(seg, this.acked)
      bytes -= seg.bytes
      await unlink(seg.path).catch(() => undefined)
      if (lost > 0) {
        // The ack moves past them, so a restart does not take the gap for a deleted segment.
        const moveAck = seg.lastSeq
        this.ackChain = this.ackChain
          .then(() => (moveAck > this.acked ? this.writeAck(moveAck) : undefined))
          .catch(() => undefined)
        this.stats.dropped += lost
        this.emit('dropped', { count: lost, reason: 'queue_full' })
      }
    }
    this.updateDiskStats()
  }

  private async deleteAcked(): Promise<void> {
    const keep: Segment[] = []
    for (const seg of this.segments) {
      const done = seg !== this.active && seg.lastSeq <= this.acked
      if (done) await unlink(seg.path).catch(() => undefined)
      else keep.push(seg)
    }
    this.segments = keep
    this.updateDiskStats()
  }

  private updateDiskStats(): void {
    this.stats.segments = this.segments.length
    this.stats.bytes = this.segments.reduce((n, s) => n + s.bytes, 0)
  }
}
