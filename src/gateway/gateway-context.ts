/**
 * What a gateway is built from and what its parts share while it starts: the configuration, the
 * hooks, the scanner, and the record of what the started parts left for those after them (the
 * metrics read the publisher and the uploader) and for the caller ({@link RunningGateway}).
 */

import type { BeaconScanner } from '../scanner/scanner.js'
import type { ScannerOptions } from '../scanner/scanner.js'
import type { ScannerSink } from '../scanner/sink.js'
import type { BeaconFilter } from '../range/filter.js'
import type { Keyring } from '../secure/keyring.js'
import type { AdvertisementSource } from '../sources/source.js'
import type { AccountError } from '../errors.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { SharedConnection } from '../mqtt/shared-connection.js'
import type { MapServer } from '../web/map-server.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import type { Logger } from '../log/logger.js'
import type { HttpFlags, MetricsFlags, MqttFlags, UploadFlags } from './config.js'
import type { RunningMqtt } from './mqtt-sink.js'
import type { RunningUpload } from './upload-sink.js'

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
  /**
   * The plain form of {@link GatewayHooks.log} (used when `log` is not given): each warning or cleared
   * condition as text.
   */
  warn?(text: string): void
  /** Where the live map's address is printed (the only place its token appears). */
  stderr: { write(text: string): unknown }
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
  readonly config: GatewayConfig
  readonly hooks: GatewayHooks
  /** The gateway's logger (each part takes a child of its own). */
  readonly log: Logger
  readonly scanner: BeaconScanner
  readonly running: GatewayRunning
}
