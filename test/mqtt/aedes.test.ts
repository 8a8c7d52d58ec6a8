// The embedded broker (aedes, MQTT 3.1.1 only): the publisher falls back from MQTT 5 and
// publishes the same contract; `beaconkit broker` serves a replay end to end.
import { describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'
import { startBroker } from '../../src/mqtt/broker.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { TemporaryFailureError } from '../../src/errors.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { startCli } from '../cli/run-cli.js'

const DEMO = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))

describe('startBroker (aedes)', () => {
  it('takes a publisher that asks for MQTT 5 and falls back to 3.1.1', async () => {
    const broker = await startBroker({ port: 0 })
    try {
      expect(broker.url).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/)
      const sub = await Subscriber.connect(broker.url, ['beaconkit/#', 'beaconkit-test/marker/#'])
      const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'aedes' })
      const connected = new Promise<{ protocolVersion: number }>((resolve) => publisher.once('connected', resolve))
      const errors: Error[] = []
      publisher.on('error', (e) => errors.push(e))
      await publisher.connect()
      expect(await connected).toEqual({ protocolVersion: 4 })
      const source = new ReplaySource(DEMO, { virtual: true })
      const scanner = new BeaconScanner({ source })
      publisher.attach(scanner)
      await scanner.start()
      await scanner.drain()
      await scanner.stop()
      expect(await publisher.flush(30_000)).toBe(true)
      await publisher.close()
      await sub.sync()
      // The refusal of MQTT 5 is handled, not reported as a problem.
      expect(errors).toEqual([])
      expect(sub.on('beaconkit/gateways/aedes/events').length).toBeGreaterThan(10)
      expect(sub.on('beaconkit/gateways/aedes/rssi').length).toBeGreaterThan(80)
      const retained = await retainedMessages(broker.url, 'beaconkit/#')
      expect(JSON.parse(retained.get('beaconkit/gateways/aedes/status') as string)).toMatchObject({ state: 'offline' })
      await sub.close()
    } finally {
      await broker.close()
    }
  })

  it('refuses a port in use with a typed error', async () => {
    const first = await startBroker({ port: 0 })
    try {
      await expect(startBroker({ port: first.port })).rejects.toBeInstanceOf(TemporaryFailureError)
    } finally {
      await first.close()
    }
  })

  it('runs as `beaconkit broker` until Ctrl-C, and a replay publishes to it', async () => {
    const broker = startCli(['broker', '--port', '0'])
    await broker.waitFor(/listening on mqtt:\/\/127\.0\.0\.1:\d+/)
    const url = /listening on (mqtt:\/\/127\.0\.0\.1:\d+)/.exec(broker.output())?.[1] as string
    const replay = startCli(['replay', 'fixtures/demo.jsonl', '--virtual', '--mqtt', url, '--gateway-id', 'demo', '--ha', '--json'])
    const result = await replay.done
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const retained = await retainedMessages(url, ['beaconkit/#', 'homeassistant/#'])
    expect(JSON.parse(retained.get('beaconkit/gateways/demo/status') as string)).toMatchObject({ state: 'offline' })
    // The demo's beacons heard for 30 s and more (the discovery gate's dwell), each a device of several entities.
    expect([...retained.keys()].filter((t) => t.startsWith('homeassistant/')).length).toBeGreaterThan(10)
    broker.child.kill('SIGINT')
    const end = await broker.done
    expect(end.code).toBe(0)
    expect(end.stdout).toContain('MQTT broker stopped')
  })
})
