// Issue #23 item 10, in the SDK: a broker that accepts and never acknowledges. The publisher and
// the tracker warn once when acknowledgements stop (and once when they resume), close()/stop()
// are bounded and say what was not delivered, and nothing given up on stays in mqtt.js's store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import type { MqttAckWarning } from '../../src/mqtt/inflight.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { outgoingId, withdrawPublish } from '../../src/mqtt/outgoing.js'
import { startSilentBroker } from '../support/silent-broker.js'
import type { SilentBroker } from '../support/silent-broker.js'

let broker: SilentBroker

beforeAll(async () => {
  broker = await startSilentBroker({ puback: false, suback: false })
})

afterAll(async () => {
  await broker?.close()
})

async function client(): Promise<MqttClient> {
  const c = mqtt.connect(broker.url, { protocolVersion: 4, reconnectPeriod: 0, clientId: `ack-stall-${Math.random().toString(36).slice(2)}` })
  await new Promise<void>((resolve, reject) => {
    c.once('connect', () => resolve())
    c.once('error', reject)
  })
  return c
}

/** Publishes mqtt.js still holds (subscribes are volatile: mqtt.js drops them with the connection). */
function outgoing(c: MqttClient): number {
  return Object.values((c as unknown as { outgoing: Record<string, { volatile?: boolean }> }).outgoing).filter((o) => o.volatile !== true).length
}

describe('withdrawPublish', () => {
  it('takes an unacknowledged QoS 1 publish out of mqtt.js and calls it back with an error', async () => {
    const c = await client()
    let called: Error | undefined
    const callback = (error?: Error): void => {
      called = error
    }
    c.publish('t/1', Buffer.alloc(1000), { qos: 1 }, callback)
    const id = outgoingId(c, callback)
    expect(id).toBeTypeOf('number')
    expect(outgoing(c)).toBe(1)
    expect(withdrawPublish(c, id, callback)).toBe(true)
    await new Promise((resolve) => setImmediate(resolve))
    expect(outgoing(c)).toBe(0)
    expect(called?.message).toMatch(/removed/i)
    expect(withdrawPublish(c, id, callback)).toBe(false)
    c.end(true)
  })
})

describe('MqttPublisher with a broker that never acknowledges', () => {
  it('warns once when acknowledgements stop and once when they resume', async () => {
    const c = await client()
    const publisher = new MqttPublisher({ client: c, gatewayId: 'stall', homeAssistant: true, ackTimeoutMs: 300 })
    const warnings: { code: string; message: string }[] = []
    publisher.on('warning', (w) => warnings.push(w))
    await publisher.connect()
    // The status `online` is in flight and never acknowledged.
    await expect.poll(() => warnings.map((w) => w.code), { timeout: 5000 }).toEqual(['acks_stalled'])
    expect(warnings[0].message).toContain('acknowledged nothing')
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(warnings).toHaveLength(1)
    broker.set({ puback: true })
    try {
      // Something new to send (empty discovery configs): acknowledged now.
      publisher.forget('beacon-1')
      await expect.poll(() => warnings.map((w) => w.code), { timeout: 5000 }).toEqual(['acks_stalled', 'acks_resumed'])
    } finally {
      broker.set({ puback: false })
    }
    await publisher.close(1000)
    c.end(true)
  })

  it('close() gives up after ackTimeoutMs without an acknowledgement, reports what was lost and leaves nothing in mqtt.js', async () => {
    const c = await client()
    const publisher = new MqttPublisher({ client: c, gatewayId: 'close', homeAssistant: true, ackTimeoutMs: 500 })
    await publisher.connect()
    for (let i = 0; i < 20; i++) publisher.forget(`beacon-${i}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(outgoing(c)).toBeGreaterThan(0)
    const started = Date.now()
    const result = await publisher.close(60_000)
    // Bounded by the stall (0.5 s), not by the 60 s overall cap; generous margin for a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result.delivered).toBe(false)
    expect(result.lost).toBeGreaterThan(0)
    expect(result.kept).toBe(0)
    expect(outgoing(c)).toBe(0)
    c.end(true)
  })

  it('close() of a publisher that owns its link resolves with the link dropped', async () => {
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'owned', ackTimeoutMs: 300 })
    const connected = new Promise((resolve) => publisher.once('connected', resolve))
    await publisher.connect()
    await connected
    const result = await publisher.close(30_000)
    expect(result).toMatchObject({ delivered: false, kept: 0 })
    expect(result.lost).toBeGreaterThanOrEqual(1)
    expect(publisher.stats.state).toBe('closed')
  })
})

describe('FleetTracker with a broker that never acknowledges', () => {
  it('warns when the subscription is not acknowledged, and stop() is bounded', async () => {
    const tracker = new FleetTracker({ url: broker.url, ackTimeoutMs: 300 })
    const warnings: MqttAckWarning[] = []
    tracker.on('warning', (w) => warnings.push(w))
    const starting = tracker.start().catch(() => undefined)
    await expect.poll(() => warnings.map((w) => w.code), { timeout: 5000 }).toEqual(['acks_stalled'])
    const result = await tracker.stop(30_000)
    expect(result.delivered).toBe(false)
    expect(result.lost).toBe(1)
    await starting
  })
})
