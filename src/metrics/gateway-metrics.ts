/**
 * The gateway's metrics: the scanner (advertisements by source, beacons tracked, decode rejects
 * by reason), the MQTT publisher (queue, drops, refusals, connection, messages) and the cloud
 * uploader (queue depth, drops). Each metric's `collect()` reads the part's existing `stats` when
 * Prometheus scrapes; nothing is counted twice and the ingest path is untouched.
 */
import type * as PromClient from 'prom-client'
import { PACKAGE_VERSION } from '../mqtt/payloads.js'
import type { MetricsSources } from './sources.js'
import { sourceLabel } from './sources.js'
import { registerIdentityMetrics } from './identity-metrics.js'

/** prom-client as loaded by `await import('prom-client')`. */
export type Prom = typeof PromClient

/** `beaconkit_build_info{version}` 1: which build runs, on a gateway's metrics and a fleet's alike. */
export function registerBuildInfo(prom: Prom, registry: PromClient.Registry): void {
  const info = new prom.Gauge({
    name: 'beaconkit_build_info',
    help: "Always 1; the version label is the running beaconkit package's version.",
    labelNames: ['version'],
    registers: [registry],
  })
  info.set({ version: PACKAGE_VERSION }, 1)
}

/** Registers the scanner, MQTT and upload metrics of `parts` that exist in `registry`. */
export function registerGatewayMetrics(prom: Prom, registry: PromClient.Registry, parts: MetricsSources): void {
  const registers = [registry]
  const { scanner, mqtt, uploader } = parts
  if (scanner !== undefined) {
    const source = sourceLabel(parts.source)
    new prom.Counter({
      name: 'beaconkit_advertisements_total',
      help: 'Advertisements the scanner received from its source (rate() gives advertisements per second).',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset()
        this.inc({ source }, scanner.stats.advertisements)
      },
    })
    new prom.Gauge({
      name: 'beaconkit_beacons_tracked',
      help: 'Beacons in the range table now (gateway) or present in the fused view (fleet).',
      registers,
      collect() {
        this.set(scanner.stats.range.tracked)
      },
    })
    new prom.Counter({
      name: 'beaconkit_decode_rejects_total',
      help:
        'Advertisements or frames rejected: malformed envelopes, and encrypted frames by the first ' +
        'check that failed.',
      labelNames: ['reason'],
      registers,
      collect() {
        const s = scanner.stats
        this.reset()
        this.inc({ reason: 'malformed' }, s.malformed)
        for (const [reason, n] of Object.entries(s.secure.rejected)) this.inc({ reason }, n)
      },
    }) // With an IRK file: its resolver's counters (never a name or a key).
    if (scanner.stats.identities !== undefined) registerIdentityMetrics(prom, registers, () => scanner.stats.identities)
  }
  if (mqtt !== undefined) {
    new prom.Gauge({
      name: 'beaconkit_mqtt_queue_depth',
      help: 'MQTT messages waiting for the broker (not yet acknowledged).',
      registers,
      collect() {
        this.set(mqtt.stats.pending)
      },
    })
    new prom.Gauge({
      name: 'beaconkit_mqtt_disk_queue_depth',
      help: 'Events in the MQTT disk queue (with a queue directory): written, not yet acknowledged by the broker.',
      registers,
      collect() {
        this.set(mqtt.stats.diskQueued ?? 0)
      },
    })
    new prom.Counter({
      name: 'beaconkit_mqtt_dropped_total',
      help: 'MQTT events dropped (queue full, closed, disk damage) and RSSI batches dropped while offline.',
      labelNames: ['kind'],
      registers,
      collect() {
        const d = mqtt.stats.dropped
        this.reset()
        this.inc({ kind: 'event' }, d.event)
        this.inc({ kind: 'rssi' }, d.rssi)
      },
    })
    registerRefused(prom, registers, () => mqtt.stats.refused)
    new prom.Gauge({
      name: 'beaconkit_mqtt_connected',
      help: 'Whether the broker connection is up (1) or not (0).',
      registers,
      collect() {
        this.set(mqtt.stats.state === 'connected' ? 1 : 0)
      },
    })
    new prom.Counter({
      name: 'beaconkit_mqtt_messages_sent_total',
      help: 'MQTT messages handed to the broker (QoS 1: acknowledged).',
      registers,
      collect() {
        this.reset()
        this.inc(mqtt.stats.messages)
      },
    })
  }
  if (uploader !== undefined) {
    new prom.Gauge({
      name: 'beaconkit_upload_queue_depth',
      help: 'Records in the upload queue, waiting for the account interface.',
      registers,
      collect() {
        this.set(uploader.pending)
      },
    })
    new prom.Counter({
      name: 'beaconkit_upload_dropped_total',
      help: 'Upload records lost: disk bound, rejection, close with a memory queue, or damage.',
      registers,
      collect() {
        this.reset()
        this.inc(uploader.stats.dropped)
      },
    })
  }
}

/**
 * `beaconkit_mqtt_refused_total{reason}`: what the broker will never take, read from a
 * publisher's or a tracker's `stats.refused` at scrape time (both count refusals alike).
 */
export function registerRefused(
  prom: Prom,
  registers: PromClient.Registry[],
  refused: () => Readonly<Record<string, number>>,
): void {
  new prom.Counter({
    name: 'beaconkit_mqtt_refused_total',
    help:
      'MQTT messages the broker will never take (invalid topic, refusing PUBACK, poison), by reason; ' +
      'never retried.',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset()
      for (const [reason, n] of Object.entries(refused())) this.inc({ reason }, n)
    },
  })
}
