/**
 * A durable upload queue: append-only segment files of framed records plus a tiny ack file.
 *
 * Frames and the ack file are described in journal.ts. A record's seq is its segment's first seq (the file name) plus its index, so frames
 * carry no seq. `push` resolves only after the frame is written and fdatasync'd; concurrent
 * pushes share one write and one fdatasync (group commit). Acknowledgement writes the acked
 * seq into one of two checksummed slots of the ack file, alternating, so a torn ack write
 * leaves the previous one readable (at worst a batch is sent twice, never lost). Segments
 * wholly acknowledged are deleted; when the segments exceed `maxBytes` the oldest is deleted
 * and its unacknowledged records are counted and reported as dropped.
 *
 * Recovery reads every segment up to its first incomplete or corrupt frame: a kill during a
 * write leaves a torn tail whose records were never reported accepted. Recovered segments are
 * never appended to; every process start writes a fresh segment.
 *
 * One process per directory: two writers would interleave frames.
 */
import { open, readdir, readFile, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { EventEmitter } from 'eventemitter3'
import { InvalidOptionError } from '../errors.js'
import { ACK_SLOT, MAX_FRAME, SEGMENT_NAME, decodeAckFile, decodeFrames, encodeAckSlot, encodeFrame, makeDir, segmentName, syncDir } from './journal.js'
import type { BeaconLogRecord } from './records.js'
import type { QueuedRecord, UploadQueue, UploadQueueEvents } from './queue.js'

/** Options of {@link FileQueue.open}. */
export interface FileQueueOptions {
  /** Directory holding the queue; created when missing. One process per directory. */
  dir: string
  /** Bound on segment bytes on disk; the oldest records are dropped beyond it. Default 256 MiB. */
  maxBytes?: number
  /** Size at which a segment is closed and a new one started. Default 4 MiB (at most maxBytes / 4). */
  segmentBytes?: number
}

/** What recovery found and what the queue has done since. */
export interface FileQueueStats {
  /** Unacknowledged records found on disk at open. */
  recovered: number
  /** Bytes ignored at the end of segments (writes cut short by a crash) or after a corrupt frame. */
  tornBytes: number
  /** Records deleted unacknowledged because the disk bound was hit. */
  dropped: number
  /** Segment files currently on disk. */
  segments: number
  /** Bytes of segment files currently on disk. */
  bytes: number
}

interface Segment {
  firstSeq: number
  count: number
  bytes: number
  path: string
  /** Decoded records; kept for the active segment and loaded on demand for the head. */
  records?: BeaconLogRecord[]
}

interface PendingPush {
  seq: number
  frame: Buffer
  record: BeaconLogRecord
  resolve: (seq: number) => void
  reject: (error: Error) => void
}

/** The durable queue behind `Uploader({ queueDir })`. Create with {@link FileQueue.open}. */
export class FileQueue extends EventEmitter<UploadQueueEvents> implements UploadQueue {
  /** What recovery found and what has been dropped since. */
  readonly stats: FileQueueStats = { recovered: 0, tornBytes: 0, dropped: 0, segments: 0, bytes: 0 }

  private readonly dir: string
  private readonly maxBytes: number
  private readonly segmentBytes: number
  private segments: Segment[] = []
  private active: Segment | undefined
  private activeHandle: FileHandle | undefined
  private ackHandle!: FileHandle
  private acked = 0
  private ackSlot: 0 | 1 = 0
  private ackChain: Promise<void> = Promise.resolve()
  private nextSeq = 1
  private pending: PendingPush[] = []
  private writing: Promise<void> | undefined
  private closed = false

  private constructor(options: Required<FileQueueOptions>) {
    super()
    this.dir = options.dir
    this.maxBytes = options.maxBytes
    this.segmentBytes = options.segmentBytes
  }

  /** Opens (and recovers) the queue in `options.dir`. */
  static async open(options: FileQueueOptions): Promise<FileQueue> {
    if (typeof options.dir !== 'string' || options.dir.length === 0) {
      throw new InvalidOptionError('invalid_option', 'queueDir must be a non-empty directory path', { option: 'queueDir' })
    }
    const maxBytes = options.maxBytes ?? 256 * 1024 * 1024
    if (!Number.isFinite(maxBytes) || maxBytes < 64 * 1024) {
      throw new InvalidOptionError('invalid_option', 'maxBytes (the uploader\'s maxQueueBytes) must be at least 65536 bytes', { option: 'maxQueueBytes' })
    }
    const segmentBytes = Math.max(4096, Math.min(options.segmentBytes ?? 4 * 1024 * 1024, Math.floor(maxBytes / 4)))
    const queue = new FileQueue({ dir: options.dir, maxBytes, segmentBytes })
    try {
      await queue.recover()
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error'
      throw new InvalidOptionError('unreadable_file', `cannot use queue directory ${options.dir} (${code}); check that it exists and is writable`, {
        option: 'queueDir',
        cause: e,
      })
    }
    return queue
  }

  get size(): number {
    let n = 0
    for (const seg of this.segments) {
      const last = seg.firstSeq + seg.count - 1
      n += Math.max(0, last - Math.max(this.acked, seg.firstSeq - 1))
    }
    return n
  }

  push(record: BeaconLogRecord): Promise<number> {
    if (this.closed) return Promise.reject(new Error('FileQueue is closed'))
    const frame = encodeFrame(record)
    if (frame.length - 8 > MAX_FRAME) return Promise.reject(new RangeError(`a record of ${frame.length} bytes is larger than the queue's 1 MiB frame limit`))
    const seq = this.nextSeq++
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ seq, frame, record, resolve, reject })
      this.writing ??= this.writeLoop()
    })
  }

  async peek(max: number): Promise<QueuedRecord[]> {
    const out: QueuedRecord[] = []
    const touched = new Set<Segment>()
    for (const seg of [...this.segments]) {
      if (out.length >= max) break
      if (Math.max(this.acked + 1, seg.firstSeq) > seg.firstSeq + seg.count - 1) continue
      const records = await this.load(seg)
      // The disk bound may have deleted the segment while it was being read: its records are gone.
      if (!this.segments.includes(seg)) continue
      touched.add(seg)
      const start = Math.max(this.acked + 1, seg.firstSeq)
      const last = seg.firstSeq + Math.min(seg.count, records.length) - 1
      for (let s = start; s <= last && out.length < max; s++) out.push({ seq: s, record: records[s - seg.firstSeq] })
    }
    // Only the segments being consumed and the one being written stay decoded in memory.
    for (const seg of this.segments) if (seg !== this.active && !touched.has(seg)) seg.records = undefined
    return out
  }

  ack(seq: number): Promise<void> {
    const result = this.ackChain.then(async () => {
      // Never acknowledge past what is on disk: later pushes would reuse those seqs and vanish.
      const durable = this.segments.reduce((m, s) => Math.max(m, s.firstSeq + s.count - 1), 0)
      seq = Math.min(seq, Math.max(durable, this.acked))
      if (seq <= this.acked) return
      const slot = encodeAckSlot(seq)
      await this.ackHandle.write(slot, 0, ACK_SLOT, this.ackSlot * ACK_SLOT)
      await this.ackHandle.datasync()
      this.ackSlot = this.ackSlot === 0 ? 1 : 0
      this.acked = seq
      await this.deleteAcked()
    })
    this.ackChain = result.catch(() => undefined)
    return result
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.writing
    await this.ackChain
    await this.activeHandle?.close()
    this.activeHandle = undefined
    await this.ackHandle.close()
  }

  private async recover(): Promise<void> {
    await makeDir(this.dir)
    const ackPath = join(this.dir, 'ack')
    try {
      this.ackHandle = await open(ackPath, 'r+')
      const { seq, nextSlot } = decodeAckFile(await this.ackHandle.readFile())
      this.acked = seq
      this.ackSlot = nextSlot
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      this.ackHandle = await open(ackPath, 'w+')
      await this.ackHandle.write(Buffer.concat([encodeAckSlot(0), encodeAckSlot(0)]), 0, 2 * ACK_SLOT, 0)
      await this.ackHandle.sync()
      await syncDir(this.dir)
    }
    const names = (await readdir(this.dir)).filter((n) => SEGMENT_NAME.test(n)).sort()
    let maxSeq = this.acked
    for (const name of names) {
      const path = join(this.dir, name)
      const buf = await readFile(path)
      const { records, validBytes } = decodeFrames(buf)
      this.stats.tornBytes += buf.length - validBytes
      const seg: Segment = { firstSeq: Number(name.slice(0, 16)), count: records.length, bytes: buf.length, path }
      const last = seg.firstSeq + seg.count - 1
      if (seg.count === 0 || last <= this.acked) {
        await unlink(path)
        continue
      }
      maxSeq = Math.max(maxSeq, last)
      this.segments.push(seg)
    }
    this.nextSeq = maxSeq + 1
    this.stats.recovered = this.size
    this.updateDiskStats()
  }

  private async load(seg: Segment): Promise<BeaconLogRecord[]> {
    if (seg.records !== undefined) return seg.records
    let buf: Buffer
    try {
      buf = await readFile(seg.path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !this.segments.includes(seg)) return []
      throw e
    }
    const { records } = decodeFrames(buf, seg.count)
    seg.records = records
    // A file that no longer holds what recovery counted was damaged underneath us.
    seg.count = records.length
    return records
  }

  private async writeLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending
      this.pending = []
      let i = 0
      while (i < batch.length) {
        try {
          await this.ensureActive(batch[i].seq, batch[i].frame.length)
          const seg = this.active as Segment
          // Take as many as fit in this segment (at least one, so huge records still go in).
          let bytes = 0
          let j = i
          while (j < batch.length && (j === i || seg.bytes + bytes + batch[j].frame.length <= this.segmentBytes)) {
            bytes += batch[j].frame.length
            j++
          }
          const group = batch.slice(i, j)
          await this.append(seg, group)
          await this.enforceBound()
          for (const p of group) p.resolve(p.seq)
          i = j
        } catch (e) {
          // The segment may now end in a partial frame: never append to it again.
          await this.sealActive()
          const error = e instanceof Error ? e : new Error(String(e))
          for (const p of batch.slice(i)) p.reject(error)
          i = batch.length
        }
      }
    }
    this.writing = undefined
  }

  private async append(seg: Segment, group: PendingPush[]): Promise<void> {
    const handle = this.activeHandle as FileHandle
    // One contiguous buffer: writev would be split at IOV_MAX (1024) buffers anyway.
    const data = group.length === 1 ? group[0].frame : Buffer.concat(group.map((p) => p.frame))
    const total = data.length
    let written = 0
    while (written < total) {
      const { bytesWritten } = await handle.write(data, written, total - written)
      written += bytesWritten
    }
    await handle.datasync()
    seg.count += group.length
    seg.bytes += total
    seg.records ??= []
    for (const p of group) seg.records.push(p.record)
  }

  /** Makes sure a segment can take a frame of `nextFrame` bytes whose seq is `seq`. */
  private async ensureActive(seq: number, nextFrame: number): Promise<void> {
    const seg = this.active
    if (seg !== undefined && (seg.count === 0 || seg.bytes + nextFrame <= this.segmentBytes)) return
    await this.sealActive()
    const firstSeq = seq
    const path = join(this.dir, segmentName(firstSeq))
    this.activeHandle = await open(path, 'wx')
    await syncDir(this.dir)
    this.active = { firstSeq, count: 0, bytes: 0, path, records: [] }
    this.segments.push(this.active)
    this.updateDiskStats()
  }

  private async sealActive(): Promise<void> {
    const handle = this.activeHandle
    this.activeHandle = undefined
    const seg = this.active
    this.active = undefined
    if (seg !== undefined && seg.count === 0) {
      this.segments = this.segments.filter((s) => s !== seg)
      await handle?.close().catch(() => undefined)
      await unlink(seg.path).catch(() => undefined)
      return
    }
    await handle?.close().catch(() => undefined)
    if (seg !== undefined && seg.firstSeq + seg.count - 1 <= this.acked) await this.deleteAcked()
  }

  private async enforceBound(): Promise<void> {
    let bytes = this.segments.reduce((n, s) => n + s.bytes, 0)
    while (bytes > this.maxBytes && this.segments.length > 1 && this.segments[0] !== this.active) {
      const seg = this.segments.shift() as Segment
      const last = seg.firstSeq + seg.count - 1
      const lost = Math.max(0, last - Math.max(this.acked, seg.firstSeq - 1))
      bytes -= seg.bytes
      await unlink(seg.path).catch(() => undefined)
      if (lost > 0) {
        this.stats.dropped += lost
        this.emit('dropped', { count: lost, reason: 'queue_full' })
      }
    }
    this.updateDiskStats()
  }

  private async deleteAcked(): Promise<void> {
    const keep: Segment[] = []
    for (const seg of this.segments) {
      const done = seg !== this.active && seg.firstSeq + seg.count - 1 <= this.acked
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
