// `for await (const e of tracker)`: the tracker's events as objects, through the embedded
// broker (a real aedes on loopback, MQTT 3.1.1), ending when the tracker stops; a consumer
// that falls behind loses the oldest events, counted, never the tracker's memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetEvent } from '../../src/fleet/tracker-events.js'
import { waitFor } from '../integration/wait.js'

describe('FleetTracker async iteration', () => {
  let broker: RunningBroker
  let raw: MqttClient

  beforeAll(async () => {
    broker = await startBroker({ port: 0 })
    raw = await mqtt.connectAsync(broker.url, { clientId: 'fleet-events-raw', reconnectPeriod: 0, protocolVersion: 4 })
  })

  afterAll(async () => {
    await raw?.endAsync()
    await broker?.close()
  })

  function batch(gateway: string, ids: string[]): string {
    const now = Date.now()
    return JSON.stringify({ gateway, time: now, readings: ids.map((id) => ({ id, rssi: -60, lastSeen: now, count: 1 })) })
  }

  it('yields found, gateway and updated objects, and ends when the tracker stops', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'fleet-events-1', topicPrefix: 'ev1', goneTimeoutMs: 60_000 })
    await t.start()
    const seen: FleetEvent[] = []
    const consumed = (async () => {
      for await (const e of t) seen.push(e)
    })()
    await raw.publishAsync('ev1/gateways/hall/status', JSON.stringify({ state: 'online', time: Date.now(), version: 'x' }), { qos: 1 })
    await raw.publishAsync('ev1/gateways/hall/rssi', batch('hall', ['tag-1', 'tag-2']), { qos: 1 })
    await waitFor(() => seen.some((e) => e.event === 'updated' && e.beacons.length === 2), 'an update naming both tags', 20_000)
    await t.stop()
    // The loop ended by itself: stop() ends every iterator after what was buffered.
    await consumed
    const found = seen.filter((e) => e.event === 'found')
    expect(found.map((e) => (e.event === 'found' ? e.beacon.id : ''))).toEqual(['tag-1', 'tag-2'])
    expect(found[0]).toMatchObject({ event: 'found', beacon: { present: true, gateways: [{ gateway: 'hall', rssi: -60 }] } })
    expect(typeof found[0].time).toBe('number')
    expect(seen.find((e) => e.event === 'gateway')).toMatchObject({ event: 'gateway', gateway: 'hall', state: 'online' })
    // After stop, a new iterator is already done.
    expect(await t.events().next()).toEqual({ value: undefined, done: true })
  })

  it('drops the oldest events for a consumer that does not read, and counts them', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'fleet-events-2', topicPrefix: 'ev2', eventBufferSize: 3, goneTimeoutMs: 60_000 })
    await t.start()
    const it = t.events()
    const ids = Array.from({ length: 10 }, (_, i) => `tag-${i}`)
    await raw.publishAsync('ev2/gateways/hall/rssi', batch('hall', ids), { qos: 1 })
    await waitFor(() => t.beacons().length === 10, 'ten tags found', 20_000)
    // Ten found events into a buffer of three: the seven oldest are dropped, the newest kept.
    expect(it.dropped).toBeGreaterThanOrEqual(7)
    expect(t.stats.eventsDropped).toBe(it.dropped)
    const kept: FleetEvent[] = []
    for (let i = 0; i < 3; i++) kept.push((await it.next()).value as FleetEvent)
    expect(kept.every((e) => e.event === 'found' || e.event === 'updated' || e.event === 'connected')).toBe(true)
    // A consumer that breaks out of its loop closes its iterator; its drops stay counted.
    await it.return?.()
    expect(t.stats.eventsDropped).toBeGreaterThanOrEqual(7)
    await t.stop()
  })

  it('passes `error` events on as objects without a stack', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'fleet-events-3', topicPrefix: 'ev3' })
    t.on('found', () => {
      throw Object.assign(new Error('listener bug'), { code: 'bug' })
    })
    t.on('error', () => undefined)
    await t.start()
    const it = t.events()
    await raw.publishAsync('ev3/gateways/hall/rssi', batch('hall', ['x']), { qos: 1 })
    let e: FleetEvent | undefined
    while (e?.event !== 'error') e = (await it.next()).value as FleetEvent
    expect(e).toEqual({ event: 'error', time: expect.any(Number), error: { name: 'Error', message: 'listener bug', code: 'bug' } })
    await t.stop()
  })
})
