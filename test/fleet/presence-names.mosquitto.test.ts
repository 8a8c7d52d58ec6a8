// Issue 24 / DESIGN.md 6 (wave 3): the presence topic, names from the site file's `beacons` list
// and the fused `values` of the gateways' own beacon states, through a real Mosquitto. The test
// is the gateways: it publishes their RSSI batches and retained beacon states by hand, on the
// tracker's virtual clock, so every step is exact.
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VirtualClock } from '../../src/clock.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'

const T0 = Date.UTC(2026, 10, 1)

describe.skipIf(!MOSQUITTO)(needsMosquitto('presence, names and values of the fleet through Mosquitto'), () => {
  let broker: Mosquitto
  let tracker: FleetTracker | undefined
  let gw: MqttClient | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await tracker?.stop()
    await gw?.endAsync()
    await broker?.close()
  })

  it('publishes presence (away, never empty, cleared when forgotten), names, fused values, and announces only listed beacons', async () => {
    const site = Site.fromJSON({
      gateways: { g1: {}, g2: {} },
      rooms: { Kitchen: ['g1'], Hall: ['g2'] },
      beacons: [{ id: 'tag-1', name: 'Anna' }, { serialNumber: '0117C5000042', name: 'Bob' }, { serialNumber: '0117C5000044', name: 'Dora' }, { serial: '0117C5000099', at: [1, 1] }],
    })
    const clock = new VirtualClock(T0)
    const t = new FleetTracker({ url: broker.url, clientId: 'presence-tracker', site, clock, goneTimeoutMs: 5000, hearingMs: 3000, dwellMs: 1000, homeAssistant: { dwellMs: 2000 } })
    tracker = t
    await t.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'presence-gateways', reconnectPeriod: 0 })
    gw = client
    const state = (g: string, id: string, body: Record<string, unknown>): Promise<unknown> => client.publishAsync(`beaconkit/gateways/${g}/beacons/${id}`, JSON.stringify({ id, inRange: true, firstSeen: T0, ...body }), { qos: 1, retain: true })
    // Tag 2's serial number (which names it) and readings: g1's state is fresher, g2's alone has light;
    // a gateway outside the site's list claims a temperature nobody may believe.
    await state('g1', 'tag-2', { serialNumber: '0117C5000042', temperature: 21.5, batteryLevel: 80, lastSeen: T0 + 500 })
    await state('g2', 'tag-2', { serialNumber: '0117C5000042', temperature: 19, light: 40, lastSeen: T0 })
    await state('intruder', 'tag-2', { temperature: 99, lastSeen: T0 + 3_600_000 })
    await waitFor(() => t.stats.beaconStates.held === 3, 'three beacon states held', 20_000)

    let batches = 0
    const second = async (ids: string[]): Promise<void> => {
      const now = clock.now()
      const batch = { gateway: 'g1', time: now, readings: ids.map((id) => ({ id, rssi: -60, measuredPower: -59, lastSeen: now, count: 1 })) }
      await client.publishAsync('beaconkit/gateways/g1/rssi', JSON.stringify(batch), { qos: 1 })
      batches++
      await waitFor(() => t.stats.batches >= batches, `batch ${batches}`, 20_000)
      clock.advanceTo(now + 1000)
    }
    for (let i = 0; i < 4; i++) await second(['tag-1', 'tag-2', 'tag-3'])
    await t.flush()

    expect(t.get('tag-1')?.name).toBe('Anna')
    expect(t.get('tag-2')?.name).toBe('Bob')
    expect(t.get('tag-3')?.name).toBeUndefined()
    let retained = await retainedMessages(broker.url, ['beaconkit/fleet/#', 'homeassistant/#'])
    const fleet2 = JSON.parse(retained.get('beaconkit/fleet/beacons/tag-2') ?? '{}') as Record<string, unknown>
    expect(fleet2.name).toBe('Bob')
    expect(fleet2.values).toEqual({ temperature: 21.5, light: 40, batteryLevel: 80 })
    expect(JSON.parse(retained.get('beaconkit/fleet/presence/tag-1') ?? '{}')).toEqual({ id: 'tag-1', present: true, room: 'Kitchen', name: 'Anna', time: expect.any(Number) as number })
    expect(JSON.parse(retained.get('beaconkit/fleet/presence/tag-3') ?? '{}')).toMatchObject({ id: 'tag-3', present: true, room: 'Kitchen' })
    // With a `beacons` list, Home Assistant is told only of the beacons it names.
    const configs = [...retained.keys()].filter((k) => k.startsWith('homeassistant/device_tracker/')).sort()
    expect(configs).toEqual(['homeassistant/device_tracker/beaconkit_tag_1/config', 'homeassistant/device_tracker/beaconkit_tag_2/config'])

    // Tag 4 is found before the state that names it (by its serial number) arrives: its presence
    // gets the name with the next refresh of its state.
    await second(['tag-1', 'tag-2', 'tag-3', 'tag-4'])
    await t.flush()
    expect(JSON.parse((await retainedMessages(broker.url, ['beaconkit/fleet/#'])).get('beaconkit/fleet/presence/tag-4') ?? '{}')).not.toHaveProperty('name')
    await state('g1', 'tag-4', { serialNumber: '0117C5000044', lastSeen: clock.now() })
    await waitFor(() => t.get('tag-4')?.name === 'Dora', 'tag 4 named', 20_000)
    for (let i = 0; i < 6; i++) await second(['tag-1', 'tag-2', 'tag-3', 'tag-4'])
    await t.flush()
    expect(JSON.parse((await retainedMessages(broker.url, ['beaconkit/fleet/#'])).get('beaconkit/fleet/presence/tag-4') ?? '{}')).toMatchObject({ present: true, name: 'Dora' })

    // Tag 1 is no longer heard: gone. Its fleet state is cleared, its presence says away.
    for (let i = 0; i < 7; i++) await second(['tag-2', 'tag-3', 'tag-4'])
    await t.flush()
    expect(t.get('tag-1')).toBeUndefined()
    retained = await retainedMessages(broker.url, ['beaconkit/fleet/#'])
    expect(retained.has('beaconkit/fleet/beacons/tag-1')).toBe(false)
    expect(JSON.parse(retained.get('beaconkit/fleet/presence/tag-1') ?? '{}')).toEqual({ id: 'tag-1', present: false, name: 'Anna', time: expect.any(Number) as number })
    expect(t.stats.presence.away).toBe(1)

    // Forgotten: its presence and its Home Assistant config are cleared too.
    t.forget('tag-1')
    await t.flush()
    retained = await retainedMessages(broker.url, ['beaconkit/fleet/#', 'homeassistant/#'])
    expect(retained.has('beaconkit/fleet/presence/tag-1')).toBe(false)
    expect(retained.has('homeassistant/device_tracker/beaconkit_tag_1/config')).toBe(false)
    expect(retained.has('beaconkit/fleet/presence/tag-2')).toBe(true)
    expect(t.stats.presence).toEqual({ away: 0, forgotten: 1 })
  }, 120_000)

  it('clears the presence of a beacon evicted for a stronger claim (forgotten, not away)', async () => {
    const site = Site.fromJSON({ gateways: { g1: {} } })
    const clock = new VirtualClock(T0)
    // Room for two: a beacon only a gateway outside the site hears gives way to the site's own.
    const t = new FleetTracker({ url: broker.url, clientId: 'evict-tracker', topicPrefix: 'evict', site, clock, maxBeacons: 2 })
    await t.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'evict-gateways', reconnectPeriod: 0 })
    try {
      let batches = 0
      const batch = async (gateway: string, ids: string[]): Promise<void> => {
        const now = clock.now()
        await client.publishAsync(`evict/gateways/${gateway}/rssi`, JSON.stringify({ gateway, time: now, readings: ids.map((id) => ({ id, rssi: -60, lastSeen: now, count: 1 })) }), { qos: 1 })
        batches++
        await waitFor(() => t.stats.batches >= batches, `batch ${batches}`, 20_000)
      }
      await batch('stranger', ['drifter'])
      await batch('g1', ['tag-1'])
      await t.flush()
      expect((await retainedMessages(broker.url, ['evict/fleet/#'])).has('evict/fleet/presence/drifter')).toBe(true)
      await batch('g1', ['tag-2'])
      await t.flush()
      expect(t.stats.evictedBeacons).toBe(1)
      const retained = await retainedMessages(broker.url, ['evict/fleet/#'])
      expect(retained.has('evict/fleet/presence/drifter')).toBe(false)
      expect(retained.has('evict/fleet/beacons/drifter')).toBe(false)
      expect(retained.has('evict/fleet/presence/tag-2')).toBe(true)
      expect(t.stats.presence).toEqual({ away: 0, forgotten: 1 })
    } finally {
      await t.stop()
      await client.endAsync()
    }
  }, 60_000)

  it('forgets a beacon gone for forgetAfterMs, and keeps at most maxBeacons away', async () => {
    const clock = new VirtualClock(T0)
    const t = new FleetTracker({ url: broker.url, clientId: 'expire-tracker', topicPrefix: 'expire', clock, goneTimeoutMs: 2000, forgetAfterMs: 10_000, maxBeacons: 2 })
    await t.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'expire-gateways', reconnectPeriod: 0 })
    try {
      let batches = 0
      const hear = async (ids: string[]): Promise<void> => {
        const now = clock.now()
        await client.publishAsync('expire/gateways/g1/rssi', JSON.stringify({ gateway: 'g1', time: now, readings: ids.map((id) => ({ id, rssi: -60, lastSeen: now, count: 1 })) }), { qos: 1 })
        batches++
        await waitFor(() => t.stats.batches >= batches, `batch ${batches}`, 20_000)
      }
      const presences = async (): Promise<string[]> => [...(await retainedMessages(broker.url, ['expire/fleet/presence/#'])).keys()].map((k) => k.slice('expire/fleet/presence/'.length)).sort()
      // a goes at 3 s; b and c go at 6 s: three away, two kept (a, gone longest, is forgotten).
      await hear(['a'])
      clock.advanceTo(T0 + 3000)
      await hear(['b', 'c'])
      clock.advanceTo(T0 + 6000)
      await t.flush()
      expect(t.stats.presence).toEqual({ away: 2, forgotten: 1 })
      expect(await presences()).toEqual(['b', 'c'])
      // 10 s after they went, b and c are forgotten too.
      clock.advanceTo(T0 + 16_000)
      await t.flush()
      expect(t.stats.presence).toEqual({ away: 0, forgotten: 3 })
      expect(await presences()).toEqual([])
    } finally {
      await t.stop()
      await client.endAsync()
    }
  }, 60_000)

  it('marks a present state an earlier run left, that no gateway confirms, away', async () => {
    const client = await mqtt.connectAsync(broker.url, { clientId: 'ghost-earlier-run', reconnectPeriod: 0 })
    await client.publishAsync('ghost/fleet/beacons/old', JSON.stringify({ id: 'old', time: T0 - 60_000, present: true, gateways: [], firstSeen: T0 - 90_000, lastSeen: T0 - 60_000 }), { qos: 1, retain: true })
    await client.endAsync()
    const clock = new VirtualClock(T0)
    const t = new FleetTracker({ url: broker.url, clientId: 'ghost-tracker', topicPrefix: 'ghost', clock, goneTimeoutMs: 2000 })
    try {
      await t.start()
      // The retained states are read after the start: step the clock until the ghost's deadline passed.
      await waitFor(() => {
        clock.advanceTo(clock.now() + 500)
        return t.stats.ghostsCleared === 1
      }, 'the ghost cleared', 20_000)
      await t.flush()
      const retained = await retainedMessages(broker.url, ['ghost/fleet/#'])
      expect(retained.has('ghost/fleet/beacons/old')).toBe(false)
      expect(JSON.parse(retained.get('ghost/fleet/presence/old') ?? '{}')).toEqual({ id: 'old', present: false, time: expect.any(Number) as number })
    } finally {
      await t.stop()
    }
  }, 60_000)
})
