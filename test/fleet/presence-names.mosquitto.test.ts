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
import { haRoomConfigTopic, haTrackerConfigTopic, haValueConfigTopic } from '../../src/fleet/home-assistant.js'
import { haObjectId } from '../../src/mqtt/topics.js'
import { discoveryProblems } from '../support/ha-schema.js'
import { expectTrackerConfig } from './ha-fleet-helpers.js'

const T0 = Date.UTC(2026, 10, 1)
/** Named in the site by its id (a serial number). */
const T1 = '0117C5000001'
/** An iBeacon named by the serial number its gateway state gives. */
const T2 = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2'
/** A foreign iBeacon without a serial number: in no list. */
const T3 = 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825|10|7'
/** An iBeacon whose naming serial number arrives after it was found. */
const T4 = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|4'
const haFleetBase = (id: string): string[] => [haTrackerConfigTopic('homeassistant', id), haRoomConfigTopic('homeassistant', id)]

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
      beacons: [{ id: T1, name: 'Anna' }, { serialNumber: '0117C5000042', name: 'Bob' }, { serialNumber: '0117C5000044', name: 'Dora' }, { serial: '0117C5000099', at: [1, 1] }],
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
    await state('g1', T2, { serialNumber: '0117C5000042', temperature: 21.5, batteryLevel: 80, lastSeen: T0 + 500 })
    await state('g2', T2, { serialNumber: '0117C5000042', temperature: 19, light: 40, lastSeen: T0 })
    await state('intruder', T2, { temperature: 99, lastSeen: T0 + 3_600_000 })
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
    for (let i = 0; i < 4; i++) await second([T1, T2, T3])
    await t.flush()

    expect(t.get(T1)?.name).toBe('Anna')
    expect(t.get(T2)?.name).toBe('Bob')
    expect(t.get(T3)?.name).toBeUndefined()
    let retained = await retainedMessages(broker.url, ['beaconkit/fleet/#', 'homeassistant/#'])
    const fleet2 = JSON.parse(retained.get(`beaconkit/fleet/beacons/${T2}`) ?? '{}') as Record<string, unknown>
    expect(fleet2.name).toBe('Bob')
    expect(fleet2.values).toEqual({ temperature: 21.5, light: 40, batteryLevel: 80 })
    expect(JSON.parse(retained.get(`beaconkit/fleet/presence/${T1}`) ?? '{}')).toEqual({ id: T1, present: true, room: 'Kitchen', name: 'Anna', time: expect.any(Number) as number })
    expect(JSON.parse(retained.get(`beaconkit/fleet/presence/${T3}`) ?? '{}')).toMatchObject({ id: T3, present: true, room: 'Kitchen' })
    // With a `beacons` list, Home Assistant is told only of the beacons it names (not of T3, a
    // foreign iBeacon without a serial number), each device by its name; T2's fused values get
    // their sensors (T1 reported none).
    // Each room of the site has its occupancy sensor besides (#39).
    const rooms = [...retained.keys()].filter((k) => k.includes('/beaconkit_room_')).sort()
    expect(rooms).toEqual(['homeassistant/sensor/beaconkit_room_hall_occupancy/config', 'homeassistant/sensor/beaconkit_room_kitchen_occupancy/config'])
    const configs = [...retained.keys()].filter((k) => k.startsWith('homeassistant/') && !rooms.includes(k)).sort()
    expect(configs).toEqual([...haFleetBase(T1), ...haFleetBase(T2), haValueConfigTopic('homeassistant', T2, 'temperature'), haValueConfigTopic('homeassistant', T2, 'light'), haValueConfigTopic('homeassistant', T2, 'battery')].sort())
    expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', T1)), 'beaconkit', T1, 'Anna')
    expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', T2)), 'beaconkit', T2, 'Bob')
    for (const topic of configs.filter((k) => !k.includes('/device_tracker/'))) {
      expect(discoveryProblems(topic, retained.get(topic) ?? ''), topic).toEqual([])
      expect(JSON.parse(retained.get(topic) ?? '{}'), topic).toMatchObject({ device: { name: topic.includes(haObjectId(T1)) ? 'Anna' : 'Bob' } })
    }
    expect(JSON.parse(retained.get(haValueConfigTopic('homeassistant', T2, 'temperature')) ?? '{}')).toMatchObject({ unique_id: `beaconkit_${haObjectId(T2)}_temperature`, state_topic: `beaconkit/fleet/beacons/${T2}`, device_class: 'temperature' })

    // Tag 4 is found before the state that names it (by its serial number) arrives: its presence
    // gets the name with the next refresh of its state.
    await second([T1, T2, T3, T4])
    await t.flush()
    expect(JSON.parse((await retainedMessages(broker.url, ['beaconkit/fleet/#'])).get(`beaconkit/fleet/presence/${T4}`) ?? '{}')).not.toHaveProperty('name')
    await state('g1', T4, { serialNumber: '0117C5000044', lastSeen: clock.now() })
    await waitFor(() => t.get(T4)?.name === 'Dora', 'tag 4 named', 20_000)
    for (let i = 0; i < 6; i++) await second([T1, T2, T3, T4])
    await t.flush()
    retained = await retainedMessages(broker.url, ['beaconkit/fleet/#', 'homeassistant/#'])
    expect(JSON.parse(retained.get(`beaconkit/fleet/presence/${T4}`) ?? '{}')).toMatchObject({ present: true, name: 'Dora' })
    // Named once its serial number arrived: announced then, by that name.
    expectTrackerConfig(retained.get(haTrackerConfigTopic('homeassistant', T4)), 'beaconkit', T4, 'Dora')
    expect(retained.has(haTrackerConfigTopic('homeassistant', T3))).toBe(false)

    // Tag 1 is no longer heard: gone. Its fleet state is cleared, its presence says away.
    for (let i = 0; i < 7; i++) await second([T2, T3, T4])
    await t.flush()
    expect(t.get(T1)).toBeUndefined()
    retained = await retainedMessages(broker.url, ['beaconkit/fleet/#'])
    expect(retained.has(`beaconkit/fleet/beacons/${T1}`)).toBe(false)
    expect(JSON.parse(retained.get(`beaconkit/fleet/presence/${T1}`) ?? '{}')).toEqual({ id: T1, present: false, name: 'Anna', time: expect.any(Number) as number })
    expect(t.stats.presence.away).toBe(1)

    // Forgotten: its presence and every Home Assistant config are cleared too; T2's stay.
    t.forget(T1)
    await t.flush()
    retained = await retainedMessages(broker.url, ['beaconkit/fleet/#', 'homeassistant/#'])
    expect(retained.has(`beaconkit/fleet/presence/${T1}`)).toBe(false)
    expect([...retained.keys()].filter((k) => k.includes(haObjectId(T1)))).toEqual([])
    expect(retained.has(`beaconkit/fleet/presence/${T2}`)).toBe(true)
    expect(retained.has(haValueConfigTopic('homeassistant', T2, 'temperature'))).toBe(true)
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
