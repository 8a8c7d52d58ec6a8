/**
 * The file queue's on-disk format, kept apart from its bookkeeping.
 *
 * Segment frame: u32 LE payload length, u32 LE CRC-32 of the next 8 bytes and the payload,
 * f64 LE seq, payload (the record as UTF-8 JSON). Each frame carries its own seq, so damage
 * can be stepped over: the reader resynchronises on the next frame whose CRC holds and whose
 * seq follows, and the seqs missing in between are exactly the records lost.
 * Ack file: two 16-byte slots, each f64 LE seq + u32 LE CRC-32 of it + padding; the valid
 * slot with the higher seq wins.
 */
import { mkdir, open } from 'node:fs/promises'
import { dirname } from 'node:path'
import { crc32 } from 'node:zlib'
import type { QueuedRecord } from './queue.js'

/** Bytes before a frame's payload. */
export const FRAME_HEADER = 16
/** Bytes of one ack slot; the ack file holds two. */
export const ACK_SLOT = 16
/** Largest payload a frame may carry; anything longer is treated as corruption on read. */
export const MAX_FRAME = 1 << 20
/**
 * Highest seq a segment name may start at. Far above anything a queue reaches (2^52 records),
 * and low enough that seqs derived from it stay exact doubles (below 2^53).
 */
export const MAX_SEGMENT_SEQ = 2 ** 52
/** Segment file names: the first seq, zero-padded to 16 digits so names sort like numbers. */
export const SEGMENT_NAME = /^\d{16}\.seg$/

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/** The record (a JSON object) as a frame payload (checked against MAX_FRAME by the caller). */
export function encodePayload(record: object): Buffer {
  return Buffer.from(JSON.stringify(record), 'utf8')
}

/** Frames a payload with its seq for appending to a segment. */
export function encodeFrame(seq: number, payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER + payload.length)
  frame.writeUInt32LE(payload.length, 0)
  frame.writeDoubleLE(seq, 8)
  payload.copy(frame, FRAME_HEADER)
  frame.writeUInt32LE(crc32(frame.subarray(8)), 4)
  return frame
}

/**
 * Says whether a record read back is one the queue's consumer can use. A frame whose CRC holds
 * but whose record fails it counts as damage: its seq is lost (reported), never handed out.
 */
export type RecordCheck = (record: object) => boolean

/** What reading a segment found. */
export interface DecodedSegment {
  records: QueuedRecord<object>[]
  /** Seqs of frames intact on disk whose record failed the check (lost, like damaged ones). */
  rejected: number[]
  /** Bytes stepped over between valid frames (damage in the middle). */
  damagedBytes: number
  /** Bytes after the last valid frame: a write cut short, or damage at the end. */
  tailBytes: number
  /** Records read after a damaged stretch: without resynchronisation they would be lost. */
  salvaged: number
}

