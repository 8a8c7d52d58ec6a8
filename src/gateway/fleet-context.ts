/**
 * What a fleet is built from and what its parts share while it starts: the configuration, the
 * hooks, and the record of what the started parts left for those after them (the tracker's
 * broker address, the tracker the map and the metrics read) and for the caller ({@link RunningFleet}).
 */

import type { Logger } from '../log/logger.js'
import type { FleetRecorder } from '../fleet/fleet-recorder.js'
import type { PositionEstimator } from '../fleet/fleet-beacon.js'
import type { FleetTracker } from '../fleet/tracker.js'
import type { RunningBroker } from '../mqtt/broker.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { SharedConnection } from '../mqtt/shared-connection.js'
import type { Site } from '../positioning/site.js'
import type { ForeignBridge } from '../inputs/bridge.js'
import type { ForeignBridgeOptions } from '../inputs/bridge-options.js'
import type { MqttBeaconDetails } from '../web/beacon-details.js'
import type { MapServer } from '../web/map-server.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import type { HttpFlags, MetricsFlags, MqttFlags } from './config.js'

/** What {@link startFleet} builds. */
export interface FleetConfig {
  /** The broker and the tracker's MQTT settings (`url` is ignored with `embeddedBroker`). */
  mqtt: MqttFlags
  /** Start aedes in this process on 127.0.0.1 at this port (0: a free one). */
  embeddedBroker?: number
  site?: Site
  /** The site's plan image (a path), for the map. */
  siteImage?: string
  positioner?: PositionEstimator
  /** Record the fused view to this file (`force`: replace an existing one). */
  record?: { file: string; force: boolean }
  /** Serve the live map (with `/metrics` and `/healthz` beside it). */
  http?: HttpFlags
  /** Serve `/metrics` and `/healthz` on a server of their own (started last). */
  metrics?: MetricsFlags
  /**
   * Foreign inputs (OpenMQTTGateway, Theengs Gateway, ESPresense nodes on the same broker), fed
   * into the fleet as gateways (src/inputs/bridge.ts); the broker settings are the fleet's.
   */
  inputs?: Pick<ForeignBridgeOptions, 'inputs' | 'keyring' | 'maxNodes' | 'maxPayloadBytes' | 'goneTimeoutMs'>
}

/** Where a running fleet reports what the user should know. */
export interface FleetHooks {
  stderr: { write(text: string): unknown }
  /** Where passing problems are logged (the map's details unable to connect). */
  log?: Logger
  /** The plain form of `log`, used when `log` is not given. */
  warn?(text: string): void
}

/** What the started parts of a fleet leave for those after them and for the caller. */
export interface FleetRunning {
  recorder?: FleetRecorder
  broker?: RunningBroker
  /**
   * The one broker connection (broker-connection.ts): the inputs, the tracker and the details
   * ride on it, the tracker's status its will.
   */
  connection?: SharedConnection
  inputs?: ForeignBridge
  tracker?: FleetTracker
  /** What the broker had not acknowledged when the tracker stopped (set by its stop). */
  trackerResult?: MqttCloseResult
  details?: MqttBeaconDetails
  metrics?: MetricsEndpoint
  web?: MapServer
  metricsServer?: MetricsServer
}

/** What each part of a fleet starts from (src/gateway/part.ts). */
export interface FleetContext {
  readonly config: FleetConfig
  readonly hooks: FleetHooks
  /** The fleet's logger. */
  readonly log: Logger
  readonly running: FleetRunning
}

/** The broker the fleet's clients use: the embedded one's address when there is one. */
export function fleetUrl({ config, running }: FleetContext): string {
  return running.broker?.url ?? config.mqtt.url
}
