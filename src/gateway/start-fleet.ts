/**
 * The composition root of the fleet side (what `beaconkit fleet` runs): an embedded broker when
 * asked, the FleetTracker, a recorder of its fused view, the live map with its details panel, and
 * the metrics server.
 * Built from one configuration, started in that order (the map listens before the tracker
 * subscribes, so it sees every gateway's retained status), stopped in reverse; a part that fails
 * to start closes those started before it.
 */

import { loggerOf } from '../log/logger.js'
import type { Logger } from '../log/logger.js'
import { FleetRecorder } from '../fleet/fleet-recorder.js'
import type { PositionEstimator } from '../fleet/fleet-beacon.js'
import { FleetTracker } from '../fleet/tracker.js'
import { startBroker } from '../mqtt/broker.js'
import type { RunningBroker } from '../mqtt/broker.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { Site } from '../positioning/site.js'
import { ForeignBridge } from '../inputs/bridge.js'
import type { ForeignBridgeOptions } from '../inputs/bridge.js'
import { MqttBeaconDetails } from '../web/beacon-details.js'
import { FleetGateways } from '../web/known-gateways.js'
import type { MapServer } from '../web/map-server.js'
import { brokerSettings } from './config.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { HttpFlags, MetricsFlags, MqttFlags } from './config.js'
import { MetricsEndpoint } from '../metrics/endpoint.js'
import { startMetrics } from './metrics-sink.js'
import { homeAssistantOption } from './mqtt-sink.js'
import { FLUSH_DEADLINE_MS } from './shutdown.js'
import { startWeb } from './web-sink.js'

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
  /** Connects and subscribes; resolves once the tracker runs. */
  start(): Promise<void>
  /** Stops the metrics server, the map, the tracker, the recorder and the broker, in that order; safe to call twice. */
  stop(): Promise<MqttCloseResult>
}

/**
 * Which site gateways the bridge may use as foreign nodes: those declared `foreign`; once the
 * site declares any, the others are native and reserved. A site that declares none keeps working
 * as before (its nodes named by their plain ids), guarded by the statuses seen on the broker.
 */
function siteNodes(site: Site): { nativeNodes?: Set<string>; foreignNodes?: Set<string> } {
  const anchors = site.anchorList()
  if (!anchors.some((a) => a.foreign === true)) return {}
  const ids = (foreign: boolean): Set<string> =>
    new Set(anchors.filter((a) => (a.foreign === true) === foreign).map((a) => a.id))
  return { nativeNodes: ids(false), foreignNodes: ids(true) }
}

/** The bridge of the fleet's foreign inputs, on the fleet's broker with its credentials; its warnings and errors become the fleet's warnings. */
function foreignBridge(
  options: NonNullable<FleetConfig['inputs']>,
  url: string,
  m: MqttFlags,
  site: Site | undefined,
  warn: (text: string) => void,
): ForeignBridge {
  const bridge = new ForeignBridge({
    ...options,
    url,
    ...brokerSettings(m),
    ...(m.clientId === undefined ? {} : { clientId: `${m.clientId}-inputs` }),
    ...(site === undefined ? {} : { knownNodes: new Set(site.anchorList().map((a) => a.id)) }),
    ...(site === undefined ? {} : siteNodes(site)),
  })
  bridge.on('warning', (text) => warn(`inputs: ${text}`))
  bridge.on('error', (e) => warn(`inputs: ${e.message}`))
  return bridge
}

/** Builds and starts the fleet's parts (see the file comment); the tracker starts with `start()`. */
export async function startFleet(
  config: FleetConfig,
  hooks: {
    stderr: { write(text: string): unknown }
    /** Where passing problems are logged (the map's details unable to connect). */
    log?: Logger
    /** The plain form of `log`, used when `log` is not given. */
    warn?(text: string): void
  },
): Promise<RunningFleet> {
  const log = loggerOf(hooks)
  const started: { close(): Promise<unknown> }[] = []
  const rollback = async (error: unknown): Promise<never> => {
    for (const part of started.reverse()) await part.close().catch(() => undefined)
    throw error
  }
  const { site, mqtt: m } = config
  try {
    const recorder =
      config.record === undefined
        ? undefined
        : await FleetRecorder.create(config.record.file, {
            ...(site === undefined ? {} : { site }),
            force: config.record.force,
          })
    if (recorder !== undefined) started.push(recorder)
    const broker =
      config.embeddedBroker === undefined
        ? undefined
        : await startBroker({ port: config.embeddedBroker, host: '127.0.0.1' })
    if (broker !== undefined) started.push(broker)
    const url = broker?.url ?? m.url
    const tracker = new FleetTracker({
      url,
      homeAssistant: homeAssistantOption(m),
      ...(m.clientId === undefined ? {} : { clientId: m.clientId }),
      ...brokerSettings(m),
      ...(site === undefined ? {} : { site }),
      ...(config.positioner === undefined ? {} : { positioner: config.positioner }),
    })
    recorder?.attach(tracker)
    // Started before the tracker: the foreign nodes' gateways are on the broker by the time it listens.
    const inputs =
      config.inputs === undefined ? undefined : foreignBridge(config.inputs, url, m, site, (text) => log.warn(text))
    if (inputs !== undefined) {
      started.push(inputs)
      await inputs.start()
    }
    // The details panel reads the gateways' retained beacon states through its own subscription.
    const details =
      config.http === undefined
        ? undefined
        : new MqttBeaconDetails({
            url,
            gateways: new FleetGateways(tracker, site),
            clock: tracker.clock,
            ...brokerSettings(m),
          })
    // Listens to the tracker's connection events from before its start, so /healthz knows.
    const metrics =
      config.http === undefined && config.metrics === undefined ? undefined : new MetricsEndpoint({ tracker })
    if (metrics !== undefined) started.push({ close: async () => metrics.close() })
    const web =
      config.http === undefined
        ? undefined
        : await startWeb(
            config.http,
            {
              fleet: tracker,
              ...(site === undefined ? {} : { site }),
              ...(config.siteImage === undefined ? {} : { image: config.siteImage }),
            },
            hooks.stderr,
            details,
            metrics,
          )
    if (web !== undefined) started.push(web)
    const metricsServer =
      config.metrics === undefined || metrics === undefined
        ? undefined
        : await startMetrics(config.metrics, metrics, hooks.stderr)
    let stopping: Promise<MqttCloseResult> | undefined
    return {
      tracker,
      url,
      broker,
      web,
      metrics,
      metricsServer,
      inputs,
      start: async () => {
        // The map's details connect on their own; a broker away is a warning there, not a stop.
        details?.start().catch((e: unknown) => log.warn(`map details: ${e instanceof Error ? e.message : String(e)}`))
        await tracker.start()
      },
      stop: () =>
        (stopping ??= (async () => {
          await metricsServer?.close()
          metrics?.close()
          await web?.close()
          await details?.stop()
          const result = await tracker.stop(FLUSH_DEADLINE_MS)
          await inputs?.close()
          await recorder?.close()
          await broker?.close()
          return result
        })()),
    }
  } catch (error) {
    return rollback(error)
  }
}
