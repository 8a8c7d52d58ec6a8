// A damaged queue directory (issue 23, item 14): every way the disk can lose or spoil events is
// reported as `dropped` with its count, reason and segment (or a warning when nothing is lost),
// and the events still readable are delivered: one bad record never stops the rest.
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileQueue } from '../../src/queue/file-queue.js'
import { encodeAckSlot, encodeFrame, encodePayload, segmentName } from '../../src/queue/journal.js'
import type { QueueWarning } from '../../src/queue/queue.js'
import { DiskEvents, isStoredEvent } from '../../src/mqtt/disk-events.js'
import type { DiskDropInfo, StoredEvent } from '../../src/mqtt/disk-events.js'
import { isPublishTopic } from '../../src/util/topic-level.js'
import { waitFor } from '../integration/wait.js'

const TOPIC = 'beaconkit/gateways/hall/events'
const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'beaconkit-disk-damage-'))
  dirs.push(dir)
  return dir
}

/** Opens the queue as the publisher does (with its record check). */
async function openDisk(dir: string): Promise<{ disk: DiskEvents; drops: DiskDropInfo[]; warnings: QueueWarning[] }> {
  const queue = await FileQueue.open<StoredEvent>({ dir, accept: isStoredEvent })
  const drops: DiskDropInfo[] = []
  const warnings: QueueWarning[] = []
  const disk = new DiskEvents(queue, 1000, { ready: () => undefined, dropped: (d) => drops.push(d), warning: (w) => warnings.push(w), failed: (e) => { throw e } })
  return { disk, drops, warnings }
}

/** Writes `n` events through a DiskEvents, as a publisher with the broker away would, and closes. */
async function queued(dir: string, n: number): Promise<void> {
  const { disk } = await openDisk(dir)
  for (let i = 0; i < n; i++) disk.push(TOPIC, `e${i}`)
  await waitFor(() => disk.size === n, `${n} events on disk`)
  await disk.close()
}

/** Takes and acknowledges every event the disk hands out until it is empty. */
async function drain(disk: DiskEvents): Promise<string[]> {
  const out: string[] = []
  await waitFor(() => {
    for (let r = disk.take(); r !== undefined; r = disk.take()) {
      out.push(r.record.payload)
      disk.sent(r.seq)
    }
    return disk.waiting === 0 && disk.size === 0
  }, 'the disk queue to empty')
  return out
}

async function onlySegment(dir: string): Promise<string> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.seg'))
  expect(names).toHaveLength(1)
  return names[0]
}

/** A segment of intact frames (valid CRCs) with these records, seqs from 1. */
async function writeSegment(dir: string, records: object[]): Promise<string> {
  const name = segmentName(1)
  await writeFile(join(dir, name), Buffer.concat(records.map((r, i) => encodeFrame(i + 1, encodePayload(r)))))
  return name
}

describe('isPublishTopic', () => {
  it('takes topic names a broker accepts and refuses wildcards, control characters, broken UTF-16, empty and over-long ones', () => {
    for (const ok of [TOPIC, 'a', '/', 'a//b', '{}', 'é/ü/日本', '😀', 'x'.repeat(65535)]) expect(isPublishTopic(ok), ok).toBe(true)
    for (const bad of ['', 'beaconkit/#', 'a/+/b', '+', 'a\u0000b', 'a\nb', 'a\u007fb', 'a\u0085b', 'a\ud800', '\udc00b', 'é'.repeat(32768)]) expect(isPublishTopic(bad), JSON.stringify(bad)).toBe(false)
  })
})

