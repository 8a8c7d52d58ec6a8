// The foreign-input bridge's liveness through a real Mosquitto (docs/fleet.md "Mixed fleets"):
// its connection's will is `<p>/inputs/<bridge>/status`, its nodes' statuses say `via`, and a
// restarted bridge sets `offline` the statuses a killed run left `online`. The killed bridge is a
// real child process (the built package, dist/: run `npx tsup` first) fed by OpenMQTTGateway
// publishers speaking the format of test/inputs/fixtures.ts. Event-driven: every wait is for a
// state (or the bridge's `swept` event), nothing asserts how long anything took.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ForeignBridge } from '../../src/inputs/bridge.js'
import type { StaleSweepStats } from '../../src/inputs/stale-sweep.js'
import { waitFor } from '../integration/wait.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { OMG_LWT, OMG_PUBADVDATA } from './fixtures.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const DIST = pathToFileURL(join(ROOT, 'dist', 'index.js')).href
const P = 'beaconkit'
const BRIDGE = 'fleet-a'

/** The OMG fixture as node `node` publishes it (the gateway name is the topic's second level). */
function omgReport(node: string): { topic: string; payload: string } {
  return { topic: OMG_PUBADVDATA.topic.replace('/OpenMQTTGateway/', `/${node}/`), payload: OMG_PUBADVDATA.payload }
}

function lwt(node: string): string {
  return OMG_LWT.replace('/OpenMQTTGateway/', `/${node}/`)
}

function parsed(text: string | undefined): Record<string, unknown> | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>)
}

