// Prometheus /metrics and /healthz of a fleet (startFleet with --metrics): RSSI batches of four
// gateways through a real Mosquitto; the scraped counters are the tracker's own stats, the
// accuracy is its positioner's, and /healthz follows the tracker's broker connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { startFleet } from '../../src/gateway/start-fleet.js'
import { DEFAULT_PATH_LOSS, rssiAt } from '../../src/positioning/path-loss.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { waitFor } from '../integration/wait.js'
import { get, sample } from './scrape.js'
import { PACKAGE_VERSION } from '../../src/mqtt/payloads.js'

const GATEWAYS = { nw: { x: 0, y: 10, z: 2.5 }, ne: { x: 12, y: 10, z: 2.5 }, sw: { x: 0, y: 0, z: 2.5 }, se: { x: 12, y: 0, z: 2.5 } }
const TRUTH = { x: 4, y: 6 }

describe.skipIf(!MOSQUITTO)(needsMosquitto('fleet metrics and /healthz against a real Mosquitto'), () => {
  let broker: Mosquitto
  let raw: MqttClient

  beforeAll(async () => {
    broker = await Mosquitto.start()
    raw = await mqtt.connectAsync(broker.url, { clientId: 'fleet-metrics-raw', reconnectPeriod: 0 })
  })

  afterAll(async () => {
    await raw?.endAsync()
    await broker?.close()
  })

  it('reports observations, beacons, accuracy and the broker connection; /healthz turns 503 without the broker', async () => {
    const site = { gateways: GATEWAYS, area: { minX: 0, minY: 0, maxX: 12, maxY: 10 } }
    const fleet = await startFleet({ mqtt: { url: broker.url, clientId: 'fleet-metrics' }, site, metrics: { listen: '127.0.0.1:0' } }, { warn: () => undefined, stderr: { write: () => true } })
    const tracker = fleet.tracker
    const url = fleet.metricsServer?.url as string
    const healthz = url.replace('/metrics', '/healthz')
    let pusher: NodeJS.Timeout | undefined
    try {
      const before = await get(healthz)
      expect(before.status).toBe(503)
      expect(JSON.parse(before.body)).toMatchObject({ reasons: ['mqtt: broker not connected (fleet tracker)'] })
      // A forged status of a gateway the site does not list: never a label, never in /healthz (#35).
      await raw.publishAsync('beaconkit/gateways/forged/status', JSON.stringify({ state: 'online', time: Date.now(), version: '0' }), { qos: 1, retain: true })
      await fleet.start()
      const up = await get(healthz)
      // The site's gateways not heard yet are listed; the status code stays the broker's (docs/metrics.md).
      expect(up.status).toBe(200)
      expect(JSON.parse(up.body)).toEqual({ status: 'ok', checks: { mqtt: { ok: true, state: 'connected' } }, offlineGateways: ['nw', 'ne', 'sw', 'se'] })
      const idle = (await get(url)).body
      for (const id of Object.keys(GATEWAYS)) expect(sample(idle, `beaconkit_fleet_gateway_up{gateway="${id}"}`)).toBe(0)

      pusher = setInterval(() => {
        const now = Date.now()
        for (const [id, g] of Object.entries(GATEWAYS)) {
          const rssi = Math.round(rssiAt(DEFAULT_PATH_LOSS, Math.hypot(g.x - TRUTH.x, g.y - TRUTH.y, g.z - 1.2)))
          raw.publish(`beaconkit/gateways/${id}/rssi`, JSON.stringify({ gateway: id, time: now, readings: [{ id: 'tag-1', rssi, lastSeen: now, count: 1 }] }), { qos: 0 })
        }
      }, 100)
      await waitFor(() => tracker.get('tag-1')?.position !== undefined, 'the tracker places tag-1', 20_000)
      clearInterval(pusher)

      const low = tracker.stats.observations
      const text = (await get(url)).body
      const high = tracker.stats.observations
      const observations = sample(text, 'beaconkit_fleet_observations_total') as number
      expect(observations).toBeGreaterThanOrEqual(low)
      expect(observations).toBeLessThanOrEqual(high)
      expect(low).toBeGreaterThan(0)
      expect(sample(text, 'beaconkit_beacons_tracked')).toBe(1)
      expect(sample(text, 'beaconkit_mqtt_connected')).toBe(1)
      expect(sample(text, 'beaconkit_mqtt_messages_sent_total')).toBeGreaterThan(0)
      const accuracy = sample(text, 'beaconkit_fleet_position_accuracy_meters{quantile="0.5"}') as number
      expect(accuracy).toBeGreaterThan(0)
      expect(sample(text, 'beaconkit_fleet_position_accuracy_meters{quantile="1"}')).toBe(accuracy)
      expect(sample(text, 'beaconkit_fleet_reading_age_seconds{quantile="0.5"}')).toBeGreaterThanOrEqual(0)
      expect(sample(text, 'beaconkit_fleet_positions_deferred_total')).toBe(0)
      expect(sample(text, 'beaconkit_fleet_positioning_dropped_total')).toBe(0)
      expect(sample(text, 'beaconkit_fleet_clock_rejected_total')).toBe(0)
      expect(sample(text, 'beaconkit_fleet_gateways_clock_refused')).toBe(0)

      // A gateway replaying a recording of 2026-01-01 on its own clock: refused, and counted.
      const recorded = 1_767_254_400_000
      for (let i = 0; i < 2; i++) raw.publish('beaconkit/gateways/replayed/rssi', JSON.stringify({ gateway: 'replayed', time: recorded + i, readings: [{ id: 'tag-9', rssi: -60, lastSeen: recorded + i, count: 1 }] }), { qos: 1 })
      await waitFor(() => tracker.stats.clockRejected === 2, 'the tracker refuses both batches', 10_000)
      const refused = (await get(url)).body
      expect(sample(refused, 'beaconkit_fleet_clock_rejected_total')).toBe(2)
      expect(sample(refused, 'beaconkit_fleet_gateways_clock_refused')).toBe(1)
      expect(text).toContain('# TYPE beaconkit_fleet_observations_total counter')
      expect(text).not.toContain('beaconkit_advertisements_total')
      // Each site gateway up (its batches say so), labels from the site only; the build's version.
      for (const id of Object.keys(GATEWAYS)) expect(sample(text, `beaconkit_fleet_gateway_up{gateway="${id}"}`)).toBe(1)
      await waitFor(() => tracker.gatewaySummary().others.length === 1, 'the forged status read', 10_000)
      expect((await get(url)).body).not.toContain('forged')
      expect(sample(text, `beaconkit_build_info{version="${PACKAGE_VERSION}"}`)).toBe(1)
      const healthy = JSON.parse((await get(healthz)).body) as { offlineGateways?: string[] }
      expect(healthy.offlineGateways).toEqual([])

      const down = new Promise<void>((resolve) => tracker.once('disconnected', () => resolve()))
      await broker.stop()
      await down
      const away = await get(healthz)
      expect(away.status).toBe(503)
      expect(JSON.parse(away.body)).toMatchObject({
        status: 'unhealthy',
        checks: { mqtt: { ok: false, state: 'not connected' } },
        reasons: ['mqtt: broker not connected (fleet tracker)'],
      })
      expect(sample((await get(url)).body, 'beaconkit_mqtt_connected')).toBe(0)
      const back = new Promise<void>((resolve) => tracker.once('connected', () => resolve()))
      await broker.restart()
      await back
      expect((await get(healthz)).status).toBe(200)
      raw = await mqtt.connectAsync(broker.url, { clientId: 'fleet-metrics-raw', reconnectPeriod: 0 })
    } finally {
      if (pusher !== undefined) clearInterval(pusher)
      await fleet.stop()
    }
  })
})
