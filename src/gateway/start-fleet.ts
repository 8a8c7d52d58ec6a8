/**
 * The composition root of the fleet side (what `beaconkit fleet` runs): an embedded broker when
 * asked, the FleetTracker, a recorder of its fused view, the live map with its details panel, and
 * the metrics server (fleet-parts.ts). Built from one configuration, started in order, stopped
 * in reverse (part.ts); a part that fails to start closes those started before it.
 */

import type { FleetTracker } from '../fleet/tracker.js'
import type { RunningBroker } from '../mqtt/broker.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { ForeignBridge } from '../inputs/bridge.js'
import type { MapServer } from '../web/map-server.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import { fleetUrl } from './fleet-context.js'
import type { FleetRooms } from './fleet-rooms.js'
import type { FleetConfig, FleetContext, FleetHooks } from './fleet-context.js'
import { FLEET_PARTS } from './fleet-parts.js'
import { Controller } from './part.js'
import { runLogger } from './run-logger.js'
import { fleetSettings } from './settings/fleet.js'
import { applyFleetSite } from './fleet-site.js'
import type { Site } from '../positioning/site.js'
import { identitiesOf, keyringOf } from './settings/keys.js'
import { siteOf } from './settings/site.js'

/** A fleet started by {@link startFleet}. */
export interface RunningFleet {
  readonly tracker: FleetTracker
  /** The broker the tracker uses (the embedded one's address when there is one). */
  readonly url: string
  readonly broker: RunningBroker | undefined
  readonly web: MapServer | undefined
  /** The metrics and health (with `http` or `metrics`). */
  readonly metrics: MetricsEndpoint | undefined
  /** The metrics server of its own (`metrics`). */
  readonly metricsServer: MetricsServer | undefined
  /** The foreign-input bridge, when inputs are configured. */
  readonly inputs: ForeignBridge | undefined
  /** The room method (with `plan`: its learnt offsets, its fingerprints) and the away rule (#39). */
  readonly rooms: FleetRooms | undefined
  /**
   * Takes a new site without a restart (an edited site file): the tracker on its next tick (rooms,
   * gateways' places, names, what Home Assistant is told), the map's pages at once (`event:
   * site`). See fleet-site.ts for what keeps the first site until a restart.
   */
  applySite(site: Site): void
  /** Connects and subscribes; resolves once the tracker runs. */
  start(): Promise<void>
  /**
   * Stops the metrics server, the map, the details, the tracker, the inputs, the broker and the
   * recorder, in that order (the reverse of their start); safe to call twice.
   */
  stop(): Promise<MqttCloseResult>
}

/**
 * Builds and starts the fleet's parts (see the file comment); the tracker starts with `start()`.
 *
 * @example
 * ```ts
 * const config = await loadConfig({ file: '/etc/beaconkit/fleet.yaml', env: process.env })
 * const fleet = await startFleet(config)
 * await fleet.start()
 * ```
 * @param config the model ({@link loadConfig}), with the runtime fields only a program can give
 * @param hooks where the fleet reports (default: process.stderr, with the package's logger at the
 *   model's `logging` level and format)
 * @throws ConfigError (`invalid_config`) naming every bad setting by its path, before anything starts
 */
export async function startFleet(config: FleetConfig, hooks: FleetHooks = {}): Promise<RunningFleet> {
  const settings = fleetSettings(config)
  const stderr = hooks.stderr ?? process.stderr
  const log = await runLogger(hooks, config.logging, stderr)
  // Everything that can be wrong in the files fails before a broker starts.
  const site = await siteOf(config)
  const keyring =
    settings.inputs === undefined && settings.esphome === undefined
      ? undefined
      : (config.keyring ?? (await keyringOf(config, (text) => log.warn(text))))
  const identities = config.identities ?? (await identitiesOf(config))
  const context: FleetContext = {
    settings,
    runtime: config,
    site,
    keyring,
    identities,
    hooks: { ...hooks, stderr },
    log,
    running: {},
  }
  const parts = new Controller(FLEET_PARTS)
  await parts.start(context)
  const { running } = context
  const tracker = running.tracker
  // The tracker part is always there: a start that returned has built it.
  if (tracker === undefined) throw new Error('startFleet: the tracker was not built')
  let stopping: Promise<MqttCloseResult> | undefined
  const applySite = (next: Site): void => applyFleetSite(running, next)
  // The editor (a part started above) calls it after a save: it reads `running` then, not now.
  running.applySite = applySite
  return {
    tracker,
    url: fleetUrl(context),
    broker: running.broker,
    web: running.web,
    metrics: running.metrics,
    metricsServer: running.metricsServer,
    inputs: running.inputs,
    rooms: running.rooms,
    applySite,
    start: async () => {
      // The map's details subscribe on the fleet's connection; a broker away is a warning there, not a stop.
      running.details
        ?.start()
        .catch((e: unknown) => log.warn(`map details: ${e instanceof Error ? e.message : String(e)}`))
      await tracker.start()
    },
    stop: () =>
      (stopping ??= (async () => {
        await parts.stop()
        return running.trackerResult ?? { delivered: true, lost: 0, kept: 0 }
      })()),
  }
}