describe('DiskEvents over a damaged queue directory', () => {
  it('a segment overwritten with garbage: its events reported dropped (corrupt, segment named), the queue keeps working', async () => {
    const dir = await tempDir()
    await queued(dir, 199)
    const name = await onlySegment(dir)
    const size = (await readFile(join(dir, name))).length
    await writeFile(join(dir, name), Buffer.alloc(size, 0x5a))
    const { disk, drops } = await openDisk(dir)
    expect(drops).toEqual([{ count: 199, reason: 'corrupt', kind: 'event', segment: name }])
    disk.push(TOPIC, 'after')
    expect(await drain(disk)).toEqual(['after'])
    await disk.close()
  })

  it('an emptied segment: its events reported dropped', async () => {
    const dir = await tempDir()
    await queued(dir, 199)
    const name = await onlySegment(dir)
    await truncate(join(dir, name), 0)
    const { disk, drops } = await openDisk(dir)
    expect(drops).toEqual([{ count: 199, reason: 'corrupt', kind: 'event', segment: name }])
    await disk.close()
  })

  it('a segment file deleted while the gateway was stopped: its events reported dropped (missing)', async () => {
    const dir = await tempDir()
    await queued(dir, 40)
    const name = await onlySegment(dir)
    await rm(join(dir, name))
    const { disk, drops } = await openDisk(dir)
    expect(drops).toEqual([{ count: 40, reason: 'missing', kind: 'event', segment: name }])
    await disk.close()
  })

  it('a segment truncated at 60 %: the events before the cut are delivered, those after it reported', async () => {
    const dir = await tempDir()
    await queued(dir, 199)
    const name = await onlySegment(dir)
    const size = (await readFile(join(dir, name))).length
    await truncate(join(dir, name), Math.floor(size * 0.6))
    const { disk, drops } = await openDisk(dir)
    const delivered = await drain(disk)
    expect(drops).toEqual([{ count: 199 - delivered.length, reason: 'corrupt', kind: 'event', segment: name }])
    expect(delivered.length).toBeGreaterThan(100)
    expect(delivered).toEqual(Array.from({ length: delivered.length }, (_, i) => `e${i}`))
    await disk.close()
  })

  it('a record with a valid CRC but a wildcard topic, a topic {} or a non-text payload: each dropped, the rest delivered in order', async () => {
    const dir = await tempDir()
    const records: object[] = Array.from({ length: 200 }, (_, i) => ({ topic: TOPIC, payload: `e${i}` }))
    records[50] = { topic: 'beaconkit/#', payload: 'wild' }
    records[100] = { topic: {}, payload: 'object topic' }
    records[150] = { topic: TOPIC, payload: { not: 'text' } }
    records[199] = { topic: 'a/+/b', payload: 'last one bad' }
    const name = await writeSegment(dir, records)
    const { disk, drops } = await openDisk(dir)
    const delivered = await drain(disk)
    expect(delivered).toEqual(Array.from({ length: 200 }, (_, i) => `e${i}`).filter((_, i) => ![50, 100, 150, 199].includes(i)))
    expect(drops.reduce((n, d) => n + d.count, 0)).toBe(4)
    expect(drops.every((d) => d.reason === 'corrupt' && d.segment === name)).toBe(true)
    await disk.close()
  })

  it('a crafted ack (beyond every seq written) is ignored with a warning: the events go out again, none lost', async () => {
    const dir = await tempDir()
    await queued(dir, 50)
    await writeFile(join(dir, 'ack'), Buffer.concat([encodeAckSlot(1e12), encodeAckSlot(1e12)]))
    const { disk, drops, warnings } = await openDisk(dir)
    expect(warnings.map((w) => w.code)).toEqual(['ack_invalid'])
    expect(drops).toEqual([])
    expect(await drain(disk)).toEqual(Array.from({ length: 50 }, (_, i) => `e${i}`))
    await disk.close()
    // The ack file was set right: the next run neither warns nor sends anything again.
    const again = await openDisk(dir)
    expect(again.warnings).toEqual([])
    expect(again.disk.size).toBe(0)
    await again.disk.close()
  })

  it('a loss is reported once, not again at every start', async () => {
    const dir = await tempDir()
    await queued(dir, 20)
    await truncate(join(dir, await onlySegment(dir)), 0)
    const first = await openDisk(dir)
    expect(first.drops.map((d) => d.count)).toEqual([20])
    await first.disk.close()
    const second = await openDisk(dir)
    expect(second.drops).toEqual([])
    expect(second.warnings).toEqual([])
    await second.disk.close()
  })
})
