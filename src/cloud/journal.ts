/**
 * The file queue's on-disk format, kept apart from its bookkeeping.
 *
 * Segment frame: u32 LE payload length, u32 LE CRC-32 of the payload, payload (the record as
 * UTF-8 JSON). Ack file: two 16-byte slots, each f64 LE seq + u32 LE CRC-32 of it + padding;
 * the valid slot with the higher seq wins.
 */
import { mkdir, open } from 'node:fs/promises'
import { dirname } from 'node:path'
import { crc32 } from 'node:zlib'
import type { BeaconLogRecord } from './records.js'

const HEADER = 8
/** Bytes of one ack slot; the ack file holds two. */
export const ACK_SLOT = 16
/** Largest payload a frame may carry; anything longer is treated as corruption on read. */
export const MAX_FRAME = 1 << 20
/** Segment file names: the first seq, zero-padded so names sort like numbers. */
export const SEGMENT_NAME = /^\d{16}\.seg$/

/** Frames a record for appending to a segment. */
export function encodeFrame(record: BeaconLogRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(record), 'utf8')
  const frame = Buffer.allocUnsafe(HEADER + payload.length)
  frame.writeUInt32LE(payload.length, 0)
  frame.writeUInt32LE(crc32(payload), 4)
  payload.copy(frame, HEADER)
  return frame
}

/** Decodes frames from the start of `buf` until the first incomplete or corrupt one. */
export function decodeFrames(buf: Buffer, limit = Infinity): { records: BeaconLogRecord[]; validBytes: number } {
  const records: BeaconLogRecord[] = []
  let off = 0
  while (records.length < limit && off + HEADER <= buf.length) {
    const len = buf.readUInt32LE(off)
    if (len === 0 || len > MAX_FRAME || off + HEADER + len > buf.length) break
    const payload = buf.subarray(off + HEADER, off + HEADER + len)
    if (crc32(payload) !== buf.readUInt32LE(off + 4)) break
    let record: BeaconLogRecord
    try {
      record = JSON.parse(payload.toString('utf8')) as BeaconLogRecord
    } catch {
      break
    }
    records.push(record)
    off += HEADER + len
  }
  return { records, validBytes: off }
}

/** One ack slot holding `seq`. */
export function encodeAckSlot(seq: number): Buffer {
  const slot = Buffer.alloc(ACK_SLOT)
  slot.writeDoubleLE(seq, 0)
  slot.writeUInt32LE(crc32(slot.subarray(0, 8)), 8)
  return slot
}

/** The acknowledged seq (0 when none) and the slot to write next: the one not holding it. */
export function decodeAckFile(buf: Buffer): { seq: number; nextSlot: 0 | 1 } {
  let seq = 0
  let nextSlot: 0 | 1 = 0
  for (const slot of [0, 1] as const) {
    const off = slot * ACK_SLOT
    if (off + ACK_SLOT > buf.length) break
    const body = buf.subarray(off, off + 8)
    if (crc32(body) !== buf.readUInt32LE(off + 8)) continue
    const value = body.readDoubleLE(0)
    if (Number.isSafeInteger(value) && value > seq) {
      seq = value
      nextSlot = slot === 0 ? 1 : 0
    }
  }
  return { seq, nextSlot }
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
