/**
 * The composition root of a gateway: from one configuration it builds the scanner over a source
 * and the parts that consume its events (gateway-parts.ts: cloud upload, MQTT publisher, live
 * map, then the sinks the caller built, then the metrics server), starts them in that order, and
 * stops them in the reverse order (part.ts). A part that fails to start closes the ones already
 * started before the error reaches the caller, so no half-built gateway is left running. Every
 * command that runs a gateway (`scan`, `replay`, `simulate`), the examples and a user's own
 * program go through {@link startGateway}.
 */

import { BeaconScanner } from '../scanner/scanner.js'
import type { AccountError } from '../errors.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { MapServer } from '../web/map-server.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import type { GatewayConfig, GatewayContext, GatewayHooks } from './gateway-context.js'
import { gatewayParts } from './gateway-parts.js'
import { gatewaySettings } from './settings/gateway.js'
import { identitiesOf, keyringOf } from './settings/keys.js'
import { adapterSource } from './settings/source.js'
import type { RunningMqtt } from './mqtt-sink.js'
import { Controller } from './part.js'
import { runLogger } from './run-logger.js'
import type { RunningUpload } from './upload-sink.js'

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
  /** Starts scanning (the parts are already listening); resolves once the source runs. */
  start(): Promise<void>
  /** Stops the scanner, then the parts in reverse order of their start; safe to call twice. */
  stop(): Promise<GatewayStopReport>
}

/**
 * Builds the scanner and starts the parts the configuration asks for, in the order of
 * gateway-parts.ts. The scanner itself is started by {@link RunningGateway.start}, so a caller can
 * subscribe to its events before the first one.
 *
 * @example
 * ```ts
 * const config = await loadConfig({ file: '/etc/beaconkit/gateway.yaml', env: process.env })
 * const gateway = await startGateway(config, { warn: (text) => console.warn(text) })
 * await gateway.start()
 * ```
 * @param config the model ({@link loadConfig}), with the runtime fields only a program can give
 * @param hooks where the gateway reports (default: process.stderr, with the package's logger at the
 *   model's `logging` level and format)
 * @throws ConfigError (`invalid_config`) naming every bad setting by its path, before anything starts
 */
export async function startGateway(config: GatewayConfig, hooks: GatewayHooks = {}): Promise<RunningGateway> {
  const settings = gatewaySettings(config)
  const stderr = hooks.stderr ?? process.stderr
  const log = await runLogger(hooks, config.logging, stderr)
  // Read before anything starts, so a bad key or keys file fails fast.
  const keyring = config.keyring ?? (await keyringOf(config, (text) => log.warn(text)))
  // An IRK file others can read, or a bad line, stops the start here (exit 2), before any broker hears of it.
  const identities = config.identities ?? (await identitiesOf(config))
  const source = config.source ?? adapterSource(config.adapter).source
  const scanner = new BeaconScanner({
    source,
    ...config.scanner,
    ...(keyring === undefined ? {} : { keys: keyring }),
    ...(identities === undefined ? {} : { identities }),
    filter: settings.filter,
  })
  const context: GatewayContext = {
    settings,
    runtime: config,
    source,
    hooks: { ...hooks, stderr },
    log,
    scanner,
    running: {},
  }
  const parts = new Controller(gatewayParts(config.sinks))
  await parts.start(context)
  const { running } = context
  let stopping: Promise<GatewayStopReport> | undefined
  return {
    scanner,
    upload: running.upload,
    mqtt: running.mqtt,
    web: running.web,
    metrics: running.metrics,
    metricsServer: running.metricsServer,
    start: async () => {
      await scanner.start()
      running.metrics?.health.sourceStarted()
    },
    stop: () =>
      (stopping ??= (async () => {
        running.metrics?.health.sourceStopped()
        // The scanner first: its last gone events reach the sinks before they close (MQTT then
        // clears those states before its status says offline).
        await scanner.stop()
        await parts.stop()
        return {
          ...(running.mqttResult === undefined ? {} : { mqtt: running.mqttResult }),
          ...(running.upload?.failure === undefined ? {} : { uploadFailure: running.upload.failure }),
        }
      })()),
  }
}
