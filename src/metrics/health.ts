/**
 * `/healthz`: whether the gateway does its job now. The source must run (an adapter powered on)
 * and, when MQTT is configured, the broker must be connected; a fleet needs its tracker's broker
 * connection. Read when asked, from the parts' own state and the events they already emit
 * (state changes, never advertisements), so it costs nothing between requests.
 */
import type { AdapterState } from '../sources/source.js'
import type { MetricsSources } from './sources.js'

/** One part's verdict in a {@link HealthReport}. */
export interface HealthCheck {
  ok: boolean
  /** What the part reports: `running`, `poweredOff`, `connected`, `offline`, … */
  state: string
}

/** The body of `/healthz` (HTTP 200 when `status` is `ok`, 503 otherwise). */
export interface HealthReport {
  status: 'ok' | 'unhealthy'
  checks: Record<string, HealthCheck>
  /** Why it is unhealthy, one line per failing check (`mqtt: broker not connected`); only when unhealthy. */
  reasons?: string[]
  /**
   * A fleet with a site that lists its gateways: the site's gateways not online now (offline, or
   * not heard within `gatewayForgetMs`), in the site's order. Information only: they do not make
   * the fleet unhealthy (the status code stays the broker connection's).
   */
  offlineGateways?: string[]
}

type SourcePhase = 'not started' | 'running' | 'ended' | 'stopped'

/**
 * Watches the parts' state changes and answers {@link Health.report}. The composition root says
 * when the source starts and stops ({@link Health.sourceStarted}); the rest is read from events.
 */
export class Health {
  private phase: SourcePhase = 'not started'
  private adapter: AdapterState | undefined
  #trackerConnected = false
  private readonly off: (() => void)[] = []

  constructor(private readonly parts: MetricsSources) {
    const { source, tracker } = parts
    if (source !== undefined) {
      const onState = (state: AdapterState): void => {
        this.adapter = state
      }
      const onEnd = (): void => {
        this.phase = 'ended'
      }
      source.on('state', onState)
      source.on('end', onEnd)
      this.off.push(() => {
        source.off('state', onState)
        source.off('end', onEnd)
      })
    }
    if (tracker !== undefined) {
      const up = (): void => {
        this.#trackerConnected = true
      }
      const down = (): void => {
        this.#trackerConnected = false
      }
      tracker.on('connected', up)
      tracker.on('disconnected', down)
      this.off.push(() => {
        tracker.off('connected', up)
        tracker.off('disconnected', down)
      })
    }
  }

  /** Whether the fleet tracker's broker connection is up (it says so by events only). */
  get trackerConnected(): boolean {
    return this.#trackerConnected
  }

  /** The source runs (the scanner's start resolved). */
  sourceStarted(): void {
    if (this.phase !== 'ended') this.phase = 'running'
  }

  /** The source was stopped. */
  sourceStopped(): void {
    this.phase = 'stopped'
  }

  /** The verdict now. */
  report(): HealthReport {
    const checks: Record<string, HealthCheck> = {}
    const reasons: string[] = []
    if (this.parts.source !== undefined) {
      // An adapter that never reported a state (a replay, a simulation) is judged by running alone.
      const adapterOff = this.adapter !== undefined && this.adapter !== 'poweredOn'
      const ok = this.phase === 'running' && !adapterOff
      checks.source = { ok, state: this.phase === 'running' && this.adapter !== undefined ? this.adapter : this.phase }
      if (this.phase !== 'running') reasons.push(`source: ${this.phase}`)
      else if (adapterOff) reasons.push(`source: adapter ${this.adapter as string}`)
    }
    if (this.parts.mqtt !== undefined) {
      const state = this.parts.mqtt.stats.state
      checks.mqtt = { ok: state === 'connected', state }
      if (state !== 'connected') reasons.push(`mqtt: broker not connected (${state})`)
    }
    if (this.parts.tracker !== undefined) {
      const state = this.#trackerConnected ? 'connected' : 'not connected'
      checks.mqtt = { ok: this.#trackerConnected, state }
      if (!this.#trackerConnected) reasons.push('mqtt: broker not connected (fleet tracker)')
    }
    const report: HealthReport =
      reasons.length === 0 ? { status: 'ok', checks } : { status: 'unhealthy', checks, reasons }
    // Ids from the site file only, never from the network (a forged status names any id).
    const gateways = this.parts.tracker?.gatewaySummary()
    if (gateways?.fromSite === true) {
      report.offlineGateways = gateways.counted.filter((g) => g.state !== 'online').map((g) => g.id)
    }
    return report
  }

  /** Stops watching. */
  close(): void {
    for (const f of this.off.splice(0)) f()
  }
}
