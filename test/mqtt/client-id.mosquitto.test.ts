// Client ids against a real Mosquitto (issue 24): two fleet trackers on one host used the same
// fixed id `beaconkit-fleet-<host>` and threw each other off 35 times in 22 s, silently. Default
// ids are unique per process now; two clients given one id are told so, once (MQTT 5, and 3.1.1
// through clients of the caller's own). Mosquitto 2.0 closes the old connection without an MQTT 5
// DISCONNECT, so both protocols go by the pattern of drops (takeover.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetTrackerOptions } from '../../src/fleet/tracker-types.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { waitFor } from '../integration/wait.js'

/** A tracker with its connection events counted. */
function watched(options: FleetTrackerOptions): { tracker: FleetTracker; disconnects: () => number; errors: Error[] } {
  const tracker = new FleetTracker({ goneTimeoutMs: 60_000, reconnect: { initialDelayMs: 100, maxDelayMs: 400 }, ...options })
  let disconnects = 0
  const errors: Error[] = []
  tracker.on('disconnected', () => disconnects++)
  tracker.on('error', (e) => errors.push(e))
  return { tracker, disconnects: () => disconnects, errors }
}

const takeovers = (errors: Error[]): Error[] => errors.filter((e) => (e as { code?: unknown }).code === 'session_taken_over')

describe.skipIf(!MOSQUITTO)(needsMosquitto('MQTT client ids on one broker (Mosquitto)'), () => {
  let broker: Mosquitto
  let raw: MqttClient

  beforeAll(async () => {
    broker = await Mosquitto.start()
    raw = await mqtt.connectAsync(broker.url, { clientId: 'client-id-raw', reconnectPeriod: 0 })
  })

  afterAll(async () => {
    await raw?.endAsync()
    await broker?.close()
  })

  const batch = (ids: string[]): string => {
    const now = Date.now()
    return JSON.stringify({ gateway: 'hall', time: now, readings: ids.map((id) => ({ id, rssi: -60, lastSeen: now, count: 1 })) })
  }

  it('two trackers with default ids stay connected side by side and both track', async () => {
    const a = watched({ url: broker.url, topicPrefix: 'ids1' })
    const b = watched({ url: broker.url, topicPrefix: 'ids1' })
    try {
      await Promise.all([a.tracker.start(), b.tracker.start()])
      await raw.publishAsync('ids1/gateways/hall/status', JSON.stringify({ state: 'online', time: Date.now(), version: 'x' }), { qos: 1, retain: true })
      // Batches for a while: with one id they would throw each other off every 100 ms meanwhile.
      for (let i = 0; i < 15; i++) {
        await raw.publishAsync('ids1/gateways/hall/rssi', batch(['tag-1', 'tag-2']), { qos: 1 })
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      await waitFor(() => a.tracker.beacons().length === 2 && b.tracker.beacons().length === 2, 'both trackers tracking both tags')
      expect(broker.takeovers()).toBe(0)
      expect([a.disconnects(), b.disconnects()]).toEqual([0, 0])
      expect([...a.errors, ...b.errors]).toEqual([])
    } finally {
      await Promise.all([a.tracker.stop(), b.tracker.stop()])
      await raw.publishAsync('ids1/gateways/hall/status', '', { qos: 1, retain: true })
    }
  })

  it('two gateways with default ids (even one gateway id) stay connected', async () => {
    const publishers = [new MqttPublisher({ url: broker.url, gatewayId: 'twin-gw', topicPrefix: 'ids2', reconnect: { initialDelayMs: 100 } }), new MqttPublisher({ url: broker.url, gatewayId: 'twin-gw', topicPrefix: 'ids2', reconnect: { initialDelayMs: 100 } })]
    try {
      await Promise.all(publishers.map((p) => p.connect()))
      await waitFor(() => publishers.every((p) => p.stats.state === 'connected'), 'both publishers connected')
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect(broker.takeovers()).toBe(0)
      expect(publishers.map((p) => p.stats.connections)).toEqual([1, 1])
    } finally {
      await Promise.all(publishers.map((p) => p.close()))
    }
  })

  it('two trackers given one client id (MQTT 5) are each told once, naming the cause', async () => {
    const a = watched({ url: broker.url, topicPrefix: 'ids3', clientId: 'twin-5' })
    const b = watched({ url: broker.url, topicPrefix: 'ids3', clientId: 'twin-5' })
    try {
      void a.tracker.start().catch(() => undefined)
      void b.tracker.start().catch(() => undefined)
      // Many more drops than it takes to recognise the takeover: still one error each.
      await waitFor(() => a.disconnects() >= 8 && b.disconnects() >= 8, 'each thrown off 8 times', 30_000)
      for (const t of [a, b]) {
        const said = takeovers(t.errors)
        expect(said).toHaveLength(1)
        expect(said[0].message).toMatch(/another client connected with this client id \(twin-5\)/)
        expect(said[0].message).toMatch(/--client-id/)
      }
      expect(broker.takeovers('twin-5')).toBeGreaterThanOrEqual(8)
    } finally {
      await Promise.all([a.tracker.stop(), b.tracker.stop()])
    }
  })

  it('…and so are two trackers on MQTT 3.1.1 clients of their own with one id', async () => {
    const options = { clientId: 'twin-4', protocolVersion: 4 as const, reconnectPeriod: 100 }
    const clients = [await mqtt.connectAsync(broker.url, options), await mqtt.connectAsync(broker.url, options)]
    const a = watched({ client: clients[0], topicPrefix: 'ids4' })
    const b = watched({ client: clients[1], topicPrefix: 'ids4' })
    try {
      void a.tracker.start().catch(() => undefined)
      void b.tracker.start().catch(() => undefined)
      await waitFor(() => a.disconnects() >= 8 && b.disconnects() >= 8, 'each thrown off 8 times', 30_000)
      expect(takeovers(a.errors)).toHaveLength(1)
      expect(takeovers(b.errors)).toHaveLength(1)
      expect(takeovers(a.errors)[0].message).toMatch(/3 times in a row: most likely another client connected with this client id \(twin-4\)/)
    } finally {
      await Promise.all([a.tracker.stop(), b.tracker.stop()])
      await Promise.all(clients.map((c) => c.endAsync(true)))
    }
  })
})
