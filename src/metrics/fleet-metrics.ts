/**
 * The fleet tracker's metrics, read from its existing `stats` and fused view at scrape time.
 *
 * The fusion delay is not a histogram: the tracker records no per-batch delay, and observing one
 * would add work to its ingest path. What stands in, from the fused view as it is, is the age of
 * each present beacon's freshest reading (`beaconkit_fleet_reading_age_seconds`, quantiles over
 * beacons; tracker clock, gateway clocks corrected): how far behind the fused view runs.
 */
import type * as PromClient from 'prom-client'
import type { FleetBeacon } from '../fleet/fleet-beacon.js'
import { registerRefused } from './gateway-metrics.js'
import type { Prom } from './gateway-metrics.js'
import type { MetricsSources } from './sources.js'

const QUANTILES = [0.5, 0.9, 1] as const

/** The value at quantile `q` of `sorted` (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

/** Sets one series per quantile of `values` on `gauge`, none when there are no values. */
function setQuantiles(gauge: PromClient.Gauge<'quantile'>, values: number[]): void {
  gauge.reset()
  if (values.length === 0) return
  values.sort((a, b) => a - b)
  for (const q of QUANTILES) gauge.set({ quantile: String(q) }, quantile(values, q))
}

/** Seconds since the freshest reading behind each beacon, on the tracker's clock. */
function readingAges(beacons: readonly FleetBeacon[], now: number): number[] {
  return beacons.map((b) => Math.max(0, now - Math.max(...b.gateways.map((g) => g.lastSeen), b.lastSeen)) / 1000)
}

/**
 * Registers the fleet metrics of `parts.tracker` in `registry`; `connected` says whether the
 * tracker's broker connection is up (the tracker reports it by events, see health.ts).
 */
export function registerFleetMetrics(
  prom: Prom,
  registry: PromClient.Registry,
  parts: MetricsSources,
  connected: () => boolean,
): void {
  const tracker = parts.tracker
  if (tracker === undefined) return
  const registers = [registry]
  new prom.Counter({
    name: 'beaconkit_fleet_observations_total',
    help: "Readings the fleet tracker fused from the gateways' RSSI batches (rate() gives observations per second).",
    registers,
    collect() {
      this.reset()
      this.inc(tracker.stats.observations)
    },
  })
  new prom.Gauge({
    name: 'beaconkit_beacons_tracked',
    help: 'Beacons in the range table now (gateway) or present in the fused view (fleet).',
    registers,
    collect() {
      this.set(tracker.beacons().length)
    },
  })
  new prom.Gauge({
    name: 'beaconkit_fleet_reading_age_seconds',
    help:
      "Age of each present beacon's freshest fused reading, by quantile over beacons: how far the fused " +
      'view lags (stands in for a fusion delay histogram).',
    labelNames: ['quantile'],
    registers,
    collect() {
      setQuantiles(this, readingAges(tracker.beacons(), tracker.clock.now()))
    },
  })
  new prom.Gauge({
    name: 'beaconkit_fleet_position_accuracy_meters',
    help: "The positioner's error estimate (accuracy radius) of the placed beacons, by quantile over beacons.",
    labelNames: ['quantile'],
    registers,
    collect() {
      const radii: number[] = []
      for (const b of tracker.beacons())
        if (b.position !== undefined && Number.isFinite(b.position.accuracy)) radii.push(b.position.accuracy)
      setQuantiles(this, radii)
    },
  })
  new prom.Counter({
    name: 'beaconkit_fleet_positions_deferred_total',
    help:
      "Ticks' room decisions made from a beacon's previous position because positioning ran out of its " +
      'time (rate() above 0: the tracker is short of CPU for its positions).',
    registers,
    collect() {
      this.reset()
      this.inc(tracker.stats.positionsDeferred)
    },
  })
  new prom.Counter({
    name: 'beaconkit_fleet_positioning_dropped_total',
    help:
      'Readings the positioning thread did not take because too many were waiting for it (only with ' +
      'positioning on a worker thread).',
    registers,
    collect() {
      this.reset()
      this.inc(tracker.stats.positioningThread?.dropped ?? 0)
    },
  })
  new prom.Counter({
    name: 'beaconkit_fleet_clock_rejected_total',
    help:
      'RSSI batches refused because their time was more than maxClockOffsetMs from their arrival (a ' +
      'gateway clock NTP has not set, or a recording replayed on its own clock).',
    registers,
    collect() {
      this.reset()
      this.inc(tracker.stats.clockRejected)
    },
  })
  new prom.Gauge({
    name: 'beaconkit_fleet_gateways_clock_refused',
    help:
      'Gateways whose RSSI batches are refused for their clock now (above 0: none of their beacons ' +
      'shows; the fleet log says which).',
    registers,
    collect() {
      this.set(tracker.stats.clockRefusedGateways)
    },
  })
  new prom.Gauge({
    name: 'beaconkit_fleet_gateway_up',
    help:
      "Whether each of the site's gateways is online (1) or not (0: offline, or not heard within gatewayForgetMs); " +
      'labels from the site file only, none without a site.',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset()
      const gateways = tracker.gatewaySummary()
      // A gateway id off the network is never a label: anyone can publish a status under any id.
      if (!gateways.fromSite) return
      for (const g of gateways.counted) this.set({ gateway: g.id }, g.state === 'online' ? 1 : 0)
    },
  })
  new prom.Gauge({
    name: 'beaconkit_mqtt_connected',
    help: 'Whether the broker connection is up (1) or not (0).',
    registers,
    collect() {
      this.set(connected() ? 1 : 0)
    },
  })
  new prom.Counter({
    name: 'beaconkit_mqtt_messages_sent_total',
    help: "MQTT messages handed to the broker (the fleet's states, presences and discovery).",
    registers,
    collect() {
      this.reset()
      this.inc(tracker.stats.published)
    },
  })
  registerRefused(prom, registers, () => tracker.stats.refused)
}
