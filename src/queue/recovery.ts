/**
 * What the file queue finds on disk at open: which segments hold which records, and which
 * accepted records are gone.
 *
 * Seqs are contiguous across segments (a seq is assigned only when its frame is written, and
 * handed back when the write fails), so every seq between the ack and the last record on disk
 * names a record that was accepted. A seq missing inside a segment, or between one segment and
 * the next, is a lost record: `corrupt` when the segment holds damaged bytes, `missing` when
 * a whole segment file is gone. Losses once reported are written to the `lost` file, so a
 * restart does not report them again. A torn tail (bytes after the last frame of a segment
 * with no gap after it) is a write cut short by a crash: never accepted, not a loss.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { MAX_SEGMENT_SEQ, SEGMENT_LIKE, decodeSegment, parseSegmentName, segmentName } from './journal.js'
import { readKnownLosses, readWritten, subtract } from './loss-files.js'
import type { Range } from './loss-files.js'
import type { AckFile } from './ack-file.js'
import type { RecordCheck } from './journal.js'
import type { DropReason, QueueWarning, QueuedRecord } from './queue.js'

/** A segment file as the queue tracks it. */
export interface Segment {
  /** The first seq the segment may hold (its name). */
  firstSeq: number
  /** The highest seq it holds (firstSeq - 1 while empty). */
  lastSeq: number
  /** Records it holds. */
  count: number
  bytes: number
  path: string
  /** Seqs it holds, only when they have gaps (damage); otherwise firstSeq..lastSeq all exist. */
  seqs?: number[]
  /** Decoded records; kept for the active segment and loaded on demand for the head. */
  records?: QueuedRecord<object>[]
}

/** Records lost from one segment (or from the gap after it). */
export interface Loss {
  from: number
  to: number
  reason: Extract<DropReason, 'corrupt' | 'missing'>
  segment: string
  salvaged: number
}

/** The outcome of reading a queue directory. */
export interface Recovery {
  segments: Segment[]
  /** Newly found losses (above the ack, not reported before). */
  losses: Loss[]
  /** Files to delete once the loss report is safe: nothing unacknowledged left in them. */
  obsolete: string[]
  /** Records of wrongly named segments, to be queued again with fresh seqs. */
  renumber: { path: string; records: object[] }[]
  warnings: QueueWarning[]
  maxSeq: number
  /** The highest seq of any frame found in a segment, acknowledged or not (0 when none). */
  diskMaxSeq: number
  tornBytes: number
  damagedBytes: number
  salvaged: number
}

/** What else recovery may know: the consumer's record check and the highest seq written. */
export interface RecoveryHints {
  accept?: RecordCheck
  /** From {@link readWritten}; seqs up to it that no segment holds are lost. */
  written?: number
}

/** Unacknowledged records of a segment. */
export function unacked(seg: Segment, acked: number): number {
  const seqs = seg.seqs
  if (seqs === undefined) return Math.max(0, seg.lastSeq - Math.max(acked, seg.firstSeq - 1))
  // Rising seqs: binary search for the first one above the ack (`size` sums this often).
  let lo = 0
  let hi = seqs.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (seqs[mid] <= acked) lo = mid + 1
    else hi = mid
  }
  return seqs.length - lo
}

/** The gaps in `seqs` (rising) within [from, to]: the seqs missing there, as ranges. */
export function gaps(seqs: number[], from: number, to: number): Range[] {
  const out: Range[] = []
  let expect = from
  for (const s of seqs) {
    if (s > to) break
    if (s < expect) continue
    if (s > expect) out.push([expect, s - 1])
    expect = s + 1
  }
  if (expect <= to) out.push([expect, to])
  return out
}

/**
 * Reads every segment of `dir` (see the file comment). Without `ackKnown` (the ack file was
 * missing or unreadable) seqs before the first segment may simply have been delivered: they
 * are not counted as lost.
 */
