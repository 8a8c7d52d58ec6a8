// The live fleet path runs the offline engine (#28): 40 s of a real track (the tetam subset in
// test/fixtures/positioning; Daniş et al., CC0) replayed as gateway RSSI batches through a real
// Mosquitto into a FleetTracker calibrated with the same survey, on a virtual clock. What the
// tracker publishes each second must match the offline Positioner's estimate for that second
// within 0.1 m median, so what bench:positioning measures is what a fleet's users get: with the
// filter on its worker thread and in the tracker's thread. The tracker ticks on whole seconds of
// its clock (where the filter is asked for one whole step), whenever it starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { VirtualClock } from '../../src/clock.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { Positioner } from '../../src/positioning/positioner.js'
import { loadFixture } from '../positioning/fixture.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { Subscriber } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('the fleet positions a replayed track as the offline engine does'), () => {
  let broker: Mosquitto
  let gateways: MqttClient | undefined
  let tracker: FleetTracker | undefined
  let sub: Subscriber | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await sub?.close()
    await tracker?.stop()
    await gateways?.endAsync()
    await broker?.close()
  })

  it('ticks on whole seconds of its clock, whenever it starts', async () => {
    const clock = new VirtualClock(12_345)
    const t = new FleetTracker({ url: broker.url, clientId: 'whole-seconds', topicPrefix: 'whole-seconds', clock, positioning: false })
    const at: number[] = []
    t.on('updated', () => at.push(clock.now()))
    try {
      await t.start()
      clock.advanceTo(12_999)
      expect(at).toEqual([])
      clock.advanceTo(13_000)
      clock.advanceTo(15_500)
      expect(at).toEqual([13_000, 14_000, 15_000])
    } finally {
      await t.stop()
    }
  })

  it('does not start its positioning thread for a tick with no beacon', async () => {
    const { site, map } = loadFixture()
    const clock = new VirtualClock(20_000)
    const t = new FleetTracker({ url: broker.url, clientId: 'no-beacon', topicPrefix: 'no-beacon', site, clock, positioning: { radioMap: map, thread: true } })
    let ticks = 0
    t.on('updated', () => ticks++)
    try {
      await t.start()
      // A tick that asked the thread would end only once it answered (with its heap's size).
      for (let s = 21_000; s <= 23_000; s += 1000) {
        const before = ticks
        clock.advanceTo(s)
        await waitFor(() => ticks > before, `the tick at ${s}`, 20_000)
      }
      expect(t.stats.positioningThread).toMatchObject({ sent: 0, heapBytes: 0, slots: 0, failed: false })
    } finally {
      await t.stop()
    }
  })

  it.each([
    ['on a worker thread', true],
    ['in the tracker’s thread', false],
  ])('publishes, second by second, the positions the offline Positioner gives (median difference ≤ 0.1 m), positioning %s', async (_, thread) => {
    const { site, map, track } = loadFixture()
    const beacon = track[0].beacon
    const first = Math.ceil(track[0].time / 1000) * 1000
    const last = Math.floor(track[track.length - 1].time / 1000) * 1000

    // Offline, as bench:positioning runs it: an estimate at each whole second from the packets up to then.
    const offline = new Map<number, { x: number; y: number }>()
    const engine = new Positioner({ site, radioMap: map })
    let i = 0
    for (let s = first; s <= last; s += 1000) {
      for (; i < track.length && track[i].time <= s; i++) engine.observe(track[i])
      const e = engine.estimate(beacon, s)
      if (e !== undefined) offline.set(s, { x: e.x, y: e.y })
    }

    // Live: each second, every gateway publishes the packets it heard in that second (one reading
    // per packet, stamped on the tracker's clock), then the tracker's tick at the whole second
    // positions and publishes.
    const clock = new VirtualClock(first - 1000)
    await tracker?.stop()
    await gateways?.endAsync()
    await sub?.close()
    const prefix = thread ? 'replay-thread' : 'replay'
    const t = new FleetTracker({ url: broker.url, clientId: `${prefix}-tracker`, topicPrefix: prefix, site, clock, publishIntervalMs: 1000, positioning: { radioMap: map, thread } })
    tracker = t
    // A tick ends with `updated`; with positioning on its own thread (the default on a machine
    // of more than one core) it ends once the thread has answered, after the clock moved.
    let ticks = 0
    t.on('updated', () => ticks++)
    await t.start()
    const topic = `${prefix}/fleet/beacons/${beacon}`
    const s0 = await Subscriber.connect(broker.url, [topic, 'beaconkit-test/marker/#'])
    sub = s0
    const client = await mqtt.connectAsync(broker.url, { clientId: 'replay-gateways', reconnectPeriod: 0 })
    gateways = client
    const published = new Map<number, { x: number; y: number }>()
    let batches = 0
    let j = 0
    for (let s = first; s <= last; s += 1000) {
      // Just before the tick: a batch describes what was heard up to its arrival.
      clock.advanceTo(s - 1)
      const byGateway = new Map<string, { id: string; rssi: number; lastSeen: number; count: number }[]>()
      for (; j < track.length && track[j].time <= s; j++) {
        const p = track[j]
        const list = byGateway.get(p.anchor) ?? []
        list.push({ id: p.beacon, rssi: p.rssi, lastSeen: p.time, count: 1 })
        byGateway.set(p.anchor, list)
      }
      for (const [gateway, readings] of byGateway) {
        await client.publishAsync(`${prefix}/gateways/${gateway}/rssi`, JSON.stringify({ gateway, time: clock.now(), readings }), { qos: 1 })
        batches++
      }
      await waitFor(() => t.stats.batches >= batches, `the batches of second ${(s - first) / 1000}`, 20_000)
      const before = ticks
      clock.advanceTo(s)
      await waitFor(() => ticks > before, `the tick of second ${(s - first) / 1000}`, 20_000)
      await t.flush()
      await s0.sync()
      const latest = s0.on(topic).at(-1)
      const position = latest === undefined || latest.payload === '' ? undefined : (JSON.parse(latest.payload) as FleetBeacon).position
      if (position !== undefined) published.set(s, { x: position.x, y: position.y })
    }

    expect(t.stats.clockRejected).toBe(0)
    // The thread was used, and took every reading, when asked for.
    if (thread) expect(t.stats.positioningThread).toMatchObject({ dropped: 0, invalid: 0, failed: false })
    else expect(t.stats.positioningThread).toBeUndefined()
    expect(t.stats.malformed).toBe(0)
    const seconds = [...offline.keys()].filter((s) => published.has(s))
    // Every second the engine could answer, the fleet published a position too.
    expect(seconds.length).toBe(offline.size)
    expect(seconds.length).toBeGreaterThanOrEqual(35)
    const gaps = seconds.map((s) => {
      const a = offline.get(s) as { x: number; y: number }
      const b = published.get(s) as { x: number; y: number }
      return Math.hypot(a.x - b.x, a.y - b.y)
    })
    expect(median(gaps)).toBeLessThanOrEqual(0.1)
  }, 120_000)
})
