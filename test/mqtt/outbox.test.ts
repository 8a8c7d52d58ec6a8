// The outbox's order and coalescing while it drains: status, then retained (latest payload per
// topic, once), then events; messages put while a drain is under way join it in that order.
import { describe, expect, it } from 'vitest'
import { Outbox } from '../../src/mqtt/outbox.js'
import type { MqttClientLike } from '../../src/mqtt/client.js'

/** A connected client that acknowledges each publish when told to (`ack()`), like a broker's PUBACK. */
class ManualClient implements MqttClientLike {
  connected = true
  readonly published: string[] = []
  private readonly callbacks: (() => void)[] = []
  publish(topic: string, message: string, _opts: { qos: 0 | 1; retain: boolean }, callback?: (error?: Error) => void): unknown {
    this.published.push(`${topic}=${message}`)
    if (callback !== undefined) {
      this.callbacks.push(() => callback())
      this.failures.push((error) => callback(error))
    }
    return undefined
  }
  ack(): boolean {
    const cb = this.callbacks.shift()
    this.failures.shift()
    cb?.()
    return cb !== undefined
  }
  /** Calls back the oldest publish with `error`. */
  fail(error: Error): void {
    this.failures.shift()?.(error)
    this.callbacks.shift()
  }
  private readonly failures: ((error: Error) => void)[] = []
  end(): unknown {
    return undefined
  }
  on(): unknown {
    return undefined
  }
  removeListener(): unknown {
    return undefined
  }
}

describe('Outbox', () => {
  it('drains status, then the latest retained per topic once, then events, taking in what is put meanwhile', async () => {
    const sent: string[] = []
    const outbox = new Outbox({ maxQueuedEvents: 100, maxInflight: 1 }, { sent: (m) => sent.push(m.topic), dropped: () => undefined })
    for (let i = 0; i < 50; i++) outbox.putRetained(`s/${i}`, `v${i}`)
    outbox.putEvent('e', '1')
    outbox.putStatus('status', 'online')
    const client = new ManualClient()
    outbox.setClient(client)
    // One in flight at a time: put more while the drain is under way.
    for (let step = 0; client.ack(); step++) {
      if (step === 10) {
        outbox.putRetained('s/3', 'stale-then-new') // already sent: goes again, at the end
        outbox.putRetained('s/40', 'v40-new') // not sent yet: moves to the end, with its latest payload
        outbox.putRetained('s/new', 'n')
        outbox.putEvent('e', '2')
      }
      await Promise.resolve()
    }
    expect(client.published[0]).toBe('status=online')
    const retained = client.published.filter((p) => p.startsWith('s/'))
    // 50 topics + s/3 again + s/new; s/40 only once, with its latest payload.
    expect(retained).toHaveLength(52)
    expect(retained.filter((p) => p.startsWith('s/40='))).toEqual(['s/40=v40-new'])
    expect(retained.slice(-3)).toEqual(['s/3=stale-then-new', 's/40=v40-new', 's/new=n'])
    expect(client.published.slice(-2)).toEqual(['e=1', 'e=2'])
    expect(outbox.pending).toBe(0)
    expect(sent).toHaveLength(client.published.length)
  })

  it('never sends a topic that is not a valid publish topic, and drops a message the broker refuses (MQTT 5 PUBACK) instead of resending it', async () => {
    const refused: string[] = []
    const outbox = new Outbox({ maxQueuedEvents: 100, maxInflight: 10 }, { sent: () => undefined, dropped: () => undefined, refused: (i) => refused.push(`${i.reason}:${i.reasonCode ?? ''}`) })
    const client = new ManualClient()
    outbox.setClient(client)
    for (const bad of ['a/+/b', 'a/#', `ctrl${String.fromCharCode(1)}`, 'c1\u0085', 'lone\ud800', '']) outbox.putRetained(bad, 'x')
    outbox.putRetained('ok/1', 'x')
    expect(client.published).toEqual(['ok/1=x'])
    expect(outbox.refused.invalid_topic).toBe(6)
    // The broker says "not authorized" (0x87): dropped and counted, not put back.
    const denied = Object.assign(new Error('Publish error: Not authorized'), { code: 0x87 })
    client.fail(denied)
    await Promise.resolve()
    outbox.putRetained('ok/2', 'y')
    await Promise.resolve()
    expect(client.published).toEqual(['ok/1=x', 'ok/2=y'])
    expect(outbox.refused.broker_refused).toBe(1)
    // A closed connection is not a refusal: put back and sent again.
    client.fail(new Error('Connection closed'))
    await Promise.resolve()
    await Promise.resolve()
    expect(client.published).toEqual(['ok/1=x', 'ok/2=y', 'ok/2=y'])
    expect(refused).toEqual([...Array(6).fill('invalid_topic:'), 'broker_refused:135'])
  })
})
