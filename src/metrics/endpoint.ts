/**
 * `/metrics` and `/healthz` as answers, without a server: the live map's server and the metrics
 * server of its own (web/metrics-server.ts) both serve them, each with its own access rule.
 * prom-client is loaded on the first scrape (or by {@link MetricsEndpoint.ready}), never by
 * importing this module, and the registry is this endpoint's own, never prom-client's global one.
 */
import type * as PromClient from 'prom-client'
import { registerFleetMetrics } from './fleet-metrics.js'
import { registerRoomMetrics } from './room-metrics.js'
import { registerBuildInfo, registerGatewayMetrics } from './gateway-metrics.js'
import { Health } from './health.js'
import type { MetricsSources } from './sources.js'

/** An answer to send as it is. */
export interface MetricsResponse {
  status: number
  contentType: string
  body: string
}

/** The metrics and health of one gateway or fleet. */
export class MetricsEndpoint {
  /** What `/healthz` reports; the composition root tells it when the source starts and stops. */
  readonly health: Health
  private registry: Promise<PromClient.Registry> | undefined

  constructor(private readonly parts: MetricsSources) {
    this.health = new Health(parts)
  }

  /** Loads prom-client and builds the registry now (the first scrape does it otherwise). */
  async ready(): Promise<void> {
    await this.load()
  }

  private load(): Promise<PromClient.Registry> {
    this.registry ??= (async () => {
      const prom = await import('prom-client')
      const registry = new prom.Registry()
      prom.collectDefaultMetrics({ register: registry, prefix: 'beaconkit_' })
      registerBuildInfo(prom, registry)
      registerGatewayMetrics(prom, registry, this.parts)
      registerFleetMetrics(prom, registry, this.parts, () => this.health.trackerConnected)
      if (this.parts.rooms !== undefined) registerRoomMetrics(prom, registry, this.parts.rooms)
      return registry
    })()
    return this.registry
  }

  /** The exposition text of every metric, read now. */
  async metrics(): Promise<string> {
    return (await this.load()).metrics()
  }

  /** The answer for `pathname`, or undefined when it is neither `/metrics` nor `/healthz`. */
  async respond(pathname: string): Promise<MetricsResponse | undefined> {
    if (pathname === '/healthz') {
      const report = this.health.report()
      return {
        status: report.status === 'ok' ? 200 : 503,
        contentType: 'application/json; charset=utf-8',
        body: `${JSON.stringify(report)}\n`,
      }
    }
    if (pathname === '/metrics') {
      const registry = await this.load()
      return { status: 200, contentType: registry.contentType, body: await registry.metrics() }
    }
    return undefined
  }

  /** Stops watching the parts and empties the registry. */
  close(): void {
    this.health.close()
    void this.registry?.then(
      (r) => r.clear(),
      () => undefined,
    )
  }
}
