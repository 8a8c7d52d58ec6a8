// The recommended broker ACLs (examples/mosquitto/acl, quoted in docs/mqtt.md and docs/fleet.md
// "Running on a shared broker"), used as is by a real Mosquitto with passwords and no anonymous
// clients: a gateway writes its own topics and the fleet tracks its beacon and announces it to
// Home Assistant; a gateway cannot write another gateway's topics, the fleet's or discovery; an
// anonymous client cannot connect. MQTT 5 shows a denied publish as PUBACK reason 0x87; MQTT
// 3.1.1 has no way to say it, and the broker drops the message silently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import mqtt from 'mqtt'
import type { IClientOptions, MqttClient } from 'mqtt'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { Subscriber } from '../support/mqtt-subscriber.js'
import { discoveryProblems } from '../support/ha-schema.js'
import { waitFor } from '../integration/wait.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { ForeignBridge } from '../../src/inputs/bridge.js'
import { OMG_PUBADVDATA } from '../inputs/fixtures.js'

const ACL = fileURLToPath(new URL('../../examples/mosquitto/acl', import.meta.url))
const PASSWD_TOOL = ['/usr/bin/mosquitto_passwd', '/usr/local/bin/mosquitto_passwd'].find((p) => existsSync(p))
const USERS = ['gw1', 'gw2', 'fleet', 'fleet-inputs', 'esp32', 'homeassistant', 'reader'] as const
const SPOOF = '{"state":"offline","time":0,"version":"spoofed by gw1"}'
const password = (user: string): string => `pw-${user}-0123456789`

