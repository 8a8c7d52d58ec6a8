import { describe, it, expect } from 'vitest'
import { RealClock, VirtualClock } from '../src/clock.js'
import { PacedClock } from '../src/paced-clock.js'

describe('RealClock', () => {
  it('waits past the 2^31 − 1 ms Node timers take, instead of firing after 1 ms', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error): void => {
      warnings.push(w.name)
    }
    process.on('warning', onWarning)
    let fired = false
    const cancel = new RealClock().setTimeout(() => {
      fired = true
    }, 2 ** 31 + 1000)
    // Node's overflowing timer would have fired by now and warned (TimeoutOverflowWarning).
    await new Promise((r) => setTimeout(r, 100))
    cancel()
    process.off('warning', onWarning)
    expect(fired).toBe(false)
    expect(warnings).not.toContain('TimeoutOverflowWarning')
  })
})

describe('VirtualClock', () => {
  it('fires periodic timers before one-shot timers due at the same ms, then in the order set', () => {
    const clock = new VirtualClock(0)
    const order: string[] = []
    clock.setTimeout(() => order.push('once-a'), 1000)
    clock.setInterval(() => order.push('tick'), 1000)
    clock.setTimeout(() => order.push('once-b'), 1000)
    clock.advanceTo(1000)
    expect(order).toEqual(['tick', 'once-a', 'once-b'])
  })
})

describe('PacedClock', () => {
  it('runs timers on its own time line, each at its paced moment and exact due time', () => {
    const pace = new VirtualClock(100)
    const clock = new PacedClock(pace, 4, 10_000)
    const fired: [number, number][] = []
    clock.setTimeout(() => fired.push([clock.now(), pace.now()]), 2000)
    clock.setInterval(() => fired.push([clock.now(), pace.now()]), 800)
    pace.advanceTo(100 + 700)
    expect(fired).toEqual([
      [10_800, 300],
      [11_600, 500],
      [12_000, 600],
      [12_400, 700],
    ])
  })

  it('holds time while a line is being read, and waitUntil fires what is due before the line', async () => {
    const pace = new VirtualClock(0)
    const clock = new PacedClock(pace, 1, 0)
    const fired: number[] = []
    clock.setTimeout(() => fired.push(clock.now()), 50)
    clock.setTimeout(() => fired.push(clock.now()), 150)
    clock.hold()
    pace.advanceTo(90)
    expect(fired).toEqual([])
    const reached = clock.waitUntil(100)
    pace.advanceTo(100)
    await reached
    expect(fired).toEqual([50])
    expect(clock.now()).toBe(100)
    clock.halt()
    pace.advanceTo(1000)
    expect(fired).toEqual([50])
  })
})
