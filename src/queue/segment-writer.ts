/**
 * The write side of the file queue: group commit into the active segment.
 *
 * Pushes arriving while a write is under way wait and go together in the next one (one write,
 * one fdatasync). A seq is assigned only when its group is durable, and handed back when the
 * write fails, so the seqs on disk have no gaps but lost records (recovery.ts relies on
 * that). A segment whose write failed may end in a partial frame and is never appended to again.
 */
import { open, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { QueueError } from '../errors.js'
import { FRAME_HEADER, MAX_SEGMENT_SEQ, encodeFrame, segmentName, syncDir } from './journal.js'
import type { Segment } from './recovery.js'

/** A push waiting for its write. */
export interface PendingPush {
  payload: Buffer
  record: object
  resolve: (seq: number) => void
  reject: (error: Error) => void
}

/** What the writer needs from the queue it writes for. */
export interface WriterHost {
  readonly dir: string
  readonly segmentBytes: number
  /** The seq the next record gets. */
  nextSeq: number
  /** A new active segment exists. */
  added(seg: Segment): void
  /** A segment left empty by a failed write was deleted. */
  removed(seg: Segment): void
  /** A sealed segment may be wholly acknowledged already. */
  sealed(seg: Segment): Promise<void>
  /** A group is durable (called before its pushes resolve). */
  written(): Promise<void>
}

/** Appends framed records to the active segment (see the file comment). */
export class SegmentWriter {
  /** The segment being written, if any. */
  active: Segment | undefined
  private handle: FileHandle | undefined
  private pending: PendingPush[] = []
  private writing: Promise<void> | undefined

  constructor(private readonly host: WriterHost) {}

  /** Queues a push; it resolves with its seq once durable. */
  add(push: PendingPush): void {
    this.pending.push(push)
    this.writing ??= this.loop()
  }

  /** Waits for the writes under way, then closes the segment file. */
  async close(): Promise<void> {
    await this.writing
    const handle = this.handle
    this.handle = undefined
    await handle?.close().catch(() => undefined)
  }

  private async loop(): Promise<void> {
    const host = this.host
    while (this.pending.length > 0) {
      const batch = this.pending
      this.pending = []
      let i = 0
      while (i < batch.length) {
        const firstSeq = host.nextSeq
        try {
          if (firstSeq > MAX_SEGMENT_SEQ) {
            throw new QueueError(
              'seq_exhausted',
              `the queue in ${host.dir} has used up its sequence numbers; deliver what it holds, then move ` +
                `the directory away`,
              { dir: host.dir },
            )
          }
          await this.ensureActive(firstSeq, FRAME_HEADER + batch[i].payload.length)
          const seg = this.active as Segment
          // Take as many as fit in this segment (at least one, so huge records still go in).
          let bytes = 0
          let j = i
          while (
            j < batch.length &&
            (j === i || seg.bytes + bytes + FRAME_HEADER + batch[j].payload.length <= host.segmentBytes)
          ) {
            bytes += FRAME_HEADER + batch[j].payload.length
            j++
          }
          const group = batch.slice(i, j)
          await this.append(seg, firstSeq, group)
          // Only a durable group uses up its seqs.
          host.nextSeq = firstSeq + group.length
          // The bound is enforced before the pushes resolve, so a caller sees its effect.
          await host.written().catch(() => undefined)
          group.forEach((p, k) => p.resolve(firstSeq + k))
          i = j
        } catch (e) {
          await this.seal()
          const error = e instanceof Error ? e : new Error(String(e))
          for (const p of batch.slice(i)) p.reject(error)
          i = batch.length
        }
      }
    }
    this.writing = undefined
  }

  private async append(seg: Segment, firstSeq: number, group: PendingPush[]): Promise<void> {
    const handle = this.handle as FileHandle
    // One contiguous buffer: writev would be split at IOV_MAX (1024) buffers anyway.
    const frames = group.map((p, k) => encodeFrame(firstSeq + k, p.payload))
    const data = frames.length === 1 ? frames[0] : Buffer.concat(frames)
    const total = data.length
    let written = 0
    while (written < total) {
      const { bytesWritten } = await handle.write(data, written, total - written)
      written += bytesWritten
    }
    await handle.datasync()
    seg.count += group.length
    seg.lastSeq = firstSeq + group.length - 1
    seg.bytes += total
    seg.records ??= []
    group.forEach((p, k) => seg.records?.push({ seq: firstSeq + k, record: p.record }))
  }

  /** Makes sure a segment can take a frame of `nextFrame` bytes whose seq is `seq`. */
  private async ensureActive(seq: number, nextFrame: number): Promise<void> {
    const seg = this.active
    if (seg !== undefined && (seg.count === 0 || seg.bytes + nextFrame <= this.host.segmentBytes)) return
    await this.seal()
    const path = join(this.host.dir, segmentName(seq))
    // 'w', not 'wx': a file of that name can only be a leftover whose records failed to
    // be written (their seqs were handed back), so it holds nothing accepted.
    this.handle = await open(path, 'w')
    await syncDir(this.host.dir)
    this.active = { firstSeq: seq, lastSeq: seq - 1, count: 0, bytes: 0, path, records: [] }
    this.host.added(this.active)
  }

  private async seal(): Promise<void> {
    const handle = this.handle
    this.handle = undefined
    const seg = this.active
    this.active = undefined
    await handle?.close().catch(() => undefined)
    if (seg === undefined) return
    if (seg.count === 0) {
      this.host.removed(seg)
      await unlink(seg.path).catch(() => undefined)
    } else await this.host.sealed(seg)
  }
}
