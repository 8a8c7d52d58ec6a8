import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { ExpiryHeap } from '../../src/range/expiry-heap.js'

interface Item {
  name: number
  heapIndex: number
}

type Op = { op: 'push'; due: number } | { op: 'remove'; pick: number } | { op: 'delayFirst'; by: number } | { op: 'popDue' }

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant('push' as const), due: fc.integer({ min: 0, max: 50 }) }),
    fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }),
    fc.record({ op: fc.constant('delayFirst' as const), by: fc.integer({ min: 0, max: 20 }) }),
    fc.record({ op: fc.constant('popDue' as const) }),
  ),
  { maxLength: 200 },
)

describe('ExpiryHeap', () => {
  it('always offers the earliest due time, through pushes, removals and delays (against a plain list)', () => {
    fc.assert(
      fc.property(ops, (list) => {
        const heap = new ExpiryHeap<Item>()
        const model = new Map<Item, number>()
        let next = 0
        const earliest = (): number | undefined => (model.size === 0 ? undefined : Math.min(...model.values()))
        for (const o of list) {
          if (o.op === 'push') {
            const item = { name: next++, heapIndex: -1 }
            heap.push(item, o.due)
            model.set(item, o.due)
          } else if (o.op === 'remove' && model.size > 0) {
            const item = [...model.keys()][o.pick % model.size]
            heap.remove(item)
            model.delete(item)
            expect(item.heapIndex).toBe(-1)
            // Removing again, or an item never queued, changes nothing.
            heap.remove(item)
          } else if (o.op === 'delayFirst' && model.size > 0) {
            const first = heap.first() as Item
            const due = (model.get(first) as number) + o.by
            heap.delayFirst(due)
            model.set(first, due)
          } else if (o.op === 'popDue' && model.size > 0) {
            const first = heap.first() as Item
            expect(model.get(first)).toBe(earliest())
            heap.remove(first)
            model.delete(first)
          }
          expect(heap.size).toBe(model.size)
          expect(heap.nextDue()).toBe(earliest())
          const held = new Set<Item>()
          for (let i = 0; i < heap.size; i++) {
            const item = heap.at(i)
            expect(item.heapIndex).toBe(i)
            held.add(item)
          }
          expect(held).toEqual(new Set(model.keys()))
        }
      }),
      { numRuns: 300 },
    )
  })

  it('clear() leaves every item unqueued', () => {
    const heap = new ExpiryHeap<Item>()
    const items = [3, 1, 2].map((due, name) => ({ name, heapIndex: -1, due }))
    for (const item of items) heap.push(item, item.due)
    heap.clear()
    expect(heap.size).toBe(0)
    expect(heap.nextDue()).toBeUndefined()
    expect(items.map((i) => i.heapIndex)).toEqual([-1, -1, -1])
  })
})
