// The feed's per-beacon memory, column by column: numbers reused, long ids kept apart, and a
// crowd that came and went leaving the columns at their first size.
import { describe, expect, it } from 'vitest'
import { BatchWriter } from '../../src/mqtt/batch-writer.js'
import { MarkTable } from '../../src/mqtt/mark-table.js'
import type { Values } from '../../src/mqtt/mark-table.js'
import type { Beacon } from '../../src/reading.js'

const values: Values = { temperature: 21, light: undefined, accelerometerCount: undefined, movingState: undefined, batteryLevel: undefined }

function beacon(id: string): Beacon {
  return { id, address: 'aa:00:00:00:00:01', rssi: -60, smoothedRssi: -60, timestamp: 0, frames: ['e780'], inRange: true, firstSeen: 0, lastSeen: 0 }
}

function prefix(table: MarkTable, m: number): string {
  const out = new BatchWriter()
  table.writePrefix(m, out)
  return out.take().toString()
}

describe('MarkTable', () => {
  it('writes each mark its own prefix, short or long, escaped, after numbers were reused', () => {
    const t = new MarkTable()
    const a = t.add(beacon('0117C5000001'), { ...values }, 1, 0, 0)
    const long = `${'x'.repeat(40)} "é"`
    const b = t.add(beacon(long), { ...values }, undefined, 0, 0)
    expect(prefix(t, a)).toBe('{"id":"0117C5000001","rssi":')
    expect(prefix(t, b)).toBe(`{"id":${JSON.stringify(long)},"rssi":`)
    expect(Number.isNaN(t.version[b])).toBe(true)
    t.remove(a)
    expect(t.find('0117C5000001')).toBe(-1)
    const c = t.add(beacon('0117C5000003'), { ...values }, 2, 0, 0)
    expect(c).toBe(a)
    expect(t.ids[c]).toBe('0117C5000003')
    expect(prefix(t, c)).toBe('{"id":"0117C5000003","rssi":')
    expect(prefix(t, b)).toBe(`{"id":${JSON.stringify(long)},"rssi":`)
  })

  it('grows for a crowd and gives the memory back when the crowd is gone', () => {
    const t = new MarkTable()
    const first = t.at.length
    const ids = Array.from({ length: 5000 }, (_, i) => `0117C5${i.toString(16).padStart(6, '0')}`)
    const marks = ids.map((id, i) => t.add(beacon(id), { ...values }, i, 0, i))
    expect(t.size).toBe(5000)
    expect(t.at.length).toBeGreaterThanOrEqual(5000)
    marks.forEach((m, i) => expect(t.at[m]).toBe(i))
    for (const m of marks) t.remove(m)
    expect(t.size).toBe(0)
    expect(t.at.length).toBe(first)
    expect(t.ids.length).toBe(0)
    // And works again from scratch.
    const m = t.add(beacon('0117C5000001'), { ...values }, 1, 0, 7)
    expect(t.at[m]).toBe(7)
    expect(prefix(t, m)).toBe('{"id":"0117C5000001","rssi":')
  })
})
