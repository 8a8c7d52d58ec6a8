import { describe, it, expect, afterEach } from 'vitest'
import { mkdtempSync, readdirSync, rmSync, appendFileSync, readFileSync, writeFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { FileQueue } from '../../src/queue/file-queue.js'
import type { DropInfo, UploadQueue } from '../../src/queue/queue.js'
import { InvalidOptionError } from '../../src/errors.js'
import { FRAME_HEADER, encodeFrame, encodePayload } from '../../src/queue/journal.js'
import { queueContract, record } from './queue-contract.js'

const dirs: string[] = []
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'beaconkit-fq-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const opened = new WeakMap<UploadQueue, string>()
queueContract('FileQueue', {
  async create() {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    opened.set(q, dir)
    return q
  },
  async reopen(q) {
    await q.close()
    const dir = opened.get(q) as string
    const q2 = await FileQueue.open({ dir })
    opened.set(q2, dir)
    return q2
  },
})

/** A queue directory of 5 records whose only (last) segment was overwritten with zeros. */
async function zeroedLastSegment(): Promise<{ dir: string; name: string }> {
  const dir = tempDir()
  const q = await FileQueue.open({ dir })
  for (let i = 0; i < 5; i++) await q.push(record(i))
  await q.close()
  const [name] = segments(dir)
  writeFileSync(join(dir, name), Buffer.alloc(statSync(join(dir, name)).size))
  return { dir, name }
}

function segments(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.seg')).sort()
}

describe('FileQueue recovery', () => {
  it('ignores a torn tail and keeps every record before it', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    for (let i = 0; i < 10; i++) await q.push(record(i))
    await q.close()
    const [seg] = segments(dir)
    // A frame header promising 500 bytes followed by only a few: a write cut short by kill -9.
    const torn = Buffer.alloc(20)
    torn.writeUInt32LE(500, 0)
    appendFileSync(join(dir, seg), torn)

    const q2 = await FileQueue.open({ dir })
    expect(q2.stats.recovered).toBe(10)
    expect(q2.stats.tornBytes).toBe(20)
    expect((await q2.peek(20)).map((r) => r.record.msgId)).toEqual(Array.from({ length: 10 }, (_, i) => `m-${i}`))
    await q2.push(record(10))
    await q2.close()

    const q3 = await FileQueue.open({ dir })
    expect((await q3.peek(20)).map((r) => r.record.msgId)).toEqual(Array.from({ length: 11 }, (_, i) => `m-${i}`))
    await q3.close()
  })

  it('steps over corrupt bytes in the middle of a segment: the records after them are salvaged and the loss counted', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    for (let i = 0; i < 10; i++) await q.push(record(i))
    await q.close()
    const path = join(dir, segments(dir)[0])
    const buf = readFileSync(path)
    // Overwrite the third and fourth frames' payloads with garbage (bit rot, a bad sector).
    let off = 0
    for (let k = 0; k < 2; k++) off += FRAME_HEADER + buf.readUInt32LE(off)
    const third = FRAME_HEADER + buf.readUInt32LE(off)
    const fourth = FRAME_HEADER + buf.readUInt32LE(off + third)
    buf.fill(0x5a, off + 20, off + third + fourth - 4)
    writeFileSync(path, buf)

    const q2 = await FileQueue.open({ dir })
    expect((await q2.peek(20)).map((r) => r.record.msgId)).toEqual(['m-0', 'm-1', 'm-4', 'm-5', 'm-6', 'm-7', 'm-8', 'm-9'])
    expect(q2.takeOpenReport().dropped).toEqual([{ count: 2, reason: 'corrupt', segment: segments(dir)[0], salvaged: 6 }])
    expect(q2.stats).toMatchObject({ recovered: 8, lost: 2, dropped: 2, salvaged: 6 })
    expect(q2.stats.damagedBytes).toBe(third + fourth)
    expect(q2.size).toBe(8)
    await q2.close()

    // Reported once: a restart before the records are delivered does not report the loss again.
    const q3 = await FileQueue.open({ dir })
    expect(q3.takeOpenReport().dropped).toEqual([])
    expect((await q3.peek(20)).length).toBe(8)
    const left = await q3.peek(20)
    await q3.ack(left[left.length - 1].seq)
    expect(q3.size).toBe(0)
    await q3.close()
  })

  it('counts two damaged stretches in one segment as two losses, and its salvaged records once', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    for (let i = 0; i < 10; i++) await q.push(record(i))
    await q.close()
    const name = segments(dir)[0]
    const buf = readFileSync(join(dir, name))
    const starts: number[] = []
    for (let off = 0; off < buf.length; off += FRAME_HEADER + buf.readUInt32LE(off)) starts.push(off)
    buf.fill(0xee, starts[2] + 18, starts[2] + 24) // record 2
    buf.fill(0xee, starts[6] + 18, starts[6] + 24) // record 6
    writeFileSync(join(dir, name), buf)
    const q2 = await FileQueue.open({ dir })
    const { dropped } = q2.takeOpenReport()
    expect(dropped.map((d) => [d.count, d.reason])).toEqual([
      [1, 'corrupt'],
      [1, 'corrupt'],
    ])
    expect(dropped.reduce((n, d) => n + (d.salvaged ?? 0), 0)).toBe(q2.stats.salvaged)
    expect((await q2.peek(20)).map((r) => r.record.msgId)).toEqual(['m-0', 'm-1', 'm-3', 'm-4', 'm-5', 'm-7', 'm-8', 'm-9'])
    await q2.close()
  })

  it('reports a zeroed segment and a deleted segment with exact counts', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    for (let i = 0; i < 200; i++) await q.push(record(i))
    await q.close()
    const names = segments(dir)
    expect(names.length).toBeGreaterThan(4)
    const seqOf = (name: string): number => Number(name.slice(0, 16))
    // Zero the second segment in place (its length stays), delete the fourth.
    const zeroed = names[1]
    writeFileSync(join(dir, zeroed), Buffer.alloc(statSync(join(dir, zeroed)).size))
    const deleted = names[3]
    rmSync(join(dir, deleted))
    const inZeroed = seqOf(names[2]) - seqOf(zeroed)
    const inDeleted = seqOf(names[4]) - seqOf(deleted)

    const q2 = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    const report = q2.takeOpenReport()
    expect(report.dropped).toEqual([
      { count: inZeroed, reason: 'corrupt', segment: zeroed, salvaged: 0 },
      { count: inDeleted, reason: 'missing', segment: deleted },
    ])
    expect(q2.stats.lost).toBe(inZeroed + inDeleted)
    const left = (await q2.peek(1000)).map((r) => r.record.msgId)
    expect(left.length).toBe(200 - inZeroed - inDeleted)
    expect(q2.size).toBe(left.length)
    // Every record of the intact segments is still there, in order.
    const expected = Array.from({ length: 200 }, (_, i) => i)
      .filter((i) => !(i + 1 >= seqOf(zeroed) && i + 1 < seqOf(names[2])) && !(i + 1 >= seqOf(deleted) && i + 1 < seqOf(names[4])))
      .map((i) => `m-${i}`)
    expect(left).toEqual(expected)
    await q2.close()
  })

  it('reports the records of a zeroed last segment as dropped, counted from the seq written at close', async () => {
    const { dir, name } = await zeroedLastSegment()
    const q2 = await FileQueue.open({ dir })
    expect(q2.takeOpenReport()).toEqual({ dropped: [{ count: 5, reason: 'corrupt', segment: name, salvaged: 0 }], warnings: [] })
    expect(q2.size).toBe(0)
    await q2.close()
  })

  it('trusts an ack past the written watermark when the segments on disk reach it (a kill before close), without a warning', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    for (let i = 0; i < 10; i++) await q.push(record(i))
    await q.ack(10)
    // The directory as a SIGKILL leaves it now: `written` still says 0, the ack 10.
    const killed = tempDir()
    for (const name of readdirSync(dir)) if (name !== 'lock') writeFileSync(join(killed, name), readFileSync(join(dir, name)))
    await q.close()
    const q2 = await FileQueue.open({ dir: killed })
    expect(q2.takeOpenReport()).toEqual({ dropped: [], warnings: [] })
    expect(q2.size).toBe(0)
    await q2.close()
  })

  it('warns about a last segment with no readable record when nothing says how many it held', async () => {
    const { dir } = await zeroedLastSegment()
    // A directory of an older version, or one whose `written` file is gone too.
    rmSync(join(dir, 'written'))
    const q2 = await FileQueue.open({ dir })
    expect(q2.takeOpenReport().warnings.map((w) => w.code)).toEqual(['segment_unreadable'])
    expect(q2.size).toBe(0)
    await q2.close()
  })

  it('reports a segment deleted while the queue runs as dropped (missing) and carries on', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    const drops: DropInfo[] = []
    q.on('dropped', (d) => drops.push(d))
    for (let i = 0; i < 150; i++) await q.push(record(i))
    // Consuming the head unloads the other sealed segments from memory.
    const head = await q.peek(1)
    const names = segments(dir)
    const victim = names[1]
    const inVictim = Number(names[2].slice(0, 16)) - Number(victim.slice(0, 16))
    rmSync(join(dir, victim))
    await q.ack(head[0].seq)
    const rest = await q.peek(1000)
    expect(drops).toEqual([{ count: inVictim, reason: 'missing', segment: victim }])
    expect(rest.length).toBe(149 - inVictim)
    expect(q.size).toBe(rest.length)
    await q.ack(rest[rest.length - 1].seq)
    expect(q.size).toBe(0)
    await q.close()
    // Not reported again after a restart.
    const q2 = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    expect(q2.takeOpenReport().dropped).toEqual([])
    await q2.close()
  })

  it('renumbers a segment whose name is at or above 2^53 instead of corrupting seqs', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    for (let i = 0; i < 3; i++) await q.push(record(i))
    await q.close()
    // 9007199254740993 = 2^53 + 1: Number() rounds it, so seq + index arithmetic goes wrong.
    const bad = '9007199254740993.seg'
    writeFileSync(join(dir, bad), Buffer.concat([10, 11, 12].map((i, k) => encodeFrame(2 ** 53 + k, encodePayload(record(i))))))
    const q2 = await FileQueue.open({ dir })
    expect(q2.takeOpenReport().warnings.map((w) => w.code)).toEqual(['segment_renumbered'])
    expect(readdirSync(dir)).not.toContain(bad)
    const seqs = [await q2.push(record(20)), await q2.push(record(21))]
    const all = await q2.peek(100)
    expect(all.map((r) => r.record.msgId)).toEqual(['m-0', 'm-1', 'm-2', 'm-10', 'm-11', 'm-12', 'm-20', 'm-21'])
    // Seqs stay exact, distinct and rising, far below 2^53.
    expect(all.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(seqs).toEqual([7, 8])
    await q2.ack(6)
    expect((await q2.peek(100)).map((r) => r.record.msgId)).toEqual(['m-20', 'm-21'])
    await q2.close()
    const q3 = await FileQueue.open({ dir })
    expect((await q3.peek(100)).map((r) => r.record.msgId)).toEqual(['m-20', 'm-21'])
    await q3.close()
  })

  it('reads segments written in the first format (no seq in frames) and delivers their records', async () => {
    const dir = tempDir()
    // u32 length, u32 CRC-32 of the payload, payload: what 0.1.0 wrote before frames carried seqs.
    const legacy = Buffer.concat(
      [0, 1, 2].map((i) => {
        const payload = Buffer.from(JSON.stringify(record(i)))
        const head = Buffer.alloc(8)
        head.writeUInt32LE(payload.length, 0)
        head.writeUInt32LE(crc32(payload), 4)
        return Buffer.concat([head, payload])
      }),
    )
    writeFileSync(join(dir, '0000000000000007.seg'), legacy)
    const q = await FileQueue.open({ dir })
    expect((await q.peek(10)).map((r) => [r.seq, r.record.msgId])).toEqual([
      [7, 'm-0'],
      [8, 'm-1'],
      [9, 'm-2'],
    ])
    expect(q.takeOpenReport()).toEqual({ dropped: [], warnings: [] })
    expect(await q.push(record(3))).toBe(10)
    await q.close()
  })

  it('does not take seqs below the first segment for lost when the ack file is gone', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    const seqs: number[] = []
    for (let i = 0; i < 100; i++) seqs.push(await q.push(record(i)))
    await q.ack(seqs[59])
    await q.close()
    rmSync(join(dir, 'ack'))
    const q2 = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    // Delivered records may come again (at least once), but nothing is reported lost.
    expect(q2.takeOpenReport().dropped).toEqual([])
    expect(q2.size).toBeGreaterThanOrEqual(40)
    await q2.close()
  })

  it('leaves an unreadable file with a wrong segment name in place, with a warning', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, '99999999999999999999.seg'), Buffer.from('not a segment at all'))
    const q = await FileQueue.open({ dir })
    expect(q.takeOpenReport().warnings.map((w) => w.code)).toEqual(['segment_unreadable'])
    expect(readdirSync(dir)).toContain('99999999999999999999.seg')
    await q.close()
  })

  it('removes a segment holding no complete record', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, '0000000000000001.seg'), Buffer.from([1, 2, 3]))
    const q = await FileQueue.open({ dir })
    expect(q.size).toBe(0)
    expect(segments(dir)).toEqual([])
    await q.push(record(1))
    expect((await q.peek(5)).map((r) => r.record.msgId)).toEqual(['m-1'])
    await q.close()
  })

  it('falls back to the previous ack when the newest ack slot is torn (redelivery, never loss)', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    const seqs = await Promise.all(Array.from({ length: 6 }, (_, i) => q.push(record(i))))
    await q.ack(seqs[1]) // slot 0
    await q.ack(seqs[3]) // slot 1
    await q.close()
    const ack = readFileSync(join(dir, 'ack'))
    ack[16 + 2] ^= 0xff // damage slot 1
    writeFileSync(join(dir, 'ack'), ack)
    const q2 = await FileQueue.open({ dir })
    expect((await q2.peek(10)).map((r) => r.record.msgId)).toEqual(['m-2', 'm-3', 'm-4', 'm-5'])
    await q2.close()
  })

  it('continues seqs after every segment was acknowledged and deleted', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir, maxBytes: 64 * 1024, segmentBytes: 4096 })
    const seqs = await Promise.all(Array.from({ length: 100 }, (_, i) => q.push(record(i))))
    await q.ack(seqs[99])
    await q.close()
    const q2 = await FileQueue.open({ dir })
    expect(segments(dir)).toEqual([])
    expect(await q2.push(record(100))).toBeGreaterThan(seqs[99])
    await q2.close()
  })

  it('rejects a directory path that is a file with a typed error', async () => {
    const dir = tempDir()
    const file = join(dir, 'not-a-dir')
    writeFileSync(file, 'x')
    const err = await FileQueue.open({ dir: file }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InvalidOptionError)
    expect((err as InvalidOptionError).option).toBe('queueDir')
    await expect(FileQueue.open({ dir: '' })).rejects.toBeInstanceOf(InvalidOptionError)
    // Node's recursive mkdir never settles here; the queue must fail instead of hanging.
    await expect(FileQueue.open({ dir: '/proc/beaconkit-no/queue' })).rejects.toBeInstanceOf(InvalidOptionError)
    await expect(FileQueue.open({ dir, maxBytes: 10 })).rejects.toThrow(/maxBytes/)
  })
})

