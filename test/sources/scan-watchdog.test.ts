import { describe, it, expect } from 'vitest'
import { ScanWatchdog } from '../../src/sources/scan-watchdog.js'
import { VirtualClock } from '../../src/clock.js'

function rig(periodMs = 10_000) {
  const clock = new VirtualClock(0)
  const stalls: [number, number][] = []
  const watchdog = new ScanWatchdog(clock, periodMs, (silent) => stalls.push([clock.now(), silent]))
  return { clock, stalls, watchdog }
}

describe('ScanWatchdog', () => {
  it('reports a stall exactly one period after the last thing heard', () => {
    const { clock, stalls, watchdog } = rig()
    watchdog.start()
    clock.advanceTo(4_000)
    watchdog.heard(4_000)
    clock.advanceTo(13_999)
    expect(stalls).toEqual([])
    clock.advanceTo(14_000)
    expect(stalls).toEqual([[14_000, 10_000]])
  })

  it('backs off while nothing is heard, capped at 16 periods, and recovers at once when something is', () => {
    const { clock, stalls, watchdog } = rig(1_000)
    watchdog.start()
    clock.advanceTo(100_000)
    expect(stalls.map(([t]) => t)).toEqual([1_000, 3_000, 7_000, 15_000, 31_000, 47_000, 63_000, 79_000, 95_000])
    watchdog.heard(100_000)
    clock.advanceTo(101_000)
    expect(stalls.at(-1)).toEqual([101_000, 1_000])
  })

  it('stop() cancels; start() while armed keeps the pending check; period 0 never arms', () => {
    const { clock, stalls, watchdog } = rig()
    watchdog.start()
    clock.advanceTo(5_000)
    watchdog.start()
    clock.advanceTo(10_000)
    expect(stalls).toEqual([[10_000, 10_000]])
    watchdog.stop()
    expect(watchdog.armed).toBe(false)
    clock.advanceTo(1_000_000)
    expect(stalls).toHaveLength(1)

    const off = rig(0)
    off.watchdog.start()
    expect(off.watchdog.armed).toBe(false)
    off.clock.advanceTo(1_000_000)
    expect(off.stalls).toEqual([])
  })

  it('a stall handler that stops the watchdog is obeyed', () => {
    const clock = new VirtualClock(0)
    let count = 0
    const watchdog: ScanWatchdog = new ScanWatchdog(clock, 1_000, () => {
      count++
      watchdog.stop()
    })
    watchdog.start()
    clock.advanceTo(100_000)
    expect(count).toBe(1)
  })
})
