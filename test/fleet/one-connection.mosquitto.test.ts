// A fleet with foreign inputs and the map's details opens one connection to its broker (#36):
// the tracker, the bridge (and its nodes' publishers) and the details share it. Counted by a relay
// in front of Mosquitto, which also drops the connection the way a broker restart does: the
// tracker and the bridge subscribe again and get their messages again.
import { createConnection, createServer } from 'node:net'
import type { Server, Socket } from 'node:net'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleet } from '../../src/gateway/start-fleet.js'
import type { RunningFleet } from '../../src/gateway/start-fleet.js'
import { waitFor } from '../integration/wait.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'

/** A relay that counts the connections made through it and can drop them all (and stays listening). */
async function countingRelay(targetPort: number): Promise<{ url: string; connections: () => number; drop(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  let count = 0
  const server: Server = createServer((inbound) => {
    count++
    const outbound = createConnection(targetPort, '127.0.0.1')
    for (const s of [inbound, outbound]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => undefined)
    }
    inbound.pipe(outbound).pipe(inbound)
    inbound.on('close', () => outbound.destroy())
    outbound.on('close', () => inbound.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no relay port')
  return {
    url: `mqtt://127.0.0.1:${address.port}`,
    connections: () => count,
    drop: () => {
      for (const s of sockets) s.destroy()
    },
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** OpenMQTTGateway's report of an iBeacon on its defaults (test/inputs/fixtures.ts), with this minor (and address). */
function omgIBeacon(minor: number): string {
  return JSON.stringify({ id: `58:78:20:76:BC:2${minor}`, mac_type: 1, rssi: -70, brand: 'GENERIC', model: 'iBeacon', model_id: 'IBEACON', mfid: '4c00', uuid: '1de4b189115e45f6b44e509352269977', major: 0, minor, txpower: -66 })
}
const beaconId = (minor: number): string => `1DE4B189-115E-45F6-B44E-509352269977|0|${minor}`

describe.skipIf(!MOSQUITTO)(needsMosquitto('a fleet with inputs and the map: one broker connection, shared'), () => {
  let broker: Mosquitto
  let relay: Awaited<ReturnType<typeof countingRelay>>
  let fleet: RunningFleet | undefined
  let node: MqttClient | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
    relay = await countingRelay(broker.port)
  })

  afterAll(async () => {
    node?.end(true)
    await fleet?.stop()
    await relay?.close()
    await broker?.close()
  })

  it('opens exactly one connection, and the tracker and the bridge get their messages again after the broker drops it', async () => {
    fleet = await startFleet(
      {
        mqtt: { url: relay.url, prefix: 'one', clientId: 'one-fleet' },
        fleet: { inputs: ['omg:one-home'] },
        http: { listen: '127.0.0.1:0' },
      },
      { stderr: { write: () => true }, warn: () => undefined },
    )
    await fleet.start()
    const tracker = fleet.tracker
    const bridge = fleet.inputs
    if (bridge === undefined) throw new Error('no bridge')
    node = await mqtt.connectAsync(broker.url, { clientId: 'one-omg-esp32' })
    let last = 0
    const send = (minor: number): Promise<void> =>
      waitFor(
        () => {
          if (Date.now() - last < 100) return tracker.get(beaconId(minor)) !== undefined
          last = Date.now()
          node?.publish(`one-home/OpenMQTTGateway/BTtoMQTT/58782076BC2${minor}`, omgIBeacon(minor))
          return tracker.get(beaconId(minor)) !== undefined
        },
        `beacon minor ${minor} in the fleet`,
        30_000,
      )
    await send(0)
    // The tracker, the inputs, the map's details and the node's publisher: one connection.
    expect(relay.connections()).toBe(1)
    expect(bridge.nodes()).toEqual(['OpenMQTTGateway'])

    const heard = bridge.stats.advertisements.ibeacon
    let reconnected = false
    tracker.once('connected', () => (reconnected = true))
    relay.drop()
    await waitFor(() => reconnected, 'the fleet reconnected', 30_000)
    // Both subscribed again on the new connection: the bridge hears the node, the tracker the beacon it relays.
    await send(1)
    expect(bridge.stats.advertisements.ibeacon).toBeGreaterThan(heard)
    expect(relay.connections()).toBe(2)
  }, 90_000)
})
