// A session taken over (issue 24): said by an MQTT 5 broker's DISCONNECT 0x8E at once, through a
// small broker in the test that speaks the wire protocol; recognised from the drops otherwise
// (TakeoverWatch), once per episode, and not from a broker that drops a connection with a
// message in flight (a poison message) or after an error.
import { afterEach, describe, expect, it } from 'vitest'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { SESSION_TAKEN_OVER, TAKEOVER_DROPS, TAKEOVER_WINDOW_MS, TakeoverWatch } from '../../src/mqtt/takeover.js'
import { startSilentBroker } from '../support/silent-broker.js'
import type { SilentBroker } from '../support/silent-broker.js'
import { waitFor } from '../integration/wait.js'

describe('TakeoverWatch', () => {
  let now = 0
  const watch = (): TakeoverWatch => new TakeoverWatch(() => now)
  /** A connection that lasts `ms` and is then closed by the broker; the watch's answer. */
  const connection = (w: TakeoverWatch, ms: number, busy = false): boolean => {
    w.connected()
    now += ms
    return w.closed(busy)
  }

  it('reports drops right after connecting, in a row, once per episode', () => {
    const w = watch()
    const said = Array.from({ length: 10 }, () => connection(w, 1000))
    expect(said.indexOf(true)).toBe(TAKEOVER_DROPS - 1)
    expect(said.filter(Boolean)).toHaveLength(1)
    // A connection that held ends the episode: the next takeover is a new one.
    expect(connection(w, TAKEOVER_WINDOW_MS)).toBe(false)
    expect(Array.from({ length: TAKEOVER_DROPS }, () => connection(w, 500)).filter(Boolean)).toHaveLength(1)
  })

  it('does not take a broker restart, an error or a poison message for a takeover', () => {
    const w = watch()
    // Two drops, then the broker is down for a moment (a failed attempt with its error).
    expect([connection(w, 100), connection(w, 100)]).toEqual([false, false])
    w.error()
    expect(w.closed(false)).toBe(false)
    expect([connection(w, 100), connection(w, 100)]).toEqual([false, false])
    // Dropped each time with a message waiting for its PUBACK: neither counted nor starting over.
    expect(Array.from({ length: 5 }, () => connection(w, 100, true)).some(Boolean)).toBe(false)
    // A connection that ends in an error (a keepalive timeout) is not a takeover either.
    w.connected()
    w.error()
    now += 100
    expect(w.closed(false)).toBe(false)
    expect(connection(w, 100)).toBe(false)
  })

  it('takes an MQTT 5 DISCONNECT 0x8e at its word, once', () => {
    const w = watch()
    w.connected()
    expect(w.disconnected(0x8d)).toBe(false)
    expect(w.disconnected(SESSION_TAKEN_OVER)).toBe(true)
    expect(w.closed(false)).toBe(false)
    w.connected()
    expect(w.disconnected(SESSION_TAKEN_OVER)).toBe(false)
  })
})

describe('a publisher whose session an MQTT 5 broker says was taken over', () => {
  let broker: SilentBroker | undefined
  let publisher: MqttPublisher | undefined

  afterEach(async () => {
    await publisher?.close(500)
    await broker?.close()
  })

  it('reports it at the first DISCONNECT 0x8e, once, naming the id and what to do', async () => {
    broker = await startSilentBroker({ puback: true })
    const p = new MqttPublisher({ url: broker.url, gatewayId: 'hall', clientId: 'twin-gateway', reconnect: { initialDelayMs: 50, maxDelayMs: 50 }, ackTimeoutMs: 60_000 })
    publisher = p
    const errors: Error[] = []
    p.on('error', (e) => errors.push(e))
    await p.connect()
    await waitFor(() => p.stats.connections === 1, 'connected')
    broker.dropAll(SESSION_TAKEN_OVER)
    await waitFor(() => p.stats.connections === 2, 'connected again')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ name: 'MqttError', code: 'session_taken_over' })
    expect(errors[0].message).toMatch(/another client connected with this client id \(twin-gateway\) \(MQTT 5 reason 0x8e, session taken over\)/)
    expect(errors[0].message).toMatch(/give each process its own client id \(--client-id, or the clientId option\)/i)
    // Taken over again and again: still the one error.
    for (let n = 3; n <= 5; n++) {
      broker.dropAll(SESSION_TAKEN_OVER)
      await waitFor(() => p.stats.connections === n, `connection ${n}`)
    }
    expect(errors).toHaveLength(1)
  })
})
