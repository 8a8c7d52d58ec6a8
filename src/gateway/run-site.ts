/**
 * A whole simulated site on a broker: the simulator's stream of each gateway goes through a real
 * `BeaconScanner` and a real `MqttPublisher`, one per gateway, each on an MQTT connection of its
 * own with the contract's last will, so killing a gateway (no clean close) makes the broker
 * announce it offline exactly as a crashed Raspberry Pi would. Each gateway is built and stopped
 * by the composition root, {@link startGateway} (DESIGN section 2), as a real one is; only the
 * connection is made here, since the will's payload and the client ids are the site's own.
 */
import type { HomeAssistantOptions } from '../mqtt/ha-gate.js'
import { hostname } from 'node:os'
import { MqttError } from '../errors.js'
import type { BeaconScanner, ScannerOptions } from '../scanner/scanner.js'
import type { ScannerSink } from '../scanner/sink.js'
import { endClient, loadMqtt } from '../mqtt/client.js'
import type { MqttClientLike } from '../mqtt/client.js'
import { MqttPublisher } from '../mqtt/publisher.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { MqttPublisherOptions } from '../mqtt/publisher-options.js'
import { resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { statusPayload } from '../mqtt/payloads.js'
import { checkTopicPrefix, DEFAULT_TOPIC_PREFIX, GatewayTopics } from '../mqtt/topics.js'
import { SiteSimulator } from '../simulation/site-simulator.js'
import type { SiteSimulatorOptions } from '../simulation/site-simulator-types.js'
import { startGateway } from './start-gateway.js'
import type { RunningGateway } from './start-gateway.js'
import type { GatewayHooks } from './gateway-context.js'

/** Options of {@link runSite}: a simulator (or what to make one of) and the broker. */
export interface RunSiteOptions extends Partial<SiteSimulatorOptions> {
  /** A simulator already made; otherwise one is made from `site`, `beacons` and the rest. */
  simulator?: SiteSimulator
  /** The broker, e.g. `mqtt://127.0.0.1:1883`. */
  url: string
  /** Topic prefix `<p>`, default `beaconkit`. */
  topicPrefix?: string
  /** Home Assistant discovery from every gateway (as `scan --ha`). */
  homeAssistant?: boolean | HomeAssistantOptions
  username?: string
  /** File whose first line is the broker password. */
  passwordFile?: string
  /** Each gateway scanner's timing (default: the scanner's, a 1 s tick and 8 s gone timeout). */
  scanner?: Pick<ScannerOptions, 'updateIntervalMs' | 'goneTimeoutMs'>
  /** Each gateway publisher's timing. */
  publisher?: Pick<MqttPublisherOptions, 'minIntervalMs' | 'heartbeatMs'>
  /** Client ids are `<clientIdPrefix>-<gateway>-<n>`; default `beaconkit-sim-<host>-<pid>`. */
  clientIdPrefix?: string
  /** How long to wait for each gateway's first connection, ms (default 10000). */
  connectTimeoutMs?: number
}

/** One gateway of a running site. */
export interface SiteGateway {
  readonly id: string
  readonly scanner: BeaconScanner
  readonly publisher: MqttPublisher
  /** False after `kill` until `restart`. */
  readonly alive: boolean
}

/** A site running on a broker. */
export interface RunningSite {
  readonly simulator: SiteSimulator
  /** Gateway ids, in the site's order. */
  readonly gateways: readonly string[]
  /** A gateway's scanner and publisher (the current ones after a restart). */
  gateway(id: string): SiteGateway
  /**
   * Kills a gateway as a power cut would: it stops hearing, and its connection is dropped without
   * DISCONNECT, so the broker publishes its last will (`offline`). Its retained states stay.
   */
  kill(id: string): Promise<void>
  /** Brings a killed gateway back: a new scanner, publisher and connection (it says `online` again). */
  restart(id: string): Promise<void>
  /**
   * Virtual time: moves the site to `time` (the gateways' 1 s ticks run on the way) and resolves
   * once every live publisher has handed what that produced to the broker.
   */
  advanceTo(time: number): Promise<void>
  /** RSSI batches published by all gateways so far, killed ones included. */
  rssiBatches(): number
  /**
   * Stops the simulation, then every gateway at once, cleanly (its status goes `offline`), each
   * within `timeoutMs` (less when the broker acknowledges nothing for the publisher's
   * `ackTimeoutMs`) plus 2 s for its DISCONNECT. Resolves with what all of them could not deliver.
   */
  close(timeoutMs?: number): Promise<MqttCloseResult>
}

interface GatewayRun {
  id: string
  gateway: RunningGateway
  publisher: MqttPublisher
  sink: PublisherSink
  client: MqttClientLike
  alive: boolean
}

/** A gateway's publisher as a sink of the root, carrying what its `close()` takes and finds. */
interface PublisherSink extends ScannerSink {
  /** The deadline `close()` hands the publisher: `RunningSite.close`'s, set just before the stop. */
  timeoutMs: number
  /** What the publisher's close found, once the root has closed it. */
  result: MqttCloseResult | undefined
}

/**
 * The root closes a sink with no arguments, but the publisher's deadline is the site's close
 * timeout and its result is what `RunningSite.close` reports: this sink carries both across.
 */
function publisherSink(publisher: MqttPublisher): PublisherSink {
  const sink: PublisherSink = {
    timeoutMs: 5000,
    result: undefined,
    attach: (events) => publisher.attach(events),
    start: () => publisher.connect(),
    close: async () => {
      sink.result = await publisher.close(sink.timeoutMs)
    },
  }
  return sink
}

/** The site's gateways report nothing: a simulated site has no operator to warn, and no live map. */
const QUIET: GatewayHooks = { warn: () => undefined, stderr: { write: () => true } }

/**
 * Runs a simulated site on a broker: one scanner, publisher and MQTT connection per gateway.
 * Resolves once every gateway is connected and scanning; rejects with `MqttError` when the broker
 * cannot be reached within `connectTimeoutMs`.
 *
 * ```ts
 * const running = await runSite({ site, beacons, url: 'mqtt://127.0.0.1:1883' })
 * // … a FleetTracker on the same broker sees every gateway …
 * await running.kill('hall-pi') // its last will fires
 * await running.close()
 * ```
 */
export async function runSite(options: RunSiteOptions): Promise<RunningSite> {
  const sim =
    options.simulator ??
    new SiteSimulator({
      ...(options as Partial<SiteSimulatorOptions>),
      site: options.site as SiteSimulatorOptions['site'],
      beacons: options.beacons as SiteSimulatorOptions['beacons'],
    })
  const prefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
  // The broker options are checked, and the password read, as the publisher does it.
  const checked = resolvePublisherOptions({
    url: options.url,
    gatewayId: 'sim',
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.passwordFile === undefined ? {} : { passwordFile: options.passwordFile }),
  })
  const secrets = await checked.readSecrets()
  const mqtt = await loadMqtt()
  const idPrefix =
    options.clientIdPrefix ??
    `beaconkit-sim-${hostname()
      .replace(/[^A-Za-z0-9_-]/g, '')
      .slice(0, 16)}-${process.pid}`
  const waitMs = options.connectTimeoutMs ?? 10_000
  const runs = new Map<string, GatewayRun>()
  const killed: MqttPublisher[] = []
  let serial = 0

  async function connect(id: string): Promise<MqttClientLike> {
    const topics = new GatewayTopics(prefix, id)
    // MQTT 3.1.1: every broker speaks it (the embedded aedes speaks nothing newer).
    const client = mqtt.connect(options.url, {
      clientId: `${idPrefix}-${id}-${serial++}`,
      protocolVersion: 4,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: waitMs,
      queueQoSZero: false,
      will: {
        topic: topics.status,
        payload: Buffer.from(statusPayload('offline', sim.clock?.now() ?? Date.now())),
        qos: 1,
        retain: true,
      },
      ...(checked.username === undefined ? {} : { username: checked.username }),
      ...(secrets.password === undefined ? {} : { password: secrets.password }),
    })
    const ok = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), waitMs)
      client.on('connect', () => {
        clearTimeout(timer)
        resolve(true)
      })
    })
    if (!ok) {
      client.end(true)
      throw new MqttError(
        'connection',
        `the simulated gateway ${id} could not reach the broker ${options.url} within ${waitMs} ms; is it running?`,
      )
    }
    return client
  }

  async function open(id: string): Promise<GatewayRun> {
    const client = await connect(id)
    const publisher = new MqttPublisher({
      client,
      gatewayId: id,
      topicPrefix: prefix,
      ...(options.homeAssistant === undefined ? {} : { homeAssistant: options.homeAssistant }),
      ...options.publisher,
    })
    const sink = publisherSink(publisher)
    // A failed start leaves no connection behind (the root has already closed the publisher).
    const gateway = await startGateway(
      { source: sim.source(id), ...(options.scanner === undefined ? {} : { scanner: options.scanner }), sinks: [sink] },
      QUIET,
    ).catch((error: unknown) => {
      client.end(true)
      throw error
    })
    try {
      await gateway.start()
    } catch (error) {
      await gateway.stop().catch(() => undefined)
      client.end(true)
      throw error
    }
    const run: GatewayRun = { id, gateway, publisher, sink, client, alive: true }
    runs.set(id, run)
    return run
  }

  const get = (id: string): GatewayRun => {
    const run = runs.get(id)
    if (run === undefined)
      throw new MqttError('closed', `the running site has no gateway ${id}; it has ${sim.gateways.join(', ')}`)
    return run
  }

  // All at once: a broker that is down costs one connect timeout, not one per gateway.
  const opened = await Promise.allSettled(sim.gateways.map((id) => open(id)))
  const failed = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed !== undefined) {
    for (const run of runs.values()) {
      await run.gateway.scanner.stop()
      run.client.end(true)
    }
    throw failed.reason
  }

  return {
    simulator: sim,
    gateways: sim.gateways,
    gateway: (id) => {
      const run = get(id)
      return { id, scanner: run.gateway.scanner, publisher: run.publisher, alive: run.alive }
    },
    async kill(id) {
      const run = get(id)
      if (!run.alive) return
      run.alive = false
      killed.push(run.publisher)
      // Dropped, not closed: no DISCONNECT and no `offline` of its own, so the broker sends the will.
      // So not RunningGateway.stop(), which would close the publisher cleanly: the scanner only.
      run.client.end(true)
      await run.gateway.scanner.stop()
    },
    async restart(id) {
      const run = get(id)
      if (run.alive) return
      await open(id)
    },
    async advanceTo(time) {
      sim.advanceTo(time)
      await Promise.all([...runs.values()].filter((r) => r.alive).map((r) => r.publisher.flush(30_000)))
    },
    rssiBatches: () =>
      [...killed, ...[...runs.values()].filter((r) => r.alive).map((r) => r.publisher)].reduce(
        (sum, p) => sum + p.stats.byKind.rssi,
        0,
      ),
    async close(timeoutMs = 5000) {
      await sim.stop()
      // All at once: a silent broker costs one deadline, not one per gateway.
      const closing = [...runs.values()]
        .filter((run) => run.alive)
        .map(async (run) => {
          run.alive = false
          run.sink.timeoutMs = timeoutMs
          // The root's stop: the scanner first, so nothing reaches the publisher after its `offline`.
          await run.gateway.stop()
          await endClient(run.client)
          return run.sink.result ?? { delivered: true, lost: 0, kept: 0 }
        })
      const results = await Promise.all(closing)
      return {
        delivered: results.every((r) => r.delivered),
        lost: results.reduce((n, r) => n + r.lost, 0),
        kept: results.reduce((n, r) => n + r.kept, 0),
      }
    },
  }
}
