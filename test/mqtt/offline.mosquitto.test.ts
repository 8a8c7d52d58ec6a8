// A broker that goes away in the middle of a run (Mosquitto stopped and started again on the
// same port, its retained messages lost): the publisher's memory stays bounded, nothing of the
// state is lost, and on reconnect the current state goes out first, once per beacon, not a
// flood of stale updates. What the broker received is read from its own debug log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventEmitter } from 'eventemitter3'
import { VirtualClock } from '../../src/clock.js'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import type { AdvertisementSourceEvents } from '../../src/sources/source.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import type { MqttDropInfo } from '../../src/mqtt/outbox-types.js'
import type { Beacon } from '../../src/reading.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'
import { T0, vendorLine } from '../sources/helpers.js'

class PushSource extends EventEmitter<AdvertisementSourceEvents> {
  constructor(readonly clock: VirtualClock) {
    super()
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

const P = 'beaconkit/gateways/hall'
const CLIENT = 'beaconkit-offline-test'

describe.skipIf(!MOSQUITTO)(needsMosquitto('MqttPublisher when Mosquitto restarts mid-run'), () => {
  let broker: Mosquitto

  beforeAll(async () => {
    broker = await Mosquitto.start({ logPublishes: true })
  })

  afterAll(async () => {
    await broker?.close()
  })

  it('keeps a bounded queue while the broker is down and republishes the current state first', async () => {
    const clock = new VirtualClock(T0)
    const source = new PushSource(clock)
    const scanner = new BeaconScanner({ source })
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'hall', clientId: CLIENT, maxQueuedEvents: 20, reconnect: { initialDelayMs: 50, maxDelayMs: 400 } })
    const drops: MqttDropInfo[] = []
    publisher.on('dropped', (d) => drops.push(d))
    publisher.attach(scanner)
    let connections = 0
    publisher.on('connected', () => connections++)
    await publisher.connect()
    await waitFor(() => connections === 1, 'the first connection')
    await scanner.start()
    let t = 0
    const packets = (ms: number, beacons: Record<string, number>): void => {
      // Every 100 ms each beacon sends one packet with its current temperature.
      for (const end = t + ms; t < end; t += 100) {
        clock.advanceTo(T0 + t)
        for (const [serial, temperature] of Object.entries(beacons)) source.emit('advertisement', adv(vendorLine(t, `aa:00:00:00:00:${serial.slice(-2)}`, serial, { temperature })))
      }
    }
    packets(3000, { '0117C5000001': 20, '0117C5000002': 20 })
    expect(await publisher.flush(20_000)).toBe(true)
    expect(await retainedMessages(broker.url, `${P}/beacons/#`)).toHaveProperty('size', 2)

    // The broker goes away (and with it every retained message).
    const disconnected = new Promise<void>((resolve) => publisher.once('disconnected', () => resolve()))
    await broker.stop()
    await disconnected
    broker.clearLog()

    // Meanwhile: beacon 1 changes temperature every 6 s (60 changed events: far beyond the 20
    // events kept), beacon 2 leaves, beacon 3 arrives.
    for (let i = 0; i < 60; i++) packets(6000, { '0117C5000001': 21 + i, ...(t < 10_000 ? { '0117C5000002': 20 } : {}), ...(t > 30_000 ? { '0117C5000003': 18 } : {}) })
    const pending = publisher.stats.pending
    // 20 events, one state per beacon (1 and 3), a clear for 2, the status: never more.
    expect(pending).toBeLessThanOrEqual(20 + 3 + 1)
    const dropped = drops.filter((d) => d.kind === 'event' && d.reason === 'queue_full').reduce((s, d) => s + d.count, 0)
    expect(dropped).toBeGreaterThanOrEqual(60 - 20)
    // RSSI batches are not kept while offline: one dropped per second heard.
    expect(drops.filter((d) => d.kind === 'rssi' && d.reason === 'offline').length).toBeGreaterThanOrEqual(300)
    const current = new Map(scanner.beacons().map((b) => [b.id, b]))
    expect([...current.keys()].sort()).toEqual(['0117C5000001', '0117C5000003'])

    await broker.restart()
    await waitFor(() => connections === 2, 'the reconnection', 30_000)
    expect(await publisher.flush(20_000)).toBe(true)

    const received = broker.received(CLIENT)
    // Status first, then one state per beacon (the current one), then the queued events.
    expect(received[0]).toMatchObject({ topic: `${P}/status`, qos: 1, retain: true })
    const states = received.filter((r) => r.topic.startsWith(`${P}/beacons/`))
    expect(states.map((s) => s.topic).sort()).toEqual([`${P}/beacons/0117C5000001`, `${P}/beacons/0117C5000002`, `${P}/beacons/0117C5000003`])
    const firstEvent = received.findIndex((r) => r.topic === `${P}/events`)
    expect(firstEvent).toBeGreaterThan(received.findLastIndex((r) => r.topic.startsWith(`${P}/beacons/`)))
    expect(received.filter((r) => r.topic === `${P}/events`).length).toBe(20)

    // The broker has the state as it is now, not as it was when the broker went away.
    const retained = await retainedMessages(broker.url, 'beaconkit/#')
    expect(JSON.parse(retained.get(`${P}/status`) as string)).toMatchObject({ state: 'online' })
    const one = JSON.parse(retained.get(`${P}/beacons/0117C5000001`) as string) as Beacon
    expect(one.temperature).toBe(current.get('0117C5000001')?.temperature)
    expect(one.temperature).toBe(21 + 59)
    expect(retained.has(`${P}/beacons/0117C5000003`)).toBe(true)
    expect(retained.has(`${P}/beacons/0117C5000002`)).toBe(false)

    await scanner.stop()
    await publisher.close()
  })
})
