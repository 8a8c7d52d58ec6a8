// Prometheus /metrics and /healthz of a gateway (src/metrics/, served by web/metrics-server.ts
// and beside the live map): real HTTP on loopback, a real replay, a real Mosquitto for the
// broker's state. Every number scraped is compared with the part's own stats.
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGateway } from '../../src/gateway/start-gateway.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { freePort, Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { PushSource } from '../support/push-source.js'
import { get, sample } from './scrape.js'
import { PACKAGE_VERSION } from '../../src/mqtt/payloads.js'

const DEMO = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))
const quiet = { warn: () => undefined, stderr: { write: () => true } }

describe('metrics of a gateway', () => {
  it('counts on /metrics exactly the advertisements the replay delivered, with HELP text and the process metrics', async () => {
    const source = new ReplaySource(DEMO, { virtual: true })
    const gateway = await startGateway({ source, metrics: { listen: '127.0.0.1:0' } }, quiet)
    try {
      const url = gateway.metricsServer?.url as string
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
      await gateway.start()
      await gateway.scanner.drain()
      const answer = await get(url)
      expect(answer.status).toBe(200)
      expect(answer.type).toBe('text/plain; version=0.0.4; charset=utf-8')
      expect(source.stats.advertisements).toBeGreaterThan(1000)
      expect(sample(answer.body, 'beaconkit_advertisements_total{source="replay"}')).toBe(source.stats.advertisements)
      const stats = gateway.scanner.stats
      expect(sample(answer.body, 'beaconkit_decode_rejects_total{reason="malformed"}')).toBe(stats.malformed)
      for (const [reason, n] of Object.entries(stats.secure.rejected)) expect(sample(answer.body, `beaconkit_decode_rejects_total{reason="${reason}"}`)).toBe(n)
      // The replay ended with every beacon gone.
      expect(sample(answer.body, 'beaconkit_beacons_tracked')).toBe(0)
      expect(answer.body).toContain('# HELP beaconkit_advertisements_total Advertisements the scanner received')
      expect(answer.body).toContain('# TYPE beaconkit_advertisements_total counter')
      expect(sample(answer.body, 'beaconkit_process_cpu_user_seconds_total')).toBeGreaterThan(0)
      // Which build runs (#35): one series, the package's version as its label.
      expect(sample(answer.body, `beaconkit_build_info{version="${PACKAGE_VERSION}"}`)).toBe(1)
      expect(answer.body).toContain('# TYPE beaconkit_build_info gauge')
      // No MQTT or upload configured: none of their series.
      expect(answer.body).not.toContain('beaconkit_mqtt_')
      expect(answer.body).not.toContain('beaconkit_upload_')
      // A finished replay is a source that no longer runs.
      const health = await get(url.replace('/metrics', '/healthz'))
      expect(health.status).toBe(503)
      expect(JSON.parse(health.body)).toEqual({ status: 'unhealthy', checks: { source: { ok: false, state: 'ended' } }, reasons: ['source: ended'] })
      expect((await get(url.replace('/metrics', '/other'))).status).toBe(404)
    } finally {
      await gateway.stop()
    }
  })

  it('serves /metrics and /healthz beside the live map (--http), with the map\'s token off loopback', async () => {
    const source = new PushSource()
    const gateway = await startGateway({ source, http: { listen: '0.0.0.0:0', token: 'metrics-token-0123456789' } }, quiet)
    try {
      const base = `http://127.0.0.1:${gateway.web?.port as number}`
      expect(gateway.metricsServer).toBeUndefined()
      expect((await get(`${base}/metrics`)).status).toBe(401)
      expect((await get(`${base}/healthz`)).status).toBe(401)
      expect((await get(`${base}/metrics`, 'metrics-token-0123456789-wrong')).status).toBe(401)
      // Not started yet: unhealthy, and says why.
      const before = await get(`${base}/healthz`, 'metrics-token-0123456789')
      expect(before.status).toBe(503)
      expect(JSON.parse(before.body)).toMatchObject({ status: 'unhealthy', reasons: ['source: not started'] })
      await gateway.start()
      const after = await get(`${base}/healthz`, 'metrics-token-0123456789')
      expect(after.status).toBe(200)
      expect(JSON.parse(after.body)).toEqual({ status: 'ok', checks: { source: { ok: true, state: 'running' } } })
      // An adapter that powers off makes it unhealthy; back on, healthy again.
      source.emit('state', 'poweredOff')
      expect(JSON.parse((await get(`${base}/healthz`, 'metrics-token-0123456789')).body)).toMatchObject({ status: 'unhealthy', checks: { source: { ok: false, state: 'poweredOff' } }, reasons: ['source: adapter poweredOff'] })
      source.emit('state', 'poweredOn')
      expect((await get(`${base}/healthz`, 'metrics-token-0123456789')).status).toBe(200)
      const metrics = await get(`${base}/metrics`, 'metrics-token-0123456789')
      expect(metrics.status).toBe(200)
      expect(sample(metrics.body, 'beaconkit_advertisements_total{source="push"}')).toBe(0)
      // The map's own way (?token=) works as well.
      expect((await get(`${base}/metrics?token=metrics-token-0123456789`)).status).toBe(200)
    } finally {
      await gateway.stop()
    }
  })

  it('requires a token off loopback on its own server: generated, printed once, 401 without it', async () => {
    const lines: string[] = []
    const gateway = await startGateway({ source: new PushSource(), metrics: { listen: '0.0.0.0:0' } }, { warn: () => undefined, stderr: { write: (t: string) => lines.push(t) } })
    try {
      await gateway.start()
      const server = gateway.metricsServer
      expect(server?.tokenRequired).toBe(true)
      const token = server?.generatedToken as string
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/)
      const url = `http://127.0.0.1:${server?.port as number}/metrics`
      expect((await get(url)).status).toBe(401)
      expect((await get(url.replace('/metrics', '/healthz'))).status).toBe(401)
      expect((await get(url, token)).status).toBe(200)
      expect((await get(url.replace('/metrics', '/healthz'), token)).status).toBe(200)
      // The token appears in exactly one line, and never in what the server shows of itself.
      expect(lines.filter((l) => l.includes(token))).toHaveLength(1)
      expect(lines.join('')).toMatch(/metrics at http:\/\/0\.0\.0\.0:\d+\/metrics and \/healthz; a generated access token/)
      expect(JSON.stringify(server)).not.toContain(token)
      const { inspect } = await import('node:util')
      expect(inspect(server)).not.toContain(token)
    } finally {
      await gateway.stop()
    }
  })

  it('never prints a token the user gave', async () => {
    const lines: string[] = []
    const token = 'given-token-abcdefghijklmnop'
    const gateway = await startGateway({ source: new PushSource(), metrics: { listen: '0.0.0.0:0', token } }, { warn: () => undefined, stderr: { write: (t: string) => lines.push(t) } })
    try {
      expect(lines.join('')).not.toContain(token)
      expect(lines.join('')).toContain('send the --metrics-token as Authorization: Bearer')
      expect(gateway.metricsServer?.generatedToken).toBeUndefined()
      expect((await get(`http://127.0.0.1:${gateway.metricsServer?.port as number}/metrics`, token)).status).toBe(200)
    } finally {
      await gateway.stop()
    }
  })

  it('answers 403 on loopback without a token to a request for another host (DNS rebinding)', async () => {
    const gateway = await startGateway({ source: new PushSource(), metrics: { listen: '127.0.0.1:0' } }, quiet)
    try {
      const { request } = await import('node:http')
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: gateway.metricsServer?.port, path: '/metrics', headers: { host: 'evil.example:80' } }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', reject)
        req.end()
      })
      expect(status).toBe(403)
    } finally {
      await gateway.stop()
    }
  })

  it('rolls back the started sinks when the metrics server cannot listen', async () => {
    const first = await startGateway({ source: new PushSource(), metrics: { listen: '127.0.0.1:0' } }, quiet)
    try {
      const taken = first.metricsServer?.port as number
      const mapPort = await freePort()
      await expect(startGateway({ source: new PushSource(), http: { listen: `127.0.0.1:${mapPort}` }, metrics: { listen: `127.0.0.1:${taken}` } }, quiet)).rejects.toMatchObject({ name: 'TemporaryFailureError', code: 'port_in_use' })
      // The map started before it was closed again: its port is free.
      const again = await startGateway({ source: new PushSource(), http: { listen: `127.0.0.1:${mapPort}` } }, quiet)
      await again.stop()
    } finally {
      await first.stop()
    }
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('metrics and /healthz against a real Mosquitto'), () => {
  let mosquitto: Mosquitto

  beforeAll(async () => {
    mosquitto = await Mosquitto.start()
  })

  afterAll(async () => {
    await mosquitto?.close()
  })

  it('says 200 while the broker is connected, 503 with the mqtt reason when it stops, 200 again when it is back', async () => {
    const source = new PushSource()
    const gateway = await startGateway({ source, gateway: { id: 'health-a' }, mqtt: { url: mosquitto.url }, metrics: { listen: '127.0.0.1:0' } }, quiet)
    try {
      const publisher = gateway.mqtt?.publisher
      if (publisher === undefined) throw new Error('no publisher')
      await gateway.start()
      const url = (gateway.metricsServer?.url as string).replace('/metrics', '/healthz')
      const up = await get(url)
      expect(up.status).toBe(200)
      expect(JSON.parse(up.body)).toEqual({ status: 'ok', checks: { source: { ok: true, state: 'running' }, mqtt: { ok: true, state: 'connected' } } })
      const metrics = await get(gateway.metricsServer?.url as string)
      expect(sample(metrics.body, 'beaconkit_mqtt_connected')).toBe(1)
      expect(sample(metrics.body, 'beaconkit_mqtt_messages_sent_total')).toBe(publisher.stats.messages)
      expect(sample(metrics.body, 'beaconkit_mqtt_queue_depth')).toBe(publisher.stats.pending)
      expect(sample(metrics.body, 'beaconkit_mqtt_dropped_total{kind="event"}')).toBe(0)

      const down = new Promise<void>((resolve) => publisher.once('disconnected', () => resolve()))
      await mosquitto.stop()
      await down
      const away = await get(url)
      expect(away.status).toBe(503)
      const body = JSON.parse(away.body) as { status: string; checks: { mqtt: { ok: boolean } }; reasons: string[] }
      expect(body.status).toBe('unhealthy')
      expect(body.checks.mqtt.ok).toBe(false)
      expect(body.reasons).toHaveLength(1)
      expect(body.reasons[0]).toMatch(/^mqtt: broker not connected \((offline|connecting)\)$/)
      expect(sample((await get(gateway.metricsServer?.url as string)).body, 'beaconkit_mqtt_connected')).toBe(0)

      const back = new Promise<void>((resolve) => publisher.once('connected', () => resolve()))
      await mosquitto.restart()
      await back
      expect((await get(url)).status).toBe(200)
    } finally {
      await gateway.stop()
    }
  })
})
