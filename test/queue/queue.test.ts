import { describe, it, expect } from 'vitest'
import { MemoryQueue } from '../../src/queue/queue.js'
import type { DropInfo } from '../../src/queue/queue.js'
import { queueContract, record } from './queue-contract.js'

queueContract('MemoryQueue', { create: () => Promise.resolve(new MemoryQueue()) })

describe('MemoryQueue', () => {
  it('drops the oldest records beyond maxRecords and reports how many', async () => {
    const q = new MemoryQueue({ maxRecords: 3 })
    const drops: DropInfo[] = []
    q.on('dropped', (d) => drops.push(d))
    for (let i = 0; i < 5; i++) await q.push(record(i))
    expect(q.size).toBe(3)
    expect((await q.peek(10)).map((r) => r.record.msgId)).toEqual(['m-2', 'm-3', 'm-4'])
    expect(drops).toEqual([
      { count: 1, reason: 'queue_full' },
      { count: 1, reason: 'queue_full' },
    ])
  })

  it('falls back to the default bound for a nonsensical maxRecords', async () => {
    const q = new MemoryQueue({ maxRecords: -1 })
    for (let i = 0; i < 10; i++) await q.push(record(i))
    expect(q.size).toBe(10)
  })

  it('reclaims acknowledged memory while keeping order', async () => {
    const q = new MemoryQueue()
    for (let round = 0; round < 5; round++) {
      const seqs = await Promise.all(Array.from({ length: 1000 }, (_, i) => q.push(record(round * 1000 + i))))
      await q.ack(seqs[899])
    }
    // Each ack covers everything before it: only the tail of the last round is left.
    expect(q.size).toBe(100)
    const left = await q.peek(1000)
    expect(left.map((r) => r.record.msgId)).toEqual(Array.from({ length: 100 }, (_, i) => `m-${4900 + i}`))
  })
})
