/**
 * The parts a FleetTracker is made of, built from its options and wired to one another: the
 * fused state and what each of its events publishes (fleet topics, presence, Home Assistant),
 * the outbox they publish through, scale-out, and the readers of retained states.
 */
import type { Clock } from '../clock.js'
import type { MqttLink } from '../mqtt/connection.js'
import { ackWarning } from '../mqtt/inflight.js'
import { Outbox } from '../mqtt/outbox.js'
import { refusedError } from '../mqtt/refusals.js'
import type { resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { checkTopicPrefix, DEFAULT_HA_PREFIX } from '../mqtt/topics.js'
import { HaBirthWatch } from '../mqtt/ha-birth.js'
import type { SafeEmitter } from '../range/safe-emitter.js'
import { BeaconFacts } from './beacon-facts.js'
import type { PositionEstimator } from './fleet-beacon.js'
import { FleetPresence } from './fleet-presence.js'
import { DEFAULT_GONE_TIMEOUT_MS, DEFAULT_MAX_BEACONS } from './fleet-state-options.js'
import { FleetState } from './fleet-state.js'
import { FleetTopics } from './fleet-topics.js'
import { GhostStates } from './ghost-states.js'
import { RetainedReader } from './retained-reader.js'
import { ScaleOut } from './scale-out.js'
import { sitePositioner, type SitePositioner } from './site-positioner.js'
import { FleetEventStreams } from './tracker-events.js'
import type { TrackerLimits } from './tracker-limits.js'
import { fleetStatusTopic } from './tracker-will.js'
import { RoomOccupancyTopics } from './room-occupancy-topics.js'
import type { FleetTrackerEvents, FleetTrackerOptions } from './tracker-types.js'

/** The parts of a tracker (see the file comment). */
export interface TrackerParts {
  readonly state: FleetState
  readonly outbox: Outbox
  readonly topics: FleetTopics
  /** With Home Assistant: its birth makes every config go out again. */
  readonly birth: HaBirthWatch | undefined
  readonly presence: FleetPresence
  /** Names and the gateways' own readings of each beacon. */
  readonly facts: BeaconFacts
  /** Scale-out coordination, when this tracker shares the beacons with others. */
  readonly scaleOut: ScaleOut | undefined
  readonly streams: FleetEventStreams
  /** Reads the retained fleet states: ghosts at start, seeds of a scale-out takeover. */
  readonly reader: RetainedReader
  readonly ghosts: GhostStates
  /** The positioner the tracker made for itself (see site-positioner.ts), if any. */
  own: SitePositioner | undefined
  /** Its own or the one given (`options.positioner`); its own is made again on a new site (site-change.ts). */
  positioner: PositionEstimator | undefined
  /** Without scale-out: the occupancy per room of the site (#39), which says nothing while it has no rooms. */
  readonly occupancy: RoomOccupancyTopics | undefined
}

/** What the parts need of the tracker that holds them. */
export interface TrackerHost {
  readonly clock: Clock
  readonly topicPrefix: string
  emit: SafeEmitter<FleetTrackerEvents>['emit']
  /** The connection, once open. */
  link(): MqttLink | undefined
  /** A fleet message reached the broker. */
  published(): void
  /** Clears every retained topic of a beacon the tracker forgets. */
  clearBeacon(id: string): void
  /** The tracker's retained status topic and its `online` payload now. */
  statusTopic(): string
  statusPayload(state: 'online' | 'offline'): string
}

/** Builds and wires the parts (see the file comment). */
export function trackerParts(
  options: FleetTrackerOptions,
  mqtt: ReturnType<typeof resolvePublisherOptions>,
  limits: TrackerLimits,
  host: TrackerHost,
): TrackerParts {
  const { clock, topicPrefix } = host
  const ha = mqtt.homeAssistant
  const haPrefix =
    ha === undefined ? undefined : checkTopicPrefix(ha.prefix ?? DEFAULT_HA_PREFIX, 'homeAssistant.prefix')
  const broker = mqtt.broker
  const outbox: Outbox = new Outbox(
    { maxQueuedEvents: 1, maxInflight: 100, ackTimeoutMs: mqtt.ackTimeoutMs },
    {
      sent: () => host.published(),
      dropped: () => undefined,
      // Reported once per reason; the rest are counted in stats.refused.
      refused: (info) => {
        if (outbox.refused[info.reason] === 1) host.emit('error', refusedError(info.reason, info.reasonCode))
      },
      acks: (info) => host.emit('warning', ackWarning(info, broker)),
    },
  )
  const topics = new FleetTopics(
    outbox,
    topicPrefix,
    limits.publishIntervalMs,
    ha === undefined || haPrefix === undefined
      ? undefined
      : { prefix: haPrefix, availability: options.scaleOut === undefined, gate: ha },
    options.holdsIdentity,
  )
  // One publisher per room: with scale-out each tracker holds only some beacons, so none counts a room.
  // Made without rooms too: a site the running fleet takes later (setSite) may draw them.
  const rooms = options.site?.rooms ?? []
  const occupancy =
    options.scaleOut !== undefined
      ? undefined
      : new RoomOccupancyTopics(
          outbox,
          topicPrefix,
          rooms,
          haPrefix === undefined ? undefined : { prefix: haPrefix, availability: true },
        )
  const birth =
    haPrefix === undefined
      ? undefined
      : new HaBirthWatch(haPrefix, () => {
          topics.reannounce()
          occupancy?.reannounce()
        })
  const maxBeacons = options.maxBeacons ?? DEFAULT_MAX_BEACONS
  const presence = new FleetPresence(outbox, topicPrefix, maxBeacons, limits.forgetAfterMs)
  const facts: BeaconFacts = new BeaconFacts(
    options.site,
    (gateway) => state.offsetOf(gateway) !== undefined,
    {},
    options.holdsIdentity,
  )
  const own = sitePositioner(options, (error) => host.emit('error', error))
  const state: FleetState = new FleetState(
    own === undefined ? options : { ...options, positioner: own.positioner },
    {
      found: (b) => {
        topics.found(b.id, b.time, { vouched: facts.named(b.id) })
        topics.put(b)
        presence.present(b)
        ghosts.settled(b.id)
        occupancy?.changed()
        host.emit('found', b)
      },
      gone: (b, evicted) => {
        // Evicted for a stronger claim: forgotten (docs/fleet.md), not merely away.
        if (evicted === true) host.clearBeacon(b.id)
        else {
          topics.gone(b.id, b.time)
          presence.gone(b.id, b.time, b.name)
        }
        ghosts.settled(b.id)
        occupancy?.changed()
        host.emit('gone', b)
      },
      room: (b, change) => {
        topics.put(b)
        presence.present(b)
        occupancy?.changed()
        host.emit('room', b, change)
      },
      floor: (b, change) => {
        // The room method (#39): the retained state and presence carry the floor beside the room.
        topics.put(b)
        presence.present(b)
        occupancy?.changed()
        host.emit('floor', b, change)
      },
      moved: (b) => {
        // A walking tag's retained state follows it at the batches' pace (at most once a second).
        topics.moved(b)
        host.emit('moved', b)
      },
      gatewayForgotten: (gateway) => host.emit('gateway', { gateway, state: 'forgotten', time: clock.now() }),
      gatewayClock: (gateway, refused, offsetMs) =>
        host.emit('gatewayClock', { gateway, refused, offsetMs, time: clock.now() }),
    },
    (id) => facts.describe(id),
  )
  const scaleOut: ScaleOut | undefined =
    options.scaleOut === undefined
      ? undefined
      : new ScaleOut(options.scaleOut, topicPrefix, {
          link: () => host.link(),
          now: () => clock.now(),
          state,
          topics,
          reader: () => reader,
          suspect: (id) => ghosts.suspect(id, clock.now()),
          changed: (info) => host.emit('partitions', info),
          announce: () => outbox.putStatus(host.statusTopic(), host.statusPayload('online')),
          error: (error) => host.emit('error', error),
        })
  const statusTopic: string = scaleOut?.statusTopic ?? fleetStatusTopic(topicPrefix)
  const reader: RetainedReader = new RetainedReader(topicPrefix, `${statusTopic}/sync`)
  const ghosts: GhostStates = new GhostStates(maxBeacons, options.goneTimeoutMs ?? DEFAULT_GONE_TIMEOUT_MS, {
    present: (id) => state.get(id, clock.now()) !== undefined,
    owns: (id) => scaleOut?.holds(id) ?? true,
    clear: (id) => {
      topics.clear(id, { always: true })
      // A present state an earlier run left that no gateway confirmed: the beacon is away.
      presence.ghost(id, clock.now(), facts.describe(id)?.name)
    },
    backlog: () => outbox.pending,
  })
  const streams = new FleetEventStreams(limits.eventBufferSize)
  const positioner = own?.positioner ?? options.positioner
  return {
    state,
    outbox,
    topics,
    birth,
    presence,
    facts,
    scaleOut,
    streams,
    reader,
    ghosts,
    own,
    positioner,
    occupancy,
  }
}
