// A present beacon's fleet state is refreshed once per publishIntervalMs, and beacons found in
// the same second are refreshed spread over the interval rather than all in one tick.
import { describe, expect, it } from 'vitest'
import { Outbox } from '../../src/mqtt/outbox.js'
import { FleetTopics } from '../../src/fleet/fleet-topics.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'

describe('FleetTopics refreshes', () => {
  it('refreshes each beacon once per interval, spread over the ticks', () => {
    const outbox = new Outbox({ maxQueuedEvents: 1, maxInflight: 1 }, { sent: () => undefined, dropped: () => undefined })
    const topics = new FleetTopics(outbox, 'p', 5000, undefined)
    const ids = Array.from({ length: 1000 }, (_, i) => `tag-${i}`)
    const put = (id: string, time: number): void => topics.put({ id, time, present: true, gateways: [], firstSeen: 0, lastSeen: time } as FleetBeacon)
    // Found together at t = 0.
    for (const id of ids) put(id, 0)
    const perTick: number[] = []
    const refreshes = new Map<string, number[]>()
    for (let t = 1000; t <= 20_000; t += 1000) {
      let n = 0
      for (const id of ids) {
        if (!topics.due(id, t)) continue
        put(id, t)
        n++
        refreshes.set(id, [...(refreshes.get(id) ?? []), t])
      }
      perTick.push(n)
    }
    // 20 s at one refresh per 5 s: four (or five, by phase) refreshes each, never two within 5 s.
    for (const id of ids) {
      const times = refreshes.get(id) ?? []
      expect(times.length).toBeGreaterThanOrEqual(4)
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(5000)
    }
    // 1000 beacons over a 5 s interval: about 200 a tick, none near all 1000.
    expect(Math.max(...perTick)).toBeLessThan(350)
  })
})
