// Issue #35 item 19: after the broker came back a gateway took 12 s to reconnect, because the
// wait between attempts doubled up to 30 s. The schedule is read from what the link sets on
// mqtt.js's client (its `reconnectPeriod`) after each attempt, with a fake mqtt.js in place of
// the real one: bounded by 5 s by default, and jittered (two gateways do not wait alike).
import { EventEmitter } from 'node:events'
import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_RECONNECT, reconnectDelay } from '../../src/mqtt/backoff.js'
import { resolvePublisherOptions } from '../../src/mqtt/publisher-options.js'
import { openLink } from '../../src/mqtt/link-secrets.js'

/** The client mqtt.js would return: only what the link reads and listens to. */
class FakeClient extends EventEmitter {
  connected = false
  constructor(readonly options: { reconnectPeriod?: number }) {
    super()
  }
  publish(): void {}
  end(_force?: boolean, _opts?: object, done?: () => void): void {
    done?.()
  }
}

const clients: FakeClient[] = []

vi.mock('mqtt', () => ({
  connect: (_url: string, options: { reconnectPeriod?: number }) => {
    const client = new FakeClient({ ...options })
    clients.push(client)
    return client
  },
}))

/** The waits the link asks mqtt.js for: the first after a loss, then after each failed attempt. */
async function schedule(attempts: number, reconnect?: { initialDelayMs?: number; maxDelayMs?: number }): Promise<number[]> {
  const o = resolvePublisherOptions({ url: 'mqtt://127.0.0.1:1', gatewayId: 'hall', ...(reconnect === undefined ? {} : { reconnect }) })
  const link = await openLink(o, 'test', undefined)
  const client = clients[clients.length - 1]
  client.connected = true
  client.emit('connect', {})
  client.connected = false
  client.emit('close')
  const waits = [client.options.reconnectPeriod as number]
  for (let i = 1; i < attempts; i++) {
    client.emit('reconnect')
    client.emit('close')
    waits.push(client.options.reconnectPeriod as number)
  }
  await link.close()
  return waits
}

describe('MQTT reconnect backoff', () => {
  it('never waits more than 5 s by default, however long the broker is away', async () => {
    const waits = await schedule(12)
    for (const w of waits) {
      expect(w).toBeGreaterThan(0)
      expect(w).toBeLessThanOrEqual(5000)
    }
    // It still backs off: the later waits are longer than the first.
    expect(Math.max(...waits.slice(4))).toBeGreaterThan(waits[0])
  })

  it('jitters the waits: two gateways dropped together do not retry in step', async () => {
    const a = await schedule(8)
    const b = await schedule(8)
    expect(a).not.toEqual(b)
    // Each capped wait lies between half and all of the cap.
    for (const w of [...a.slice(4), ...b.slice(4)]) expect(w).toBeGreaterThanOrEqual(2500)
  })

  it('honours a configured maximum', async () => {
    const waits = await schedule(10, { initialDelayMs: 200, maxDelayMs: 800 })
    for (const w of waits) expect(w).toBeLessThanOrEqual(800)
    for (const w of waits.slice(5)) expect(w).toBeGreaterThanOrEqual(400)
  })
})

describe('reconnectDelay', () => {
  it('doubles a step up to the cap and draws each wait between half and all of it', () => {
    const steps = [1000, 2000, 4000, 5000, 5000, 5000]
    steps.forEach((step, attempt) => {
      expect(reconnectDelay(attempt, DEFAULT_RECONNECT, () => 0)).toBe(step / 2)
      expect(reconnectDelay(attempt, DEFAULT_RECONNECT, () => 0.999999)).toBe(step)
      expect(reconnectDelay(attempt, DEFAULT_RECONNECT, () => 0.5)).toBe(Math.round((3 * step) / 4))
    })
    // Absurd attempts and random values stay inside the bounds.
    expect(reconnectDelay(1e9, DEFAULT_RECONNECT, () => 7)).toBe(5000)
    expect(reconnectDelay(-3, DEFAULT_RECONNECT, () => -1)).toBe(500)
  })
})
