/**
 * The parts of a fleet, in the order {@link startFleet} starts them: the ESPHome keys file (read
 * first: a bad file fails before a broker starts), the recorder of its fused view, an embedded
 * broker, the foreign inputs (started before the tracker: the foreign nodes' gateways are on the
 * broker by the time it listens), the ESPHome proxies (esphome-part.ts), the FleetTracker, the map's details, the
 * metrics endpoint, the live map (it listens before the tracker subscribes, so it sees every
 * gateway's retained status), and the metrics server. Each decides from the configuration
 * whether it is there, and leaves what it started in `context.running`.
 */

import { IdentityResolver } from '../secure/identity-resolver.js'
import type { IdentityKeyring } from '../secure/identity-keyring.js'
import { FleetRecorder } from '../fleet/fleet-recorder.js'
import { FleetTracker } from '../fleet/tracker.js'
import { trackerWill } from '../fleet/tracker-will.js'
import { ForeignBridge } from '../inputs/bridge.js'
import { MetricsEndpoint } from '../metrics/endpoint.js'
import { startBroker } from '../mqtt/broker.js'
import type { SharedClient } from '../mqtt/shared-connection.js'
import type { Site } from '../positioning/site.js'
import { MqttBeaconDetails } from '../web/beacon-details.js'
import { FleetGateways } from '../web/known-gateways.js'
import type { ForeignBridgeOptions } from '../inputs/bridge-options.js'
import { esphomeKeysPart, esphomePart } from './esphome-part.js'
import { brokerConnectionPart, openBrokerConnection } from './broker-connection.js'
import type { MqttSettings } from './settings/mqtt.js'
import { fleetUrl } from './fleet-context.js'
import type { FleetContext } from './fleet-context.js'
import { metricsServerPart } from './metrics-sink.js'
import { homeAssistantOption } from './mqtt-sink.js'
import { keptPart } from './part.js'
import { siteNodes } from './fleet-site.js'
import type { PartFactory } from './part.js'
import { FLUSH_DEADLINE_MS } from './shutdown.js'
import { startWeb } from './web-sink.js'
import { fleetRooms } from './fleet-rooms.js'
import type { FleetRooms } from './fleet-rooms.js'
import type { RoomLocator } from '../positioning/room-locator.js'
import type { RoomMetricsSource } from '../metrics/room-metrics.js'
import { FleetTeach } from './fleet-teach.js'
import { siteEditing } from './site-editing.js'
import { siteFilePart } from './site-file-part.js'
import type { SiteEditing } from '../web/edit-routes.js'
import { DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'

type Factory = PartFactory<FleetContext>

/** `record`: the fused view written to a file (`force`: replace an existing one). */
const recorder: Factory = ({ settings, runtime, site, running }) => {
  const file = settings.record
  if (file === undefined) return undefined
  return keptPart(
    'recorder',
    running,
    'recorder',
    () =>
      FleetRecorder.create(file, { ...(site === undefined ? {} : { site }), force: runtime.replaceRecording === true }),
    (value) => value.close(),
  )
}

/** `embeddedBroker`: aedes in this process on 127.0.0.1 at this port (0: a free one). */
const broker: Factory = ({ settings, running }) => {
  const port = settings.embeddedBroker
  if (port === undefined) return undefined
  return keptPart(
    'broker',
    running,
    'broker',
    () => startBroker({ port, host: '127.0.0.1' }),
    (value) => value.close(),
  )
}

/**
 * The fleet's one broker connection: its will the tracker's status (the tracker publishes
 * `online` there on each connection, `offline` at its stop), `--client-id` its client id.
 */
const connection: Factory = (context) => {
  const { settings, running } = context
  const m = settings.mqtt
  return brokerConnectionPart(running, () =>
    openBrokerConnection(fleetUrl(context), m, {
      name: 'fleet',
      ...trackerWill(m.topicPrefix === undefined ? {} : { topicPrefix: m.topicPrefix }, Date.now()),
    }),
  )
}

/**
 * The bridge of the fleet's foreign inputs, on the fleet's broker with its credentials; its
 * warnings and errors become the fleet's warnings.
 */
function foreignBridge(
  options: Pick<
    ForeignBridgeOptions,
    'inputs' | 'keyring' | 'identities' | 'maxNodes' | 'maxPayloadBytes' | 'goneTimeoutMs'
  >,
  client: SharedClient,
  m: MqttSettings,
  site: Site | undefined,
  warn: (text: string) => void,
): ForeignBridge {
  const bridge = new ForeignBridge({
    ...options,
    client,
    ...(m.topicPrefix === undefined ? {} : { topicPrefix: m.topicPrefix }),
    // Names the bridge (its id, its status topic) as before the connection was shared.
    ...(m.clientId === undefined ? {} : { clientId: `${m.clientId}-inputs` }),
    ...(site === undefined ? {} : siteNodes(site)),
  })
  bridge.on('warning', (text) => warn(`inputs: ${text}`))
  bridge.on('error', (e) => warn(`inputs: ${e.message}`))
  return bridge
}

/** `inputs`: foreign gateways on the same broker, fed into the fleet as gateways. */
const inputs: Factory = (context) => {
  const { settings, runtime, keyring, identities, site, log, running } = context
  const list = settings.inputs
  // ESPHome proxies are the bridge's direct nodes (esphome-part.ts): a bridge without MQTT inputs.
  if (list === undefined && settings.esphome === undefined) return undefined
  const options = {
    inputs: list ?? [],
    ...(keyring === undefined ? {} : { keyring }),
    ...(identities === undefined ? {} : { identities: new IdentityResolver(identities) }),
    ...runtime.inputLimits,
  }
  let bridge: ForeignBridge | undefined
  return {
    name: 'inputs',
    start: async () => {
      // Kept before its start: a start that fails half-way is closed by the rollback too.
      bridge = foreignBridge(options, sharedClient(context), settings.mqtt, site, (text) => log.warn(text))
      running.inputs = bridge
      await bridge.start()
    },
    stop: async () => {
      await bridge?.close()
    },
  }
}

/** The FleetTracker (always there); it connects with the fleet's `start()`, its stop keeps what was not delivered. */
const tracker: Factory = (context) => {
  const { settings, runtime, site, running, log } = context
  const m = settings.mqtt
  return keptPart(
    'tracker',
    running,
    'tracker',
    async () => {
      // The room method and the away rule (#39); the taught rooms are read before the tracker starts.
      const rooms = await fleetRooms(settings, site, (text) => log.warn(text))
      running.rooms = rooms
      const made = new FleetTracker({
        away: rooms.away,
        ...(rooms.rooms === undefined ? {} : { rooms: rooms.rooms }),
        client: sharedClient(context),
        homeAssistant: homeAssistantOption(m),
        ...(m.topicPrefix === undefined ? {} : { topicPrefix: m.topicPrefix }),
        ...(site === undefined ? {} : { site }),
        ...(runtime.positioner === undefined ? {} : { positioner: runtime.positioner }),
        // The names of the fleet's IRK file: those irk:<name> devices are admitted and announced as named.
        ...(context.identities === undefined ? {} : { holdsIdentity: identityNames(context.identities) }),
        ...(runtime.clock === undefined ? {} : { clock: runtime.clock }),
      })
      running.recorder?.attach(made)
      return made
    },
    async (value) => {
      running.trackerResult = await value.stop(FLUSH_DEADLINE_MS)
      // Learnt offsets (and what was taught) survive a restart.
      await running.rooms?.save(Date.now())
    },
  )
}

/**
 * With a site: `beaconkit fleet teach` answered on the fleet's connection (#39), taught with the
 * room method, refused while the site has the strongest gateway (an edited site may switch it).
 */
const teach: Factory = (context) => {
  const { settings, running, log, site } = context
  const fleet = running.tracker
  const rooms = running.rooms
  if (fleet === undefined || rooms === undefined || site === undefined) return undefined
  let made: FleetTeach | undefined
  return {
    name: 'teach',
    start: async () => {
      made = new FleetTeach(
        sharedClient(context),
        settings.mqtt.topicPrefix ?? DEFAULT_TOPIC_PREFIX,
        fleet,
        rooms,
        (text) => log.warn(text),
      )
      made.start()
      const started = made
      running.teachRoom = (beacon, room, seconds) => started.teachNow(beacon, room, seconds)
    },
    stop: async () => {
      running.teachRoom = undefined
      made?.stop()
    },
  }
}

/** With the map: its details panel reads the gateways' retained beacon states through its own subscription. */
const details: Factory = (context) => {
  const { settings, site, running } = context
  const fleet = running.tracker
  if (settings.http === undefined || fleet === undefined) return undefined
  return keptPart(
    'details',
    running,
    'details',
    async () =>
      new MqttBeaconDetails({
        client: sharedClient(context),
        gateways: (running.detailsGateways = new FleetGateways(fleet, site)),
        clock: fleet.clock,
        ...(settings.mqtt.topicPrefix === undefined ? {} : { topicPrefix: settings.mqtt.topicPrefix }),
      }),
    (value) => value.stop(),
  )
}

/**
 * With the map or the metrics server: listens to the tracker's connection events from before its start, so
 * /healthz knows.
 */
const metrics: Factory = ({ settings, running }) => {
  const fleet = running.tracker
  if ((settings.http === undefined && settings.metrics === undefined) || fleet === undefined) return undefined
  return keptPart(
    'metrics',
    running,
    'metrics',
    async () =>
      new MetricsEndpoint({
        tracker: fleet,
        ...(running.rooms?.rooms === undefined ? {} : { rooms: currentRooms(running.rooms, running.rooms.rooms) }),
      }),
    async (value) => value.close(),
  )
}

/**
 * What the metrics read of the room method: the fleet's locator now (an edited site rebuilds it,
 * fleet-site.ts), or the last one while the site does not use the plan method.
 */
function currentRooms(rooms: FleetRooms, first: RoomLocator): RoomMetricsSource {
  let last = first
  const now = (): RoomLocator => (last = rooms.rooms ?? last)
  return {
    get offsets() {
      return now().offsets
    },
    get fingerprints() {
      return now().fingerprints
    },
    get teachings() {
      return now().teachings
    },
  }
}

/** `http`: the live map of the fleet (with the site and its plan; with `http.edit`, its editor). */
const map: Factory = (context) => {
  const { settings, runtime, site, hooks, running } = context
  const { http } = settings
  const { siteImage, siteFile } = runtime
  const fleet = running.tracker
  if (http === undefined || fleet === undefined) return undefined
  return keptPart(
    'map',
    running,
    'web',
    async () =>
      startWeb(
        http,
        {
          fleet,
          ...(site === undefined ? {} : { site }),
          ...(siteImage === undefined ? {} : { image: siteImage }),
          ...(siteFile === undefined ? {} : { siteFile }),
          ...optionalEdit(await siteEditing(context)),
        },
        hooks.stderr,
        running.details,
        running.metrics,
      ),
    (value) => value.close(),
  )
}

function optionalEdit(edit: SiteEditing | undefined): { edit?: SiteEditing } {
  return edit === undefined ? {} : { edit }
}

/** `metrics`: `/metrics` and `/healthz` on a server of their own, started last. */
const metricsServer: Factory = (context) => metricsServerPart(context)

/** A client of its own on the fleet's connection, for one part. */
function sharedClient({ running }: FleetContext): SharedClient {
  if (running.connection === undefined) throw new Error('startFleet: the broker connection was not opened')
  return running.connection.client()
}

/** The fleet's parts in their order of start. */
export const FLEET_PARTS: readonly Factory[] = [
  esphomeKeysPart,
  recorder,
  broker,
  connection,
  inputs,
  esphomePart,
  tracker,
  teach,
  details,
  metrics,
  map,
  siteFilePart,
  metricsServer,
]

/** Whether `keys` holds a key of this name (never the key itself). */
function identityNames(keys: IdentityKeyring): (name: string) => boolean {
  return (name) => keys.get(name) !== undefined
}
