/**
 * The composition root of a gateway: from one configuration it builds the scanner over a source
 * and the sinks that consume its events (cloud upload, MQTT publisher, live map, then the sinks the
 * caller built, then the metrics server), starts them in that order, and stops them in the reverse order. A sink that fails
 * to start closes the ones already started before the error reaches the caller, so no half-built
 * gateway is left running. Every command that runs a gateway (`scan`,
 * `replay`, `simulate`), the examples and a user's own program go through {@link startGateway}.
 */

import { BeaconScanner } from '../scanner/scanner.js'
import type { ScannerOptions } from '../scanner/scanner.js'
import type { ScannerSink } from '../scanner/sink.js'
import type { BeaconFilter } from '../range/filter.js'
import type { Keyring } from '../secure/keyring.js'
import type { AdvertisementSource } from '../sources/source.js'
import type { AccountError } from '../errors.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { MapServer } from '../web/map-server.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { HttpFlags, MetricsFlags, MqttFlags, UploadFlags } from './config.js'
import { MetricsEndpoint } from '../metrics/endpoint.js'
import { startMetrics } from './metrics-sink.js'
import { startMqtt } from './mqtt-sink.js'
import type { RunningMqtt } from './mqtt-sink.js'
import { startUpload } from './upload-sink.js'
import type { RunningUpload } from './upload-sink.js'
import { startWeb } from './web-sink.js'
import { loggerOf } from '../log/logger.js'
import type { Logger } from '../log/logger.js'

/** What {@link startGateway} builds. */
export interface GatewayConfig {
  /** Where advertisements come from: adapters, a recording, a simulation. */
  source: AdvertisementSource
  /** Broadcast keys for private broadcasts (already read: a bad key fails before anything starts). */
  keys?: Keyring
  /** Which beacons the scanner keeps (and so every sink sees). */
  filter?: BeaconFilter
  /** Upload to the platform's account interface. */
  upload?: UploadFlags
  /** Publish to an MQTT broker (and Home Assistant). */
  mqtt?: MqttFlags
  /** Serve the live map (with `/metrics` and `/healthz` beside it). */
  http?: HttpFlags
  /** Serve `/metrics` and `/healthz` on a server of their own (started after every sink). */
  metrics?: MetricsFlags
  /**
   * Start the source right after the upload's account check and before the MQTT connection
   * (default false: the caller starts it with the scanner). For a live adapter: one that cannot
   * be used then fails the start before the broker has heard the gateway say `online`, instead
   * of an `online` followed by an `offline` (and, with a fallback, another gateway's `online`).
   */
  sourceFirst?: boolean
  /** The scanner's timing (default: the scanner's, a 1 s tick and 8 s gone timeout). */
  scanner?: Pick<ScannerOptions, 'updateIntervalMs' | 'goneTimeoutMs'>
  /**
   * Sinks the caller built (e.g. a publisher on a connection of its own, as `runSite` has): each
   * is attached and started (`start()`, if it has one) after the built-in sinks, in this order,
   * and closed in reverse with them. From the moment it is attached the root owns it: a sink
   * whose start fails is closed too; a sink after it is never attached and stays the caller's.
   */
  sinks?: readonly ScannerSink[]
}

/** Where a running gateway reports what the user should know. */
export interface GatewayHooks {
  /**
   * Where the gateway logs passing problems (a broker away, an upload retried: the gateway goes
   * on) and the conditions a user must act on, once when they start and once when they clear.
   */
  log?: Logger
  /** The plain form of {@link GatewayHooks.log} (used when `log` is not given): each warning or cleared condition as text. */
  warn?(text: string): void
  /** Where the live map's address is printed (the only place its token appears). */
  stderr: { write(text: string): unknown }
  /** The account refused the upload mid-run: nothing more will be delivered. */
  onUploadRefused?(error: AccountError): void
}

/** What {@link RunningGateway.stop} found while closing. */
export interface GatewayStopReport {
  /** What the broker had not acknowledged when the MQTT publisher gave up (undefined without MQTT). */
  mqtt?: MqttCloseResult
  /** Why uploading stopped for good, if it did (also when found by the last flush). */
  uploadFailure?: AccountError
}

