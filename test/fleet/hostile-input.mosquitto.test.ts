// Hostile input on the gateways' topics, through a real Mosquitto to a real FleetTracker: a
// reading id with a control character (Mosquitto would close the tracker's connection on its
// fleet topic, for ever), clock-offset poisoning, a flood of fake online statuses and huge
// status ids, and gateways the tracker forgets, which the live map and the CLI's counts must
// forget too. The gateways here are plain MQTT clients publishing the contract's messages.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetTrackerOptions } from '../../src/fleet/tracker-types.js'
import { Site } from '../../src/positioning/site.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { LiveSnapshot } from '../../src/web/live-view.js'
import { FleetGatewayCounts } from '../../src/cli/ui/fleet-table.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'

function getJson<T>(url: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d: string) => (body += d))
      res.on('end', () => resolve(JSON.parse(body) as T))
    })
    req.on('error', reject)
    req.end()
  })
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!MOSQUITTO)(needsMosquitto('FleetTracker against hostile gateway topics through Mosquitto'), () => {
  let broker: Mosquitto
  const clients: MqttClient[] = []
  const trackers: FleetTracker[] = []
  const timers: NodeJS.Timeout[] = []
  let prefixes = 0

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterEach(async () => {
    for (const t of timers.splice(0)) clearInterval(t)
    for (const t of trackers.splice(0)) await t.stop(1000)
    for (const c of clients.splice(0)) await c.endAsync()
  })

  afterAll(async () => {
    await broker?.close()
  })

  async function client(): Promise<MqttClient> {
    const c = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 })
    clients.push(c)
    return c
  }

  async function tracker(options: Omit<FleetTrackerOptions, 'url'>): Promise<{ t: FleetTracker; prefix: string; events: string[] }> {
    const prefix = `hostile-${process.pid}-${++prefixes}`
    const t = new FleetTracker({ url: broker.url, topicPrefix: prefix, publishIntervalMs: 1000, reconnect: { initialDelayMs: 200, maxDelayMs: 400 }, ...options })
    trackers.push(t)
    const events: string[] = []
    t.on('disconnected', () => events.push('disconnected'))
    t.on('found', (b) => events.push(`found ${b.id}`))
    t.on('gone', (b) => events.push(`gone ${b.id}`))
    t.on('error', (e) => events.push(`error ${(e as { code?: string }).code ?? e.message}`))
    await t.start()
    return { t, prefix, events }
  }

  /** A gateway publishing one batch of `ids` every `everyMs`, stamped with its (real) clock. */
  async function gateway(prefix: string, id: string, ids: () => string[], everyMs = 500): Promise<MqttClient> {
    const c = await client()
    await c.publishAsync(`${prefix}/gateways/${id}/status`, JSON.stringify({ state: 'online', time: Date.now() }), { qos: 1, retain: true })
    const send = (): void => {
      const time = Date.now()
      c.publish(`${prefix}/gateways/${id}/rssi`, JSON.stringify({ gateway: id, time, readings: ids().map((b) => ({ id: b, rssi: -60, lastSeen: time - 100, count: 3 })) }), { qos: 0 })
    }
    send()
    timers.push(setInterval(send, everyMs))
    return c
  }

  it('a reading id with a control character is skipped and counted: no disconnect loop, the other beacons keep being published', async () => {
    const { t, prefix, events } = await tracker({})
    await gateway(prefix, 'g1', () => ['ok-1', 'CTRL\u0001', 'ok-2', 'c1\u0085'])
    await waitFor(() => t.stats.batches >= 8, 'eight batches', 15_000)
    // Long enough for the old disconnect loop (Mosquitto closes the connection on the topic).
    await sleep(2000)
    expect(events.filter((e) => e === 'disconnected')).toEqual([])
    expect(events.filter((e) => e.startsWith('found')).sort()).toEqual(['found ok-1', 'found ok-2'])
    expect(t.stats.malformed).toBeGreaterThanOrEqual(2 * t.stats.batches)
    const retained = await retainedMessages(broker.url, `${prefix}/fleet/beacons/#`)
    expect([...retained.keys()].sort()).toEqual([`${prefix}/fleet/beacons/ok-1`, `${prefix}/fleet/beacons/ok-2`])
    // States keep flowing: published grows while the gateway talks.
    const published = t.stats.published
    await waitFor(() => t.stats.published > published, 'more fleet states', 10_000)
    expect(t.stats.refused).toEqual({ invalid_topic: 0, broker_refused: 0, poison: 0 })
  })

  it('batches stamped 1e15, -1e15 and a few hours off do not make beacons go', async () => {
    const { t, prefix, events } = await tracker({ hearingMs: 2000, goneTimeoutMs: 4000 })
    const hostile = await client()
    await gateway(prefix, 'g1', () => ['b1', 'b2', 'b3'])
    await waitFor(() => t.beacons().length === 3, 'three beacons', 10_000)
    const poison = (time: number): Promise<unknown> => hostile.publishAsync(`${prefix}/gateways/g1/rssi`, JSON.stringify({ gateway: 'g1', time, readings: [] }), { qos: 1 })
    await poison(1e15)
    await poison(-1e15)
    for (const hours of [1, 5, -3]) {
      await sleep(700)
      await poison(Date.now() + hours * 3600_000)
    }
    // Two gone timeouts after the first poison: with it taking the offset, every beacon went.
    await sleep(6000)
    expect(events.filter((e) => e.startsWith('gone'))).toEqual([])
    expect(t.beacons().map((b) => b.gateways.map((g) => g.gateway).join())).toEqual(['g1', 'g1', 'g1'])
    expect(t.stats.clockRejected).toBe(2)
    expect(Math.abs(t.clockOffset('g1') ?? Infinity)).toBeLessThan(60_000)
  })

  it('a flood of fake online statuses cannot keep a site gateway out; a 10 kB status id is refused', async () => {
    const site = Site.fromJSON({ gateways: { 'site-gw': {} }, rooms: { Hall: ['site-gw'] } })
    const { t, prefix } = await tracker({ site, maxGateways: 100 })
    const flood = await client()
    const online = JSON.stringify({ state: 'online', time: Date.now() })
    // Under Mosquitto's default max_queued_messages (1000) for the tracker: a slow (loaded) tracker
    // would see the broker drop the rest of a larger flood, and the count below never be reached.
    await Promise.all(Array.from({ length: 900 }, (_, i) => flood.publishAsync(`${prefix}/gateways/fake-${i}/status`, online, { qos: 1 })))
    await flood.publishAsync(`${prefix}/gateways/${'x'.repeat(10_000)}/status`, online, { qos: 1 })
    await waitFor(() => t.stats.droppedGateways >= 800 && t.stats.invalidIds >= 1, 'the flood counted', 15_000)
    expect(t.stats.gateways).toBe(100)
    await gateway(prefix, 'site-gw', () => ['real-1'])
    await waitFor(() => t.get('real-1') !== undefined, 'the site gateway\'s beacon found', 10_000)
    expect(t.get('real-1')?.gateways.map((g) => g.gateway)).toEqual(['site-gw'])
    expect(t.stats.gateways).toBe(100)
  })

  it('a retained RSSI batch an earlier run left, or a batch the fleet refuses, is no "not in the site" warning (#35)', async () => {
    const site = Site.fromJSON({ gateways: { 'site-gw': {} }, rooms: { Hall: ['site-gw'] } })
    // The prefix the next tracker() takes: the leftover is there before the tracker subscribes.
    const next = `hostile-${process.pid}-${prefixes + 1}`
    const old = await client()
    const hourAgo = Date.now() - 3_600_000
    const leftover = { gateway: 'old-gw', time: hourAgo, readings: [{ id: 'old-tag', rssi: -60, lastSeen: hourAgo, count: 1 }] }
    await old.publishAsync(`${next}/gateways/old-gw/rssi`, JSON.stringify(leftover), { qos: 1, retain: true })
    const unknown: string[] = []
    const { t, prefix } = await tracker({ site })
    expect(prefix).toBe(next)
    t.on('unknownGateway', (e) => unknown.push(e.gateway))
    const live = await client()
    // Stamped at 1970: refused (clockRejected), so it says nothing about a gateway.
    const junk = { gateway: 'junk-gw', time: 0, readings: [{ id: 'j', rssi: -60, lastSeen: 0, count: 1 }] }
    await live.publishAsync(`${prefix}/gateways/junk-gw/rssi`, JSON.stringify(junk), { qos: 1 })
    await gateway(prefix, 'stranger', () => ['s'])
    await waitFor(() => t.get('s') !== undefined && t.stats.clockRejected >= 1, 'the stranger\'s beacon and the refused batch', 10_000)
    await sleep(500)
    expect(unknown).toEqual(['stranger'])
    expect(t.get('old-tag')).toBeUndefined()
    expect(t.stats.retainedBatches).toBe(1)
    await old.publishAsync(`${next}/gateways/old-gw/rssi`, '', { qos: 1, retain: true })
  })

  it('gateways the tracker forgets leave the map\'s snapshot and the CLI\'s counts too', async () => {
    const { t, prefix } = await tracker({ hearingMs: 1000, gatewayForgetMs: 1000 })
    const counts = new FleetGatewayCounts()
    t.on('gateway', (e) => counts.apply(e))
    const map = await startMapServer({ fleet: t, port: 0, flushIntervalMs: 200 })
    try {
      const statuses = await client()
      const offline = JSON.stringify({ state: 'offline', time: Date.now() })
      await Promise.all(Array.from({ length: 300 }, (_, i) => statuses.publishAsync(`${prefix}/gateways/gone-${i}/status`, offline, { qos: 1 })))
      await waitFor(() => counts.known === 300, 'the CLI counts 300 gateways', 10_000)
      expect((await getJson<LiveSnapshot>(`${map.url}api/snapshot`)).gateways.length).toBe(300)
      // A real gateway that keeps sending stays everywhere.
      await gateway(prefix, 'live', () => ['b1'])
      await waitFor(() => t.stats.gateways === 1 && counts.known === 1, 'the silent ones forgotten', 10_000)
      const snap = await getJson<LiveSnapshot>(`${map.url}api/snapshot`)
      expect(snap.gateways.map((g) => g.id)).toEqual(['live'])
      expect(counts.online).toBe(1)
    } finally {
      await map.close()
    }
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('Publishes the broker refuses are dropped and counted, never retried for ever'), () => {
  let broker: Mosquitto
  let prefix = ''

  beforeAll(async () => {
    prefix = `refused-${process.pid}`
    broker = await Mosquitto.start({
      extra: [
        // A publish larger than this makes Mosquitto close the connection (any protocol version).
        'max_packet_size 600',
      ],
    })
    const { writeFile } = await import('node:fs/promises')
    const acl = `${broker.dir}/acl`
    await writeFile(acl, `topic deny ${prefix}/fleet/beacons/denied\ntopic readwrite #\n`)
    const { appendFile } = await import('node:fs/promises')
    await appendFile(`${broker.dir}/mosquitto.conf`, `acl_file ${acl}\n`)
    await broker.restart()
  })

  afterAll(async () => {
    await broker?.close()
  })

  it('an ACL-denied topic (MQTT 5 PUBACK 0x87) and a packet the broker closes the connection on are dropped; later states flow', async () => {
    const t = new FleetTracker({ url: broker.url, topicPrefix: prefix, publishIntervalMs: 1000, reconnect: { initialDelayMs: 200, maxDelayMs: 400 } })
    const errors: string[] = []
    let disconnects = 0
    t.on('error', (e) => errors.push((e as { code?: string }).code ?? e.message))
    t.on('disconnected', () => disconnects++)
    const gw = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 0 })
    const timer = setInterval(() => {
      const time = Date.now()
      // `big` is heard with a long list of fields: its fleet state is larger than max_packet_size.
      const readings = ['ok', 'denied', 'big'].map((id) => ({ id, rssi: -60, lastSeen: time - 50, count: 1 }))
      gw.publish(`${prefix}/gateways/g1/rssi`, JSON.stringify({ gateway: 'g1', time, readings }), { qos: 0 })
      for (let i = 0; i < 8; i++) gw.publish(`${prefix}/gateways/gateway-with-a-long-name-${i}/rssi`, JSON.stringify({ gateway: `gateway-with-a-long-name-${i}`, time, readings: [{ id: 'big', rssi: -70, lastSeen: time - 50, count: 1 }] }), { qos: 0 })
    }, 500)
    try {
      await t.start()
      await waitFor(() => t.stats.refused.broker_refused >= 1, 'the denied state refused', 15_000)
      await waitFor(() => t.stats.refused.poison >= 1, 'the oversized state given up', 30_000)
      const disconnectsThen = disconnects
      const published = t.stats.published
      await waitFor(() => t.stats.published >= published + 3, 'states flowing after', 15_000)
      // No loop: the connection holds once the poison is out (a new oversized state is a new poison, given up the same way).
      expect(disconnects - disconnectsThen).toBeLessThanOrEqual(3)
      const retained = await retainedMessages(broker.url, `${prefix}/fleet/beacons/#`)
      expect(retained.has(`${prefix}/fleet/beacons/ok`)).toBe(true)
      expect(retained.has(`${prefix}/fleet/beacons/denied`)).toBe(false)
      // What the broker holds for `big` is its last state that fit (before the other gateways heard it).
      expect(retained.get(`${prefix}/fleet/beacons/big`)?.length ?? 0).toBeLessThan(600)
      // Reported once per reason, counted after.
      expect(errors.filter((e) => e === 'publish_refused')).toHaveLength(2)
    } finally {
      clearInterval(timer)
      await t.stop(1000)
      await gw.endAsync()
    }
  })
})
