/**
 * What a gateway is built from and what its parts share while it starts: the configuration, the
 * hooks, the scanner, and the record of what the started parts left for those after them (the
 * metrics read the publisher and the uploader) and for the caller ({@link RunningGateway}).
 */

import type { BeaconScanner } from '../scanner/scanner.js'
import type { ScannerOptions } from '../scanner/scanner.js'
import type { ScannerSink } from '../scanner/sink.js'
import type { Keyring } from '../secure/keyring.js'
import type { IdentityKeyring } from '../secure/identity-keyring.js'
import type { AdvertisementSource } from '../sources/source.js'
import type { AccountError } from '../errors.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { SharedConnection } from '../mqtt/shared-connection.js'
import type { MapServer } from '../web/map-server.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import type { Logger } from '../log/logger.js'
import type { BeaconkitConfig } from '../config/load-config.js'
import type { GatewaySettings } from './settings/gateway.js'
import type { RunningMqtt } from './mqtt-sink.js'
import type { RunningUpload } from './upload-sink.js'

/**
 * What only a program can give a gateway, beside the model (it cannot live in a config file):
 * a source of its own, a keyring already read, its own sinks, the order of the start, the
 * scanner's timing.
 */
export interface GatewayRuntime {
  /**
   * Where advertisements come from: a recording, a simulation, a program's own source (default:
   * the model's `adapter`, built when the gateway starts).
   */
  source?: AdvertisementSource
  /** Broadcast keys already read (default: read from the model's `keys` before anything starts). */
  keyring?: Keyring
  /** Identity resolving keys already read (default: read from the model's `irk.file` before anything starts). */
  identities?: IdentityKeyring
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

/**
 * What {@link startGateway} builds: the configuration model (as {@link loadConfig} returns it,
 * the shape of a config file), with the runtime fields only a program can give.
 */
export interface GatewayConfig extends BeaconkitConfig, GatewayRuntime {}

/** Where a running gateway reports what the user should know. */
export interface GatewayHooks {
  /**
   * Where the gateway logs passing problems (a broker away, an upload retried: the gateway goes
   * on) and the conditions a user must act on, once when they start and once when they clear.
   */
  log?: Logger
  /**
   * The plain form of {@link GatewayHooks.log} (used when `log` is not given): each warning or cleared
   * condition as text. With neither, the package's logger writes to `stderr` at the model's `logging`.
   */
  warn?(text: string): void
  /** Where the servers' addresses are printed (the only place a token appears; default process.stderr). */
  stderr?: { write(text: string): unknown }
  /** The account refused the upload mid-run: nothing more will be delivered. */
  onUploadRefused?(error: AccountError): void
}

/** What the started parts of a gateway leave for those after them and for the caller. */
export interface GatewayRunning {
  upload?: RunningUpload
  /** The one broker connection (broker-connection.ts), with `mqtt`; the publisher rides on it. */
  connection?: SharedConnection
  mqtt?: RunningMqtt
  /** What the broker had not acknowledged when the publisher closed (set by its stop). */
  mqttResult?: MqttCloseResult
  metrics?: MetricsEndpoint
  web?: MapServer
  metricsServer?: MetricsServer
}

/** What each part of a gateway starts from (src/gateway/part.ts). */
export interface GatewayContext {
  /** The model's settings, every default decided (settings/gateway.ts). */
  readonly settings: GatewaySettings
  readonly runtime: GatewayRuntime
  /** The run's source: the caller's, or the model's adapters. */
  readonly source: AdvertisementSource
  readonly hooks: GatewayHooks & { readonly stderr: { write(text: string): unknown } }
  /** The gateway's logger (each part takes a child of its own). */
  readonly log: Logger
  readonly scanner: BeaconScanner
  readonly running: GatewayRunning
}