/** The frame at `off`, if one is there whose seq is above `after` (any seq when undefined). */
function frameAt(buf: Buffer, off: number, after: number | undefined): QueuedRecord<object> | undefined {
  const len = buf.readUInt32LE(off)
  const end = off + FRAME_HEADER + len
  // A record is a JSON object: cheap checks first, so scanning garbage stays fast.
  if (len < 2 || len > MAX_FRAME || end > buf.length) return undefined
  if (buf[off + FRAME_HEADER] !== OPEN_BRACE || buf[end - 1] !== CLOSE_BRACE) return undefined
  if (crc32(buf.subarray(off + 8, end)) !== buf.readUInt32LE(off + 4)) return undefined
  const seq = buf.readDoubleLE(off + 8)
  if (after !== undefined && (!Number.isSafeInteger(seq) || seq <= after)) return undefined
  try {
    const record = JSON.parse(buf.toString('utf8', off + FRAME_HEADER, end)) as object | null
    return record !== null && typeof record === 'object' ? { seq, record } : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether `buf` starts with a frame of the first format (0.1.0 before frames carried seqs:
 * u32 length, u32 CRC-32 of the payload, payload): such segments are still read, never written.
 */
function isLegacySegment(buf: Buffer): boolean {
  if (buf.length < 10) return false
  const len = buf.readUInt32LE(0)
  if (len < 2 || len > MAX_FRAME || 8 + len > buf.length || buf[8] !== OPEN_BRACE) return false
  return crc32(buf.subarray(8, 8 + len)) === buf.readUInt32LE(4)
}

/** A first-format segment: seqs are the name's plus the index; reading stops at damage. */
function decodeLegacySegment(buf: Buffer, firstSeq: number, accept: RecordCheck | undefined): DecodedSegment {
  const records: QueuedRecord<object>[] = []
  const rejected: number[] = []
  let off = 0
  let damagedBytes = 0
  for (let seq = firstSeq; off + 8 <= buf.length; seq++) {
    const len = buf.readUInt32LE(off)
    if (len === 0 || len > MAX_FRAME || off + 8 + len > buf.length) break
    const payload = buf.subarray(off + 8, off + 8 + len)
    if (crc32(payload) !== buf.readUInt32LE(off + 4)) break
    let record: unknown
    try {
      record = JSON.parse(payload.toString('utf8')) as unknown
    } catch {
      break
    }
    if (record !== null && typeof record === 'object' && (accept === undefined || accept(record)))
      records.push({ seq, record })
    else {
      rejected.push(seq)
      damagedBytes += 8 + len
    }
    off += 8 + len
  }
  return { records, rejected, damagedBytes, tailBytes: buf.length - off, salvaged: 0 }
}

/**
 * Decodes a segment whose first seq is `firstSeq`, stepping over damage byte by byte to the
 * next valid frame. Seqs must rise; with `anySeq` (a segment being renumbered) they are not
 * checked against the name. Records that fail `accept` are listed in `rejected`, not returned.
 */
export function decodeSegment(buf: Buffer, firstSeq: number, anySeq = false, accept?: RecordCheck): DecodedSegment {
  if (isLegacySegment(buf)) return decodeLegacySegment(buf, firstSeq, accept)
  const records: QueuedRecord<object>[] = []
  const rejected: number[] = []
  let after = firstSeq - 1
  let off = 0
  let badFrom = -1
  let damagedBytes = 0
  let salvaged = 0
  let damaged = false
  while (off + FRAME_HEADER <= buf.length) {
    const found = frameAt(buf, off, anySeq ? undefined : after)
    if (found === undefined) {
      if (badFrom < 0) badFrom = off
      off++
      continue
    }
    if (badFrom >= 0) {
      damagedBytes += off - badFrom
      badFrom = -1
      damaged = true
    }
    const size = FRAME_HEADER + buf.readUInt32LE(off)
    if (accept !== undefined && !accept(found.record)) {
      // Intact on disk but unusable (a wildcard topic, say): lost like a damaged frame, yet
      // its seq is known, so the records after it are not mistaken for a torn tail.
      rejected.push(found.seq)
      damagedBytes += size
      damaged = true
    } else {
      if (damaged) salvaged++
      records.push(found)
    }
    after = found.seq
    off += size
  }
  const tailBytes = buf.length - (badFrom >= 0 ? badFrom : off)
  return { records, rejected, damagedBytes, tailBytes, salvaged }
}

/** One ack slot holding `seq`. */
export function encodeAckSlot(seq: number): Buffer {
  const slot = Buffer.alloc(ACK_SLOT)
  slot.writeDoubleLE(seq, 0)
  slot.writeUInt32LE(crc32(slot.subarray(0, 8)), 8)
  return slot
}

/**
 * The acknowledged seq (0 when none), the slot to write next (the one not holding it), and
 * whether any slot was readable (if not, the seq is unknown, not 0).
 */
export function decodeAckFile(buf: Buffer): { seq: number; nextSlot: 0 | 1; valid: boolean } {
  let seq = 0
  let nextSlot: 0 | 1 = 0
  let valid = false
  for (const slot of [0, 1] as const) {
    const off = slot * ACK_SLOT
    if (off + ACK_SLOT > buf.length) break
    const body = buf.subarray(off, off + 8)
    if (crc32(body) !== buf.readUInt32LE(off + 8)) continue
    const value = body.readDoubleLE(0)
    if (!Number.isSafeInteger(value) || value < 0) continue
    valid = true
    if (value > seq) {
      seq = value
      nextSlot = slot === 0 ? 1 : 0
    }
  }
  return { seq, nextSlot, valid }
}

/** Anything named like a segment, valid name or not (a wrong one must not be ignored silently). */
export const SEGMENT_LIKE = /^\d+\.seg$/

/** The first seq a segment's name gives, or undefined when the name is not a valid one. */
export function parseSegmentName(name: string): number | undefined {
  if (!SEGMENT_NAME.test(name)) return undefined
  const seq = Number(name.slice(0, 16))
  return seq >= 1 && seq <= MAX_SEGMENT_SEQ ? seq : undefined
}

/** The file name of the segment whose first record has `firstSeq`. */
export function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(16, '0')}.seg`
}

/**
 * `mkdir -p` by hand: Node's recursive mkdir never settles for some paths (under /proc), and
 * a queue that hangs at open is worse than one that fails.
 */
export async function makeDir(dir: string, depth = 0): Promise<void> {
  try {
    await mkdir(dir)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return
    const parent = dirname(dir)
    if (code !== 'ENOENT' || parent === dir || depth > 64) throw e
    await makeDir(parent, depth + 1)
    await mkdir(dir).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== 'EEXIST') throw again
    })
  }
}

/** Makes a new file's directory entry durable: that needs the directory itself synced. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