export async function recoverSegments(
  dir: string,
  acked: number,
  ackKnown = true,
  hints: RecoveryHints = {},
): Promise<Recovery & { known: Range[] }> {
  const { accept, written } = hints
  const known = await readKnownLosses(dir)
  const out: Recovery & { known: Range[] } = {
    segments: [],
    losses: [],
    obsolete: [],
    renumber: [],
    warnings: [],
    maxSeq: acked,
    diskMaxSeq: 0,
    tornBytes: 0,
    damagedBytes: 0,
    salvaged: 0,
    known,
  }
  const named: { name: string; firstSeq: number }[] = []
  for (const name of await readdir(dir)) {
    if (!SEGMENT_LIKE.test(name)) continue
    const firstSeq = parseSegmentName(name)
    if (firstSeq !== undefined) {
      named.push({ name, firstSeq })
      continue
    }
    // A name no seq of this queue can have (2^53 and up would corrupt seq arithmetic): keep its
    // records, under fresh seqs at the end of the queue.
    const path = join(dir, name)
    const buf = await readFile(path)
    const { records } = decodeSegment(buf, 0, true, accept)
    if (records.length === 0 && buf.length > 0) {
      // Nothing we can read: not ours to delete.
      out.warnings.push({
        code: 'segment_unreadable',
        message:
          `file ${name} in the queue directory is named like a segment but holds no readable record; ` +
          `it is left in place, move it away`,
      })
      continue
    }
    out.renumber.push({ path, records: records.map((r) => r.record) })
    out.warnings.push({
      code: 'segment_renumbered',
      message:
        `segment file ${name} has a name outside the queue's sequence range; its ${records.length} ` +
        `records are queued again under new numbers and the file removed`,
    })
  }
  named.sort((a, b) => a.firstSeq - b.firstSeq)
  // Seqs between the ack and the first segment belonged to a segment that is gone.
  let expectFrom = ackKnown || named.length === 0 ? acked + 1 : Math.max(acked + 1, named[0].firstSeq)
  let previous = ''
  let previousDamaged = false
  for (let i = 0; i < named.length; i++) {
    const { name, firstSeq } = named[i]
    const path = join(dir, name)
    const buf = await readFile(path)
    const d = decodeSegment(buf, firstSeq, false, accept)
    const next = named[i + 1]?.firstSeq
    // Frames past the next segment's start cannot be ours; treat them as damage.
    const records = next === undefined ? d.records : d.records.filter((r) => r.seq < next)
    const live = records.filter((r) => r.seq > acked)
    // A rejected record still proves its seq was written: the gap up to it is a loss, not a torn tail.
    const lastRejected = d.rejected.filter((s) => next === undefined || s < next).at(-1) ?? firstSeq - 1
    const lastValid = Math.max(records.length > 0 ? records[records.length - 1].seq : firstSeq - 1, lastRejected)
    // The gap before this segment: the previous one's tail, or whole segments deleted.
    for (const [from, to] of gaps(
      [],
      Math.max(expectFrom, acked + 1),
      Math.min(firstSeq - 1, Number.MAX_SAFE_INTEGER),
    )) {
      // A clean segment before the gap: the file that held `from` on is gone (and had this name).
      out.losses.push({
        from,
        to,
        reason: previousDamaged ? 'corrupt' : 'missing',
        segment: previousDamaged ? previous : segmentName(from),
        salvaged: 0,
      })
    }
    const damaged = d.damagedBytes > 0
    const inside = gaps(
      live.map((r) => r.seq),
      Math.max(acked + 1, firstSeq),
      lastValid,
    )
    // The segment's salvaged count goes with its first loss only, so that sums stay right.
    inside.forEach(([from, to], k) =>
      out.losses.push({ from, to, reason: 'corrupt', segment: name, salvaged: k === 0 ? d.salvaged : 0 }),
    )
    out.damagedBytes += d.damagedBytes
    out.salvaged += d.salvaged
    // Bytes after the last frame: a torn write unless the next segment shows seqs went missing.
    const after = next ?? (written === undefined ? undefined : written + 1)
    const tailIsLoss = after !== undefined && after - 1 > Math.max(lastValid, acked)
    if (!tailIsLoss) out.tornBytes += d.tailBytes
    else out.damagedBytes += d.tailBytes
    if (next === undefined && written === undefined && lastValid < firstSeq && buf.length > 0) {
      out.warnings.push({
        code: 'segment_unreadable',
        message:
          `segment file ${name} (${buf.length} bytes) holds no readable record: a write cut short by ` +
          `a crash, or damage (zeroed by the disk?) that lost records which cannot be counted`,
      })
    }
    previous = name
    previousDamaged = damaged || d.tailBytes > 0 || records.length === 0
    expectFrom = lastValid + 1
    out.maxSeq = Math.max(out.maxSeq, lastValid)
    out.diskMaxSeq = Math.max(out.diskMaxSeq, lastValid)
    if (live.length === 0) {
      out.obsolete.push(path)
      continue
    }
    const seg: Segment = { firstSeq, lastSeq: lastValid, count: live.length, bytes: buf.length, path }
    if (inside.length > 0 || live[0].seq !== Math.max(acked + 1, firstSeq)) seg.seqs = live.map((r) => r.seq)
    out.segments.push(seg)
  }
  if (written !== undefined) {
    // Seqs written after the last one found: the last segment's lost tail, or later segments gone.
    for (const [from, to] of gaps([], Math.max(expectFrom, acked + 1), written)) {
      out.losses.push({
        from,
        to,
        reason: previousDamaged ? 'corrupt' : 'missing',
        segment: previousDamaged ? previous : segmentName(from),
        salvaged: 0,
      })
    }
    out.maxSeq = Math.max(out.maxSeq, written)
  }
  // Report each lost range once across restarts.
  const fresh: Loss[] = []
  for (const loss of out.losses) {
    for (const [from, to] of subtract(loss.from, loss.to, known)) fresh.push({ ...loss, from, to })
  }
  out.losses = fresh
  return out
}

/**
 * Recovers a queue directory at open: reads the `written` watermark, then every segment, and
 * checks the ack. An ack beyond every seq ever written (the watermark and the frames on disk)
 * is damage, or forged: trusting it would silently skip every queued record. It is ignored
 * with a warning `ack_invalid` and reset, and the records on disk go out again (at least once,
 * none lost). Returns the ack to use.
 */
export async function recoverQueue(
  dir: string,
  ackFile: AckFile,
  accept: RecordCheck | undefined,
): Promise<{ found: Recovery & { known: Range[] }; acked: number; warnings: QueueWarning[] }> {
  const written = await readWritten(dir)
  const found = await recoverSegments(dir, ackFile.acked, ackFile.known, { accept, written })
  const highest = Math.max(written ?? 0, found.diskMaxSeq)
  if (!(ackFile.acked > MAX_SEGMENT_SEQ || (written !== undefined && ackFile.acked > highest)))
    return { found, acked: ackFile.acked, warnings: [] }
  const warning = {
    code: 'ack_invalid',
    message:
      `the ack file of queue directory ${dir} claims record ${ackFile.acked} was delivered, but only ` +
      `${highest} were ever written: it is damaged and ignored; ` +
      'the records on disk are sent again (some may arrive twice)',
  }
  const again = await recoverSegments(dir, 0, false, { accept, written })
  const acked = again.segments.length > 0 ? again.segments[0].firstSeq - 1 : again.maxSeq
  // On a full disk the bad slot stays: the next start warns and resends again, nothing is lost.
  await ackFile.reset(acked).catch(() => undefined)
  return { found: again, acked, warnings: [warning] }
}
