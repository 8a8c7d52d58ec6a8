/**
 * The contract every UploadQueue must honour (in the manner of aedes-persistence's abstract
 * suite): run `queueContract(name, factory)` against each implementation.
 */
import { describe, it, expect } from 'vitest'
import type { UploadQueue } from '../../src/queue/queue.js'
import type { BeaconLogRecord } from '../../src/reading.js'

/** Creates a fresh, empty queue; `reopen` (when given) closes it and opens the same storage again. */
export interface QueueFactory {
  create(): Promise<UploadQueue>
  reopen?: (queue: UploadQueue) => Promise<UploadQueue>
}

/** A record with a recognisable msgId. */
export function record(i: number): BeaconLogRecord {
  return { msgId: `m-${i}`, beaconMac: '0117C5456A36', updatedTime: 1_700_000_000_000 + i, sensor: { temperature: 20 + (i % 10), power: 90 } }
}

export function queueContract(name: string, factory: QueueFactory): void {
  describe(`UploadQueue contract: ${name}`, () => {
    it('starts empty', async () => {
      const q = await factory.create()
      expect(q.size).toBe(0)
      expect(await q.peek(10)).toEqual([])
      await q.close()
    })

    it('peeks the oldest records in push order without removing them', async () => {
      const q = await factory.create()
      const seqs: number[] = []
      for (let i = 0; i < 5; i++) seqs.push(await q.push(record(i)))
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      expect(new Set(seqs).size).toBe(5)
      const first = await q.peek(3)
      expect(first.map((r) => r.record.msgId)).toEqual(['m-0', 'm-1', 'm-2'])
      expect(first.map((r) => r.seq)).toEqual(seqs.slice(0, 3))
      expect((await q.peek(3)).map((r) => r.record.msgId)).toEqual(['m-0', 'm-1', 'm-2'])
      expect(q.size).toBe(5)
      expect(await q.peek(0)).toEqual([])
      await q.close()
    })

    it('returns records exactly as pushed', async () => {
      const q = await factory.create()
      const r: BeaconLogRecord = {
        msgId: 'x-1',
        beaconMac: '0117C5000001',
        beaconUMM: 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825|10001|2',
        updatedTime: 1_700_000_000_123,
        location: { lat: 31.5, lon: -121.25 },
        sensor: { temperature: -3.5, light: 0, power: 100, accelerometer: 65535 },
      }
      await q.push(r)
      expect((await q.peek(1))[0].record).toEqual(r)
      await q.close()
    })

    it('ack removes every record up to and including the seq', async () => {
      const q = await factory.create()
      const seqs = await Promise.all([0, 1, 2, 3, 4].map((i) => q.push(record(i))))
      await q.ack(seqs[2])
      expect(q.size).toBe(2)
      expect((await q.peek(10)).map((r) => r.record.msgId)).toEqual(['m-3', 'm-4'])
      await q.ack(seqs[1]) // an older ack is harmless
      expect(q.size).toBe(2)
      await q.ack(seqs[4])
      expect(q.size).toBe(0)
      expect(await q.peek(10)).toEqual([])
      await q.close()
    })

    it('does not let an ack past the newest record swallow later pushes', async () => {
      const q = await factory.create()
      const first = await q.push(record(1))
      await q.ack(first + 1000)
      const later = await q.push(record(2))
      expect(q.size).toBe(1)
      expect((await q.peek(5)).map((r) => [r.seq, r.record.msgId])).toEqual([[later, 'm-2']])
      await q.close()
    })

    it('keeps order and every record under many concurrent pushes', async () => {
      const q = await factory.create()
      const n = 2000
      const seqs = await Promise.all(Array.from({ length: n }, (_, i) => q.push(record(i))))
      expect(new Set(seqs).size).toBe(n)
      expect(q.size).toBe(n)
      const all = await q.peek(n + 10)
      expect(all.map((r) => r.record.msgId)).toEqual(Array.from({ length: n }, (_, i) => `m-${i}`))
      for (let k = 1; k < all.length; k++) expect(all[k].seq).toBeGreaterThan(all[k - 1].seq)
      await q.close()
    })

    it('interleaves pushes and acks without losing or repeating records', async () => {
      const q = await factory.create()
      const seen: string[] = []
      let next = 0
      for (let round = 0; round < 20; round++) {
        await Promise.all(Array.from({ length: 7 }, () => q.push(record(next++))))
        const batch = await q.peek(5)
        seen.push(...batch.map((r) => r.record.msgId))
        await q.ack(batch[batch.length - 1].seq)
      }
      for (;;) {
        const batch = await q.peek(50)
        if (batch.length === 0) break
        seen.push(...batch.map((r) => r.record.msgId))
        await q.ack(batch[batch.length - 1].seq)
      }
      expect(seen).toEqual(Array.from({ length: next }, (_, i) => `m-${i}`))
      expect(q.size).toBe(0)
      await q.close()
    })

    it('rejects pushes after close', async () => {
      const q = await factory.create()
      await q.close()
      await expect(q.push(record(1))).rejects.toThrow(/closed/)
    })

    if (factory.reopen !== undefined) {
      const reopen = factory.reopen
      it('keeps unacknowledged records, their order and seqs across a reopen', async () => {
        const q = await factory.create()
        const seqs = await Promise.all(Array.from({ length: 30 }, (_, i) => q.push(record(i))))
        await q.ack(seqs[9])
        const q2 = await reopen(q)
        expect(q2.size).toBe(20)
        const rest = await q2.peek(100)
        expect(rest.map((r) => r.record.msgId)).toEqual(Array.from({ length: 20 }, (_, i) => `m-${i + 10}`))
        expect(rest.map((r) => r.seq)).toEqual(seqs.slice(10))
        const later = await q2.push(record(99))
        expect(later).toBeGreaterThan(seqs[29])
        await q2.close()
      })

      it('does not bring acknowledged records back after a reopen', async () => {
        const q = await factory.create()
        const seqs = await Promise.all(Array.from({ length: 10 }, (_, i) => q.push(record(i))))
        await q.ack(seqs[9])
        const q2 = await reopen(q)
        expect(q2.size).toBe(0)
        expect(await q2.peek(10)).toEqual([])
        await q2.close()
      })
    }
  })
}
