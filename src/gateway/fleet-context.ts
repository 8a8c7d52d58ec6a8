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
import type { EspHomeInputs } from '../inputs/esphome/inputs.js'
import type { EspHomeKeys } from '../inputs/esphome/keys.js'
import type { MqttBeaconDetails } from '../web/beacon-details.js'
import type { MapServer } from '../web/map-server.js'
import type { FleetGateways } from '../web/known-gateways.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import type { BeaconkitConfig } from '../config/load-config.js'
import type { Keyring } from '../secure/keyring.js'
import type { IdentityKeyring } from '../secure/identity-keyring.js'
import type { Clock } from '../clock.js'
import type { FleetSettings } from './settings/fleet.js'
import type { FleetRooms } from './fleet-rooms.js'
import type { TeachRefusal } from './fleet-teach.js'

/** What only a program can give a fleet, beside the model (it cannot live in a config file). */
export interface FleetRuntime {
  /** Positions the beacons (e.g. a Positioner on the site's radio map; default: rooms only). */
  positioner?: PositionEstimator
  /** The site's plan image (a path), for the map. */
  siteImage?: string
  /**
   * The site file the site was read from: the map serves the plan images beside it, and with
   * `http.edit` the editor saves to it (default ./site.json).
   */
  siteFile?: string
  /** Let `fleet.record` replace an existing file (default: refuse). */
  replaceRecording?: boolean
  /** Broadcast keys for what foreign inputs relay (default: read from the model's `keys`). */
  keyring?: Keyring
  /** Identity resolving keys (default: read from the model's `irk.file`). */
  identities?: IdentityKeyring
  /** The tracker's time (default the real clock; a simulated site's virtual clock in tests). */
  clock?: Clock
  /** Bounds of the foreign-input bridge (default: the bridge's). */
  inputLimits?: Pick<ForeignBridgeOptions, 'maxNodes' | 'maxPayloadBytes' | 'goneTimeoutMs'>
}

/**
 * What {@link startFleet} builds: the configuration model (as {@link loadConfig} returns it, the
 * shape of a config file), with the runtime fields only a program can give.
 */
export interface FleetConfig extends BeaconkitConfig, FleetRuntime {}

/** Where a running fleet reports what the user should know. */
export interface FleetHooks {
  /** Where the servers' addresses are printed (the only place a token appears; default process.stderr). */
  stderr?: { write(text: string): unknown }
  /** Where passing problems are logged (the map's details unable to connect). */
  log?: Logger
  /**
   * The plain form of `log`, used when `log` is not given. With neither, the package's logger writes
   * to `stderr` at the model's `logging`.
   */
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
  /** The ESPHome keys file, read before anything starts (#38). */
  esphomeKeys?: EspHomeKeys
  /** The ESPHome proxies, fed to the bridge as gateways (#38). */
  esphome?: EspHomeInputs
  tracker?: FleetTracker
  /** The room method and the away rule the tracker was given (#39). */
  rooms?: FleetRooms
  /** What the broker had not acknowledged when the tracker stopped (set by its stop). */
  trackerResult?: MqttCloseResult
  details?: MqttBeaconDetails
  /** Which gateways the details believe: the site's, swapped with it. */
  detailsGateways?: FleetGateways
  metrics?: MetricsEndpoint
  web?: MapServer
  metricsServer?: MetricsServer
  /**
   * Takes a new site without a restart (set once the fleet started: RunningFleet.applySite); the
   * editor calls it after a save.
   */
  applySite?: (site: Site) => void
  /**
   * With the room method: starts "teach this room with this tag" (the map editor's teach); undefined
   * when it started, else why not.
   */
  teachRoom?: (beacon: string, room: string, seconds: number) => TeachRefusal | undefined
}

/** What each part of a fleet starts from (src/gateway/part.ts). */
export interface FleetContext {
  /** The model's settings, every default decided (settings/fleet.ts). */
  readonly settings: FleetSettings
  readonly runtime: FleetRuntime
  /** The site, read from the model's `site`. */
  readonly site: Site | undefined
  /** The keyring for the foreign inputs' relayed broadcasts. */
  readonly keyring: Keyring | undefined
  /** The fleet's identity resolving keys: the bridge resolves relayed addresses with them. */
  readonly identities: IdentityKeyring | undefined
  readonly hooks: FleetHooks & { readonly stderr: { write(text: string): unknown } }
  /** The fleet's logger. */
  readonly log: Logger
  readonly running: FleetRunning
}

/** The broker the fleet's clients use: the embedded one's address when there is one. */
export function fleetUrl({ settings, running }: FleetContext): string {
  return running.broker?.url ?? settings.mqtt.url
}
