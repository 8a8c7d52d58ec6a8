import { afterEach, describe, expect, it, vi } from 'vitest'
import { watchQueueFill } from '../../src/gateway/queue-fill.js'
import { ConditionLog } from '../../src/log/condition-log.js'
import { forwardingLogger } from '../../src/log/logger.js'
import type { LogRecord } from '../../src/log/logger.js'
import { MemoryQueue } from '../../src/queue/queue.js'
import type { BeaconLogRecord } from '../../src/reading.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('a queue near its bound', () => {
  it('is logged once when the queue passes 80 % and once when it is back under 50 %, not at every check in between', async () => {
    vi.useFakeTimers()
    const records: LogRecord[] = []
    const queue = new MemoryQueue({ maxRecords: 10 })
    const stop = watchQueueFill(new ConditionLog(forwardingLogger((r) => records.push(r))), 'upload.queue_near_bound', 'upload: the record queue', () => queue.fill, () => ({ pending: queue.size }))
    const record = { serialNumber: '0117C5000001' } as unknown as BeaconLogRecord
    for (let i = 0; i < 9; i++) await queue.push(record)
    expect(queue.fill).toBeCloseTo(0.9)
    vi.advanceTimersByTime(5000)
    const [first] = await queue.peek(3)
    await queue.ack(first.seq + 2)
    vi.advanceTimersByTime(5000) // 6 of 10: between the marks, nothing new
    const [next] = await queue.peek(2)
    await queue.ack(next.seq + 1)
    vi.advanceTimersByTime(5000) // 4 of 10: cleared
    stop()
    expect(records).toEqual([
      { level: 'warn', msg: 'upload: the record queue is 90% full; the oldest go beyond its bound', fields: { pending: 9, condition: 'upload.queue_near_bound', state: 'on' } },
      { level: 'info', msg: 'upload: the record queue is back to 40% full', fields: { pending: 4, condition: 'upload.queue_near_bound', state: 'off' } },
    ])
  })
})