describe('FileQueue disk use', () => {
  it('deletes segments once every record in them is acknowledged', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir, maxBytes: 64 * 1024, segmentBytes: 4096 })
    const seqs = await Promise.all(Array.from({ length: 300 }, (_, i) => q.push(record(i))))
    expect(segments(dir).length).toBeGreaterThan(5)
    await q.ack(seqs[299])
    // Only the segment being written may remain.
    expect(segments(dir).length).toBeLessThanOrEqual(1)
    expect(q.size).toBe(0)
    await q.close()
  })

  it('drops the oldest segment beyond maxBytes, counts and reports it, and keeps the newest records', async () => {
    const dir = tempDir()
    const maxBytes = 64 * 1024
    const q = await FileQueue.open({ dir, maxBytes, segmentBytes: 4096 })
    const drops: DropInfo[] = []
    q.on('dropped', (d) => drops.push(d))
    const n = 2000
    for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => q.push(record(i + k))))
    const total = segments(dir).reduce((sum, s) => sum + statSync(join(dir, s)).size, 0)
    expect(total).toBeLessThanOrEqual(maxBytes)
    const dropped = drops.reduce((sum, d) => sum + d.count, 0)
    expect(dropped).toBeGreaterThan(0)
    expect(drops.every((d) => d.reason === 'queue_full')).toBe(true)
    expect(q.stats.dropped).toBe(dropped)
    expect(q.size + dropped).toBe(n)
    const left = await q.peek(n)
    // What is left is the newest records, contiguous and in order.
    expect(left.map((r) => r.record.msgId)).toEqual(Array.from({ length: left.length }, (_, i) => `m-${n - left.length + i}`))
    await q.close()
  })

  it('reads records back from sealed segments after a reopen, across many segments', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    await Promise.all(Array.from({ length: 500 }, (_, i) => q.push(record(i))))
    await q.close()
    const q2 = await FileQueue.open({ dir, maxBytes: 1024 * 1024, segmentBytes: 4096 })
    const seen: string[] = []
    for (;;) {
      const batch = await q2.peek(64)
      if (batch.length === 0) break
      seen.push(...batch.map((r) => r.record.msgId))
      await q2.ack(batch[batch.length - 1].seq)
    }
    expect(seen).toEqual(Array.from({ length: 500 }, (_, i) => `m-${i}`))
    await q2.close()
  })
})
