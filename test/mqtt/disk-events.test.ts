// The disk side of the MQTT outbox over a real FileQueue in a temp directory: events come back
// in order, leave the disk only when everything before them was acknowledged, a publish that
// failed goes out again in its place, and writes beyond the bound are dropped and counted.
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventEmitter } from 'eventemitter3'
import { FileQueue } from '../../src/queue/file-queue.js'
import type { QueuedRecord, UploadQueue, UploadQueueEvents } from '../../src/queue/queue.js'
import type { BeaconLogRecord } from '../../src/reading.js'
import { DiskEvents, isStoredEvent } from '../../src/mqtt/disk-events.js'
import type { DiskDropInfo, StoredEvent } from '../../src/mqtt/disk-events.js'
import { waitFor } from '../integration/wait.js'
import { queueContract } from '../queue/queue-contract.js'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

async function open(maxWriting = 100): Promise<{ disk: DiskEvents; queue: FileQueue<StoredEvent>; drops: DiskDropInfo[]; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'beaconkit-disk-events-'))
  dirs.push(dir)
  const queue = await FileQueue.open<StoredEvent>({ dir })
  const drops: DiskDropInfo[] = []
  const disk = new DiskEvents(queue, maxWriting, { ready: () => undefined, dropped: (d) => drops.push(d), failed: (e) => { throw e } })
  return { disk, queue, drops, dir }
}

/**
 * The MQTT event store (a FileQueue of events, opened with the publisher's record check) seen
 * through the queue contract: each contract record travels as an event's payload.
 */
class EventStoreAsQueue extends EventEmitter<UploadQueueEvents> implements UploadQueue {
  constructor(
    readonly store: FileQueue<StoredEvent>,
    readonly dir: string,
  ) {
    super()
  }
  get size(): number {
    return this.store.size
  }
  push(record: BeaconLogRecord): Promise<number> {
    return this.store.push({ topic: 'beaconkit/gateways/hall/events', payload: JSON.stringify(record) })
  }
  async peek(max: number): Promise<QueuedRecord[]> {
    return (await this.store.peek(max)).map((r) => ({ seq: r.seq, record: JSON.parse(r.record.payload) as BeaconLogRecord }))
  }
  ack(seq: number): Promise<void> {
    return this.store.ack(seq)
  }
  close(): Promise<void> {
    return this.store.close()
  }
}

async function eventStore(dir: string): Promise<EventStoreAsQueue> {
  return new EventStoreAsQueue(await FileQueue.open<StoredEvent>({ dir, accept: isStoredEvent }), dir)
}

queueContract('the MQTT event store (FileQueue of events with isStoredEvent)', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-event-store-'))
    dirs.push(dir)
    return eventStore(dir)
  },
  async reopen(q) {
    await q.close()
    return eventStore((q as EventStoreAsQueue).dir)
  },
})

describe('DiskEvents', () => {
  it('hands events out in order and removes them from disk only up to the first unacknowledged one', async () => {
    const { disk, queue, dir } = await open()
    for (let i = 1; i <= 5; i++) disk.push('t', `e${i}`)
    await waitFor(() => disk.size === 5 && disk.waiting === 5, 'five events on disk')
    const taken: { seq: number; record: StoredEvent }[] = []
    await waitFor(() => {
      const r = disk.take()
      if (r !== undefined) taken.push(r)
      return taken.length === 3
    }, 'three events read back')
    expect(taken.map((r) => r.record.payload)).toEqual(['e1', 'e2', 'e3'])
    // Acknowledged out of order: nothing may leave the disk before e1 has.
    disk.sent(taken[1].seq)
    await new Promise((resolve) => setImmediate(resolve))
    expect(queue.size).toBe(5)
    disk.sent(taken[0].seq)
    await waitFor(() => queue.size === 3, 'e1 and e2 acknowledged on disk')
    // e3's publish failed (client ended): it goes out again before e4.
    disk.returned(taken[2])
    const rest: string[] = []
    await waitFor(() => {
      const r = disk.take()
      if (r !== undefined) {
        rest.push(r.record.payload)
        disk.sent(r.seq)
      }
      return rest.length === 3
    }, 'the rest')
    expect(rest).toEqual(['e3', 'e4', 'e5'])
    await waitFor(() => queue.size === 0 && disk.waiting === 0, 'everything acknowledged')
    await disk.close()
    // A new run finds nothing to send.
    const again = await FileQueue.open<StoredEvent>({ dir })
    expect(again.size).toBe(0)
    await again.close()
  })

  it('keeps unacknowledged events for the next run, and drops writes beyond its bound (counted)', async () => {
    const { disk, drops, dir } = await open(2)
    disk.push('t', 'a')
    disk.push('t', 'b')
    disk.push('t', 'c') // a third write while two are under way: dropped
    expect(drops).toEqual([{ count: 1, reason: 'queue_full', kind: 'event' }])
    await waitFor(() => disk.size === 2, 'two events on disk')
    await disk.close()
    const queue = await FileQueue.open<StoredEvent>({ dir })
    const next = new DiskEvents(queue, 2, { ready: () => undefined, dropped: () => undefined, failed: (e) => { throw e } })
    const payloads: string[] = []
    await waitFor(() => {
      const r = next.take()
      if (r !== undefined) payloads.push(r.record.payload)
      return payloads.length === 2
    }, 'the events of the earlier run')
    expect(payloads).toEqual(['a', 'b'])
    await next.close()
  })
})