describe.skipIf(MOSQUITTO === undefined || PASSWD_TOOL === undefined)(needsMosquitto(PASSWD_TOOL === undefined ? 'the recommended Mosquitto ACLs [skipped: mosquitto_passwd is not installed]' : 'the recommended Mosquitto ACLs'), () => {
  let broker: Mosquitto
  let url: string
  let dir: string
  const clients: MqttClient[] = []

  const login = async (user: string | undefined, protocolVersion: 4 | 5 = 5, extra: IClientOptions = {}): Promise<MqttClient> => {
    const c = await mqtt.connectAsync(url, { protocolVersion, reconnectPeriod: 0, connectTimeout: 10_000, ...(user === undefined ? {} : { username: user, password: password(user) }), ...extra })
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-acl-'))
    const passwd = join(dir, 'passwd')
    await writeFile(passwd, '')
    for (const user of USERS) {
      const r = spawnSync(PASSWD_TOOL as string, ['-b', passwd, user, password(user)], { encoding: 'utf8' })
      if (r.status !== 0) throw new Error(`mosquitto_passwd: ${r.stderr}`)
    }
    broker = await Mosquitto.start({ extra: ['allow_anonymous false', `password_file ${passwd}`, `acl_file ${ACL}`] })
    url = broker.url
  }, 60_000)

  afterAll(async () => {
    for (const c of clients) await c.endAsync(true)
    await broker?.close()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('refuses an anonymous client and a wrong password at CONNECT', async () => {
    // MQTT 5: CONNACK 0x87 Not authorized (Mosquitto 2.0 answers a wrong password the same way); 3.1.1: return code 5.
    await expect(login(undefined)).rejects.toMatchObject({ code: 0x87 })
    await expect(mqtt.connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0, username: 'gw1', password: 'wrong' })).rejects.toMatchObject({ code: 0x87 })
    await expect(login(undefined, 4)).rejects.toMatchObject({ code: 5 })
  })

  it('lets a gateway write its own topics and the fleet track its beacon and announce it', async () => {
    const tracker = new FleetTracker({ url, username: 'fleet', passwordFile: await passwordFile('fleet'), clientId: 'acl-fleet', goneTimeoutMs: 60_000, homeAssistant: { dwellMs: 1000 } })
    await tracker.start()
    try {
      const gw = await login('gw1')
      await gw.publishAsync('beaconkit/gateways/gw1/status', JSON.stringify({ state: 'online', time: Date.now(), version: 'test' }), { qos: 1, retain: true })
      await waitFor(() => tracker.stats.homeAssistant !== undefined, 'the tracker')
      const until = Date.now() + 2500
      while (Date.now() < until) {
        const at = Date.now()
        // Resolves: a PUBACK of reason 0 (a denied one rejects, below).
        await gw.publishAsync('beaconkit/gateways/gw1/rssi', JSON.stringify({ gateway: 'gw1', time: at, readings: [{ id: '0117C5000001', rssi: -60, lastSeen: at, count: 2 }] }), { qos: 1 })
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      await waitFor(() => tracker.stats.homeAssistant?.announced === 1, 'the announcement')
      expect(await tracker.flush()).toBe(true)
      // Home Assistant's user reads what the fleet wrote (retained; it may write no marker to know the end of them).
      // The Room sensor: a config by Home Assistant's sensor rules (the device_tracker beside it has no state topic).
      const config = 'homeassistant/sensor/beaconkit_0117c5000001_room/config'
      const wanted = ['beaconkit/fleet/beacons/0117C5000001', config, 'beaconkit/gateways/gw1/status', 'homeassistant/device_tracker/beaconkit_0117c5000001/config']
      const ha = await Subscriber.connect(url, ['beaconkit/#', 'homeassistant/#'], { username: 'homeassistant', password: password('homeassistant') })
      try {
        await ha.until((ms) => wanted.every((t) => ms.some((m) => m.topic === t && m.retain)), 'the retained fleet state, configs and gateway status')
        const seen = new Map(ha.messages.map((m) => [m.topic, m.payload]))
        expect(JSON.parse(seen.get(wanted[0]) ?? '{}')).toMatchObject({ id: '0117C5000001', present: true })
        expect(discoveryProblems(config, seen.get(config) ?? '')).toEqual([])
        expect(JSON.parse(seen.get(wanted[2]) ?? '{}')).toMatchObject({ state: 'online' })
      } finally {
        await ha.close()
      }
    } finally {
      await tracker.stop()
    }
  }, 60_000)

  it("denies gw1 another gateway's topics, the fleet's and discovery: PUBACK 0x87 in MQTT 5, silently dropped in 3.1.1", async () => {
    const reader = await Subscriber.connect(url, ['beaconkit/#', 'homeassistant/#', 'beaconkit-test/marker/#'], { username: 'fleet', password: password('fleet'), protocolVersion: 5 })
    try {
      const gw = await login('gw1')
      const denied = ['beaconkit/gateways/gw2/status', 'beaconkit/gateways/gw2/rssi', 'beaconkit/fleet/beacons/0117C5000001', 'beaconkit/fleet/status', 'homeassistant/device_tracker/beaconkit_x/config',
        // #39: the fleet's teach command and its answers, and the rooms' occupancy, are the fleet's alone.
        'beaconkit/fleet/teach', 'beaconkit/fleet/teach/0123abcd', 'beaconkit/fleet/rooms/kitchen', 'homeassistant/sensor/beaconkit_room_kitchen_occupancy/config']
      for (const topic of denied) {
        await expect(gw.publishAsync(topic, SPOOF, { qos: 1, retain: true }), topic).rejects.toMatchObject({ code: 0x87 })
      }
      const old = await login('gw1', 4, { clientId: 'acl-gw1-v311' })
      for (const topic of denied) await old.publishAsync(topic, SPOOF, { qos: 1, retain: true })
      // gw1's own topic, written after the denied ones, arrives; none of the denied ones did.
      await old.publishAsync('beaconkit/gateways/gw1/marker', 'own', { qos: 1 })
      await reader.until((ms) => ms.some((m) => m.topic === 'beaconkit/gateways/gw1/marker'), 'gw1 writing its own topic')
      expect(reader.messages.filter((m) => m.payload === SPOOF)).toEqual([])
    } finally {
      await reader.close()
    }
  })

  it('lets a gateway with --ha write its own device and entities only, and see the fleet (device only then)', async () => {
    const reader = await Subscriber.connect(url, ['homeassistant/#', 'beaconkit-test/marker/#'], { username: 'homeassistant', password: password('homeassistant'), protocolVersion: 5 })
    const publisher = new MqttPublisher({ url, gatewayId: 'gw2', username: 'gw2', passwordFile: await passwordFile('gw2'), homeAssistant: true })
    try {
      await publisher.connect()
      await reader.until((ms) => ms.some((m) => m.topic === 'homeassistant/binary_sensor/beaconkit_gw_gw2/connectivity/config'), "gw2's device")
      // The fleet's retained status is readable to a gateway: a fleet owns the beacons.
      const fleet = await login('fleet')
      await fleet.publishAsync('beaconkit/fleet/status', JSON.stringify({ state: 'online', time: Date.now(), version: 'test' }), { qos: 1, retain: true })
      await waitFor(() => publisher.stats.homeAssistant?.mode === 'fleet', 'the fleet status through the ACL')
      const gw = await login('gw2')
      await gw.publishAsync('homeassistant/sensor/beaconkit_gw2/0117c5000001_temperature/config', '', { qos: 1, retain: true })
      const denied = ['homeassistant/sensor/beaconkit_gw1/0117c5000001_temperature/config', 'homeassistant/sensor/beaconkit_gw_gw1/beacons/config', 'homeassistant/sensor/beaconkit_0117c5000001_temperature/config']
      for (const topic of denied) await expect(gw.publishAsync(topic, SPOOF, { qos: 1, retain: true }), topic).rejects.toMatchObject({ code: 0x87 })
    } finally {
      await publisher.close()
      await reader.close()
    }
  })

  it('lets a fleet with inputs (user fleet-inputs) publish an ESP32 node (user esp32) as a gateway, and refuses the node beaconkit topics', async () => {
    const reader = await Subscriber.connect(url, ['beaconkit/#'], { username: 'reader', password: password('reader'), protocolVersion: 5 })
    const bridge = new ForeignBridge({ url, username: 'fleet-inputs', passwordFile: await passwordFile('fleet-inputs'), inputs: [{ format: 'omg', base: 'home' }], bridgeId: 'acl-bridge', staleGraceMs: 200 })
    bridge.on('error', () => undefined)
    const node = await login('esp32')
    try {
      await bridge.start()
      await reader.until((ms) => ms.some((m) => m.topic === 'beaconkit/inputs/acl-bridge/status'), 'the bridge status')
      const report = OMG_PUBADVDATA.topic.replace('/OpenMQTTGateway/', '/esp-hall/')
      // The node reports until the bridge has subscribed and made it a gateway (QoS 0 input: a report may come too early).
      const pump = setInterval(() => void node.publishAsync(report, OMG_PUBADVDATA.payload).catch(() => undefined), 200)
      try {
        await reader.until((ms) => ms.some((m) => m.topic === 'beaconkit/gateways/esp-hall/status'), "the node's gateway status")
      } finally {
        clearInterval(pump)
      }
      const status = reader.on('beaconkit/gateways/esp-hall/status').at(-1)
      expect(JSON.parse(status?.payload ?? '{}')).toMatchObject({ state: 'online', via: 'acl-bridge' })
      expect(JSON.parse(reader.on('beaconkit/inputs/acl-bridge/status').at(-1)?.payload ?? '{}')).toMatchObject({ state: 'online' })
      // The node's own user may not speak for a gateway.
      await expect(node.publishAsync('beaconkit/gateways/esp-hall/status', '{"state":"offline"}', { qos: 1 })).rejects.toMatchObject({ code: 0x87 })
    } finally {
      await bridge.close(2000)
      node.end(true)
      await reader.close()
    }
  })

  // Issue #35 item 2: foreign node ids share the gateway namespace. As the esp32 user, a node
  // named like a native gateway (`home/gw1/LWT`, `home/gw1/BTtoMQTT/…`) made the bridge speak
  // for gw1 — what the ACL forbids that user to write directly. The bridge refuses a node id
  // that a beaconkit gateway has published a status under, and one the site reserves for a
  // native gateway (`nativeNodes`: site gateways not declared `foreign`).
  it('refuses a foreign node that takes the id of a native gateway (seen on the broker, or reserved by the site)', async () => {
    const reader = await Subscriber.connect(url, ['beaconkit/#'], { username: 'reader', password: password('reader'), protocolVersion: 5 })
    const native = new MqttPublisher({ url, gatewayId: 'gw1', username: 'gw1', passwordFile: await passwordFile('gw1') })
    const bridge = new ForeignBridge({ url, username: 'fleet-inputs', passwordFile: await passwordFile('fleet-inputs'), inputs: [{ format: 'omg', base: 'home' }], bridgeId: 'acl-bridge-2', staleGraceMs: 200, nativeNodes: new Set(['gw2']) })
    bridge.on('error', () => undefined)
    const warnings: string[] = []
    bridge.on('warning', (w) => warnings.push(w))
    const node = await login('esp32')
    try {
      await native.connect()
      await reader.until((ms) => ms.some((m) => m.topic === 'beaconkit/gateways/gw1/status' && !m.payload.includes('spoofed')), "the native gateway's status")
      // What earlier tests left retained arrived before the live status: judged from here on.
      const from = reader.messages.length
      await bridge.start()
      await reader.until((ms) => ms.some((m) => m.topic === 'beaconkit/inputs/acl-bridge-2/status'), 'the bridge status')
      const report = (nodeId: string): string => OMG_PUBADVDATA.topic.replace('/OpenMQTTGateway/', `/${nodeId}/`)
      await node.publishAsync('home/gw1/LWT', 'online', { qos: 1 })
      await node.publishAsync('home/gw2/LWT', 'online', { qos: 1 })
      // The hostile nodes report alongside an honest one, until the honest one is a gateway.
      const pump = setInterval(() => {
        for (const id of ['gw1', 'gw2', 'esp-porch']) void node.publishAsync(report(id), OMG_PUBADVDATA.payload).catch(() => undefined)
      }, 200)
      try {
        await reader.until((ms) => ms.some((m) => m.topic === 'beaconkit/gateways/esp-porch/status'), "the honest node's gateway status")
      } finally {
        clearInterval(pump)
      }
      await node.publishAsync('home/gw1/LWT', 'offline', { qos: 1 })
      await node.publishAsync('home/gw2/LWT', 'offline', { qos: 1 })
      // Handled in order: once the honest node's offline is out, the others' were handled before it.
      await node.publishAsync('home/esp-porch/LWT', 'offline', { qos: 1 })
      await reader.until((ms) => ms.some((m) => m.topic === 'beaconkit/gateways/esp-porch/status' && m.payload.includes('"offline"')), "the honest node's offline")
      const since = reader.messages.slice(from)
      const spoken = since.filter((m) => /^beaconkit\/gateways\/gw[12]\//.test(m.topic) && m.payload.includes('acl-bridge-2'))
      expect(spoken.map((m) => m.topic)).toEqual([])
      expect(since.filter((m) => m.topic.startsWith('beaconkit/gateways/gw1/beacons/') || m.topic.startsWith('beaconkit/gateways/gw2/'))).toEqual([])
      expect(JSON.parse(reader.on('beaconkit/gateways/gw1/status').at(-1)?.payload ?? '{}')).toMatchObject({ state: 'online' })
      expect(JSON.parse(reader.on('beaconkit/gateways/gw1/status').at(-1)?.payload ?? '{}')).not.toHaveProperty('via')
      expect(bridge.stats.nativeRefused).toBeGreaterThan(0)
      expect(warnings.filter((w) => w.includes('gw1')).length).toBe(1)
    } finally {
      await bridge.close(2000)
      await native.close(2000)
      node.end(true)
      await reader.close()
    }
  })

  async function passwordFile(user: string): Promise<string> {
    const file = join(dir, `${user}.password`)
    await writeFile(file, `${password(user)}\n`, { mode: 0o600 })
    return file
  }
})