/** A gateway started by {@link startGateway}. */
export interface RunningGateway {
  readonly scanner: BeaconScanner
  readonly upload: RunningUpload | undefined
  readonly mqtt: RunningMqtt | undefined
  readonly web: MapServer | undefined
  /** The metrics and health (with `http` or `metrics`; prom-client loads at the first scrape or with `metrics`). */
  readonly metrics: MetricsEndpoint | undefined
  /** The metrics server of its own (`metrics`). */
  readonly metricsServer: MetricsServer | undefined
  /** Starts scanning (the sinks are already listening); resolves once the source runs. */
  start(): Promise<void>
  /** Stops the scanner, then the sinks in reverse order of their start; safe to call twice. */
  stop(): Promise<GatewayStopReport>
}

/** One started part and how to stop it. */
interface Started {
  close(): Promise<void>
}

/**
 * Builds the scanner and starts the sinks the configuration asks for, in order: upload (its
 * account is checked first, so a refused account fails fast), MQTT (waits a bounded time for the
 * first connection), live map, then `config.sinks` (attached, then started), then the metrics
 * server (`config.metrics`; it loads prom-client first). The scanner itself
 * is started by {@link RunningGateway.start}, so a caller can subscribe to its events before the
 * first one.
 */
export async function startGateway(config: GatewayConfig, hooks: GatewayHooks): Promise<RunningGateway> {
  const scanner = new BeaconScanner({
    source: config.source,
    ...config.scanner,
    ...(config.keys === undefined ? {} : { keys: config.keys }),
    ...(config.filter === undefined ? {} : { filter: config.filter }),
  })
  const log = loggerOf(hooks)
  const started: Started[] = []
  const rollback = async (error: unknown): Promise<never> => {
    for (const part of started.reverse()) await part.close().catch(() => undefined)
    throw error
  }
  let upload: RunningUpload | undefined
  let mqtt: RunningMqtt | undefined
  let web: MapServer | undefined
  let mqttResult: MqttCloseResult | undefined
  let metrics: MetricsEndpoint | undefined
  let metricsServer: MetricsServer | undefined
  try {
    if (config.upload !== undefined) {
      const running = await startUpload(
        config.upload,
        scanner,
        log.child({ component: 'upload' }),
        hooks.onUploadRefused,
      )
      upload = running
      started.push({ close: () => running.close() })
    }
    if (config.sourceFirst === true) {
      const source = config.source
      // Pushed before its start: a start that fails half-way is stopped by the rollback too.
      started.push({ close: () => source.stop() })
      await source.start()
    }
    if (config.mqtt !== undefined) {
      const running = await startMqtt(config.mqtt, scanner, log.child({ component: 'mqtt' }))
      mqtt = running
      started.push({
        close: async () => {
          mqttResult = await running.close()
        },
      })
    }
    if (config.http !== undefined || config.metrics !== undefined) {
      // Built once the sinks it reads exist; it only listens to state changes until scraped.
      const endpoint = new MetricsEndpoint({
        scanner,
        source: config.source,
        ...(mqtt === undefined ? {} : { mqtt: mqtt.publisher }),
        ...(upload === undefined ? {} : { uploader: upload.uploader }),
      })
      metrics = endpoint
      started.push({ close: async () => endpoint.close() })
    }
    if (config.http !== undefined) {
      const server = await startWeb(config.http, { scanner }, hooks.stderr, undefined, metrics)
      web = server
      started.push({ close: () => server.close() })
    }
    for (const sink of config.sinks ?? []) {
      const detach = sink.attach(scanner)
      const part: Started = {
        close: async () => {
          try {
            await sink.close()
          } finally {
            detach()
          }
        },
      }
      // Pushed before its start: a sink half-started (a connection opening) is closed by the rollback too.
      started.push(part)
      await sink.start?.()
    }
    if (config.metrics !== undefined && metrics !== undefined) {
      const server = await startMetrics(config.metrics, metrics, hooks.stderr)
      metricsServer = server
      started.push({ close: () => server.close() })
    }
  } catch (error) {
    return rollback(error)
  }
  let stopping: Promise<GatewayStopReport> | undefined
  return {
    scanner,
    upload,
    mqtt,
    web,
    metrics,
    metricsServer,
    start: async () => {
      await scanner.start()
      metrics?.health.sourceStarted()
    },
    stop: () =>
      (stopping ??= (async () => {
        metrics?.health.sourceStopped()
        // The scanner first: its last gone events reach the sinks before they close (MQTT then
        // clears those states before its status says offline).
        await scanner.stop()
        for (const part of [...started].reverse()) await part.close()
        return {
          ...(mqttResult === undefined ? {} : { mqtt: mqttResult }),
          ...(upload?.failure === undefined ? {} : { uploadFailure: upload.failure }),
        }
      })()),
  }
}