describe.skipIf(!MOSQUITTO)(needsMosquitto("the foreign-input bridge's will, via and stale sweep"), () => {
  let broker: Mosquitto
  const clients: MqttClient[] = []
  const bridges: ForeignBridge[] = []
  const children: ChildProcess[] = []
  const timers: NodeJS.Timeout[] = []

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    for (const t of timers) clearInterval(t)
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    for (const b of bridges) await b.close(1000)
    for (const c of clients) c.end(true)
    await broker?.close()
  })

  /** An OpenMQTTGateway node as its firmware connects: will `offline` on its LWT, then `online` retained. */
  async function omgNode(node: string): Promise<MqttClient> {
    const c = await mqtt.connectAsync(broker.url, { clientId: `esp32-${node}`, reconnectPeriod: 0, will: { topic: lwt(node), payload: Buffer.from('offline'), qos: 1, retain: true } })
    clients.push(c)
    await c.publishAsync(lwt(node), 'online', { qos: 1, retain: true })
    return c
  }

  /** Publishes the node's sighting until the test ends (ESP32 nodes report every few seconds; here faster). */
  function keepReporting(c: MqttClient, node: string): void {
    const r = omgReport(node)
    const send = (): void => void c.publishAsync(r.topic, r.payload).catch(() => undefined)
    send()
    timers.push(setInterval(send, 100))
  }

  function bridge(options: Partial<ConstructorParameters<typeof ForeignBridge>[0]> = {}): ForeignBridge {
    const b = new ForeignBridge({ url: broker.url, inputs: [{ format: 'omg', base: 'home' }], bridgeId: BRIDGE, ...options })
    b.on('error', () => undefined)
    bridges.push(b)
    return b
  }

  function swept(b: ForeignBridge): Promise<StaleSweepStats> {
    return new Promise((resolve) => b.once('swept', resolve))
  }

  it('(a) a bridge killed with SIGKILL: its will says the bridge offline; its nodes stay online via it (what a will can carry)', async () => {
    const watch = await Subscriber.connect(broker.url, [`${P}/inputs/#`, `${P}/gateways/+/status`])
    const script = `
      import { ForeignBridge } from ${JSON.stringify(DIST)}
      const [url, id] = process.argv.slice(1)
      const bridge = new ForeignBridge({ url, inputs: [{ format: 'omg', base: 'home' }], bridgeId: id })
      bridge.on('error', (e) => console.error(e.message))
      await bridge.start()
      setInterval(() => console.log('nodes ' + bridge.nodes().sort().join(',')), 50)`
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, broker.url, BRIDGE], { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT })
    children.push(child)
    let output = ''
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d))
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d))

    const live = await omgNode('omg-live')
    const dead = await omgNode('omg-dead')
    keepReporting(live, 'omg-live')
    keepReporting(dead, 'omg-dead')
    const onlineVia = (node: string): boolean => watch.on(`${P}/gateways/${node}/status`).some((m) => parsed(m.payload)?.state === 'online' && parsed(m.payload)?.via === BRIDGE)
    await watch.until(() => onlineVia('omg-live') && onlineVia('omg-dead'), 'both nodes online via the bridge', 30_000)
    expect(watch.on(`${P}/inputs/${BRIDGE}/status`).map((m) => parsed(m.payload)?.state)).toContain('online')
    await waitFor(() => output.includes('nodes omg-dead,omg-live'), 'the child bridge to list both nodes', 20_000)

    const exited = new Promise<string | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')
    await watch.until(() => watch.on(`${P}/inputs/${BRIDGE}/status`).some((m) => parsed(m.payload)?.state === 'offline'), "the broker's delivery of the bridge's will", 30_000)
    await watch.close()

    // A fresh reader: the bridge is offline; its nodes' statuses still say online, via that bridge.
    const retained = await retainedMessages(broker.url, [`${P}/inputs/+/status`, `${P}/gateways/+/status`])
    const bridgeStatus = parsed(retained.get(`${P}/inputs/${BRIDGE}/status`))
    expect(bridgeStatus).toMatchObject({ state: 'offline', version: expect.any(String) as unknown, time: expect.any(Number) as unknown })
    expect(Object.keys(bridgeStatus ?? {}).sort()).toEqual(['state', 'time', 'version'])
    for (const node of ['omg-live', 'omg-dead']) expect(parsed(retained.get(`${P}/gateways/${node}/status`))).toMatchObject({ state: 'online', via: BRIDGE })
  }, 90_000)

  it('(b) restarted with the same id: the dead node is set offline after the grace, the node still publishing stays online', async () => {
    // The dead node's ESP32 loses power: the broker sends its own will (LWT offline).
    const dead = clients.find((c) => c.options.clientId === 'esp32-omg-dead') as MqttClient
    ;(dead as MqttClient & { stream: { destroy(): void } }).stream.destroy()
    await waitFor(() => !dead.connected, "the dead node's connection to drop", 20_000)
    const lwtGone = await Subscriber.connect(broker.url, [lwt('omg-dead')])
    await lwtGone.until((ms) => ms.some((m) => m.payload === 'offline'), "the dead node's LWT offline", 20_000)
    await lwtGone.close()

    const watch = await Subscriber.connect(broker.url, [`${P}/gateways/+/status`, 'beaconkit-test/marker/#'])
    const b = bridge({ staleGraceMs: 1500 })
    const done = swept(b)
    await b.start()
    const stats = await done
    // Both statuses were online via this bridge: the live node's is left, the dead one's cleared.
    expect(stats).toEqual({ read: 2, skipped: 0, beyondBound: 0, live: 1, cleared: 1 })
    expect(b.stats.sweep).toEqual(stats)
    expect(b.nodes()).toEqual(['omg-live'])

    const retained = await retainedMessages(broker.url, [`${P}/inputs/+/status`, `${P}/gateways/+/status`])
    expect(parsed(retained.get(`${P}/inputs/${BRIDGE}/status`))).toMatchObject({ state: 'online' })
    expect(parsed(retained.get(`${P}/gateways/omg-dead/status`))).toMatchObject({ state: 'offline', via: BRIDGE })
    expect(parsed(retained.get(`${P}/gateways/omg-live/status`))).toMatchObject({ state: 'online', via: BRIDGE })
    // The live node was never said offline on the way.
    await watch.sync()
    expect(watch.on(`${P}/gateways/omg-dead/status`).filter((m) => !m.retain).map((m) => parsed(m.payload)?.state)).toEqual(['offline'])
    expect(watch.on(`${P}/gateways/omg-live/status`).map((m) => parsed(m.payload)?.state)).not.toContain('offline')
    await watch.close()
  }, 90_000)

  it('(c) 1,000 forged retained statuses online via the bridge: at most maxNodes offline publishes, the rest and the malformed counted', async () => {
    const prefix = 'hostile'
    const forger = await mqtt.connectAsync(broker.url, { clientId: 'forger', reconnectPeriod: 0 })
    clients.push(forger)
    const body = (extra: object = {}): string => JSON.stringify({ state: 'online', time: 1, version: '0.0.0', via: 'victim', ...extra })
    const forged: Promise<unknown>[] = []
    for (let i = 0; i < 1000; i++) forged.push(forger.publishAsync(`${prefix}/gateways/fake-${i}/status`, body(), { qos: 1, retain: true }))
    // Skipped and counted: not JSON, over 4 KiB, a JSON array, an id outside [A-Za-z0-9_-].
    forged.push(forger.publishAsync(`${prefix}/gateways/garbage/status`, '{"state":"online",', { qos: 1, retain: true }))
    forged.push(forger.publishAsync(`${prefix}/gateways/huge/status`, body({ pad: 'x'.repeat(5000) }), { qos: 1, retain: true }))
    forged.push(forger.publishAsync(`${prefix}/gateways/array/status`, '["online"]', { qos: 1, retain: true }))
    forged.push(forger.publishAsync(`${prefix}/gateways/bad.id/status`, body(), { qos: 1, retain: true }))
    // Read and left alone: another bridge's node, an offline one.
    forged.push(forger.publishAsync(`${prefix}/gateways/other/status`, body({ via: 'someone-else' }), { qos: 1, retain: true }))
    forged.push(forger.publishAsync(`${prefix}/gateways/off/status`, body({ state: 'offline' }), { qos: 1, retain: true }))
    await Promise.all(forged)

    // Watched at QoS 0: at QoS 1 Mosquitto queues at most 1,020 messages for a client, and the
    // 1,006 retained ones would crowd out the live offline publishes this test counts.
    const watch = await mqtt.connectAsync(broker.url, { clientId: 'hostile-watch', reconnectPeriod: 0 })
    clients.push(watch)
    const seen: { topic: string; payload: string; retain: boolean }[] = []
    watch.on('message', (topic, payload, packet) => seen.push({ topic, payload: payload.toString(), retain: packet.retain }))
    const marker = 'beaconkit-test/marker/hostile'
    await watch.subscribeAsync([`${prefix}/gateways/+/status`, marker], { qos: 0 })
    const b = bridge({ bridgeId: 'victim', topicPrefix: prefix, maxNodes: 16, staleGraceMs: 0 })
    const done = swept(b)
    await b.start()
    const stats = await done
    expect(stats).toEqual({ read: 1006, skipped: 4, beyondBound: 984, live: 0, cleared: 16 })
    // Everything the broker had for the watch before the marker has arrived when the marker has.
    await watch.publishAsync(marker, 'm', { qos: 1 })
    await waitFor(() => seen.some((m) => m.topic === marker), 'the marker', 20_000)
    const offline = seen.filter((m) => m.topic.startsWith(`${prefix}/`) && !m.retain && parsed(m.payload)?.state === 'offline')
    expect(offline).toHaveLength(16)
    expect(new Set(offline.map((m) => m.topic)).size).toBe(16)
    for (const m of offline) expect(parsed(m.payload)).toMatchObject({ via: 'victim' })
  }, 90_000)

  it('(d) a clean close says the bridge offline, and its nodes offline via it', async () => {
    const b = bridge({ bridgeId: 'fleet-d', staleGraceMs: 0 })
    await b.start()
    const node = await omgNode('omg-d')
    keepReporting(node, 'omg-d')
    await waitFor(() => b.nodes().includes('omg-d'), 'the bridge to take node omg-d', 20_000)
    const watch = await Subscriber.connect(broker.url, [`${P}/gateways/omg-d/status`])
    await watch.until((ms) => ms.some((m) => parsed(m.payload)?.state === 'online'), 'omg-d online', 20_000)
    await watch.close()
    await b.close()
    const retained = await retainedMessages(broker.url, [`${P}/inputs/+/status`, `${P}/gateways/+/status`])
    expect(parsed(retained.get(`${P}/inputs/fleet-d/status`))).toMatchObject({ state: 'offline' })
    expect(parsed(retained.get(`${P}/gateways/omg-d/status`))).toMatchObject({ state: 'offline', via: 'fleet-d' })
  }, 60_000)
})
