// The composition root (src/gateway/start-gateway.ts): parts start in order and stop in reverse,
// a part that cannot start closes the ones already started, and a run's stop reports what the
// MQTT sink left undelivered. Real parts: the embedded broker (aedes) and a real HTTP port.
import { createServer } from 'node:net'
import type { Server } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGateway } from '../../src/gateway/start-gateway.js'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'

const DEMO = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))

describe('startGateway', () => {
  let broker: RunningBroker
  let busy: Server
  let busyPort = 0

  beforeAll(async () => {
    broker = await startBroker({ port: 0 })
    busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    busyPort = (busy.address() as { port: number }).port
  })

  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve))
    await broker.close()
  })

  it('runs a replay through the MQTT sink and stops the scanner before the sinks (the last gone states are cleared)', async () => {
    const warnings: string[] = []
    const gateway = await startGateway(
      { source: new ReplaySource(DEMO, { virtual: true }), gateway: { id: 'root-a' }, mqtt: { url: broker.url } },
      { warn: (t) => warnings.push(t), stderr: { write: () => true } },
    )
    expect(gateway.mqtt?.publisher.gatewayId).toBe('root-a')
    await gateway.start()
    await gateway.scanner.drain()
    const report = await gateway.stop()
    // A second stop is the same stop.
    expect(await gateway.stop()).toBe(report)
    expect(report.mqtt).toMatchObject({ delivered: true, lost: 0 })
    const retained = await retainedMessages(broker.url, 'beaconkit/gateways/root-a/#')
    expect(JSON.parse(retained.get('beaconkit/gateways/root-a/status') ?? '{}')).toMatchObject({ state: 'offline' })
    // Every beacon's retained state was cleared by its gone before the status went offline.
    expect([...retained.keys()].filter((t) => t.includes('/beacons/'))).toEqual([])
    expect(warnings).toEqual([])
  })

  it('a part that cannot start closes those started before it: the map on a taken port closes the MQTT sink', async () => {
    const failing = startGateway(
      { source: new ReplaySource(DEMO, { virtual: true }), gateway: { id: 'root-b' }, mqtt: { url: broker.url }, http: { listen: `127.0.0.1:${busyPort}` } },
      { warn: () => undefined, stderr: { write: () => true } },
    )
    await expect(failing).rejects.toThrow()
    const retained = await retainedMessages(broker.url, 'beaconkit/gateways/root-b/#')
    expect(JSON.parse(retained.get('beaconkit/gateways/root-b/status') ?? '{}')).toMatchObject({ state: 'offline' })
  })
})
