// The partitioned RSSI batch for scale-out: with `rssiPartitions` (CLI `--rssi-partitions`) a
// gateway publishes each tick's readings split by beacon hash on `<p>/gateways/<gw>/rssi/<n>`,
// every reading on the partition of its id, nothing on the unpartitioned topic; without it the
// contract's single batch is unchanged. Through the embedded broker, to a real subscriber.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { rssiPartition } from '../../src/mqtt/partition.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { parseCommandLine } from '../../src/cli/args.js'
import { InvalidOptionError } from '../../src/errors.js'
import { RealClock } from '../../src/clock.js'
import { Subscriber } from '../support/mqtt-subscriber.js'
import { PushSource } from '../support/push-source.js'
import { ibeaconLine, T0 } from '../sources/helpers.js'
import { refused } from '../cli/refused.js'

describe('rssiPartitions', () => {
  let broker: RunningBroker

  beforeAll(async () => {
    broker = await startBroker({ port: 0 })
  })
  afterAll(async () => {
    await broker?.close()
  })

  async function publishOneTick(gatewayId: string, rssiPartitions: number | undefined, beacons: number): Promise<Subscriber> {
    const sub = await Subscriber.connect(broker.url, [`beaconkit/gateways/${gatewayId}/rssi`, `beaconkit/gateways/${gatewayId}/rssi/#`, 'beaconkit-test/marker/#'])
    const source = new PushSource(new RealClock())
    const scanner = new BeaconScanner({ source, updateIntervalMs: 200 })
    const publisher = new MqttPublisher({ url: broker.url, gatewayId, ...(rssiPartitions === undefined ? {} : { rssiPartitions }) })
    publisher.attach(scanner)
    await publisher.connect()
    await scanner.start()
    try {
      if (publisher.stats.state !== 'connected') await new Promise<void>((resolve) => publisher.once('connected', () => resolve()))
      for (let minor = 1; minor <= beacons; minor++) {
        const parsed = parseAdvertisementLine(ibeaconLine(Date.now() - T0, `aa:00:00:00:01:${minor.toString(16).padStart(2, '0')}`, 9, minor, -60))
        if (parsed.kind === 'advertisement') source.emit('advertisement', parsed.advertisement)
      }
      await sub.until((ms) => new Set(ms.flatMap((m) => (JSON.parse(m.payload) as RssiBatch).readings.map((r) => r.id))).size === beacons, 'every beacon in a batch')
    } finally {
      await scanner.stop()
      await publisher.close(1000)
    }
    await sub.sync()
    return sub
  }

  it('splits the batch by beacon hash, every reading on the partition of its id', async () => {
    const sub = await publishOneTick('part', 4, 30)
    const batches = sub.messages.filter((m) => m.topic.startsWith('beaconkit/gateways/part/rssi'))
    expect(batches.length).toBeGreaterThan(1)
    const partitions = new Set<number>()
    for (const m of batches) {
      const n = Number(m.topic.split('/').at(-1))
      expect(m.topic).toMatch(/^beaconkit\/gateways\/part\/rssi\/[0-3]$/)
      const batch = JSON.parse(m.payload) as RssiBatch
      expect(batch.gateway).toBe('part')
      for (const r of batch.readings) expect(rssiPartition(r.id, 4)).toBe(n)
      partitions.add(n)
    }
    // 30 beacons over 4 partitions: each partition has some.
    expect([...partitions].sort()).toEqual([0, 1, 2, 3])
    await sub.close()
  })

  it('keeps the single batch of the contract by default', async () => {
    const sub = await publishOneTick('plain', undefined, 5)
    const topics = new Set(sub.messages.filter((m) => m.topic.includes('/rssi')).map((m) => m.topic))
    expect([...topics]).toEqual(['beaconkit/gateways/plain/rssi'])
    await sub.close()
  })

  it('refuses a partition count that is not a whole number from 1 to 1024, as an option and as a flag', () => {
    for (const bad of [0, -1, 1.5, 1025, Number.NaN]) {
      expect(() => new MqttPublisher({ url: broker.url, gatewayId: 'x', rssiPartitions: bad })).toThrow(InvalidOptionError)
    }
    expect(parseCommandLine(['scan', '--mqtt', 'mqtt://b', '--rssi-partitions', '16'])).toMatchObject({ view: { mqtt: { rssiPartitions: 16 } } })
    for (const args of [['--mqtt', 'mqtt://b', '--rssi-partitions', '0'], ['--mqtt', 'mqtt://b', '--rssi-partitions', 'many'], ['--rssi-partitions', '4']]) {
      expect(refused(['replay', 'x.jsonl', ...args]).option, args.join(' ')).toBe('rssi-partitions')
    }
  })
})
