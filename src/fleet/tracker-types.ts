/**
 * Options, events and counters of FleetTracker: the tracker's public shapes, kept apart from its
 * wiring so each file holds one idea.
 */

import type { MqttClientLike } from '../mqtt/client.js'
import type { MqttTlsOptions } from '../mqtt/link-settings.js'
import type { MqttRefusedReason } from '../mqtt/refusals.js'
import type { MqttAckWarning } from '../mqtt/inflight.js'
import type { HaGateStats, HomeAssistantOptions } from '../mqtt/ha-gate.js'
import type { Clock } from '../clock.js'
import type { FleetBeacon } from './fleet-beacon.js'
import type { FleetStateOptions, FleetStateStats } from './fleet-state-options.js'
import type { RoomChange } from './room-choice.js'
import type { FleetPositioning } from './site-positioner.js'
import type { Site } from '../positioning/site.js'
import type { ThreadedPositionerStats } from '../positioning/positioner-thread-types.js'
import type { BeaconFactsStats } from './beacon-facts.js'
import type { FleetPresenceStats } from './fleet-presence.js'

/** Options of {@link FleetTracker}. Give `url` or `client`. */
export interface FleetTrackerOptions extends FleetStateOptions {
  /** `mqtt://host:1883`, `mqtts://host:8883`, `ws://…`. */
  url?: string
  /** A connected mqtt.js 5 client to listen and publish through instead; its will and reconnects stay yours. */
  client?: MqttClientLike
  /** Topic prefix `<p>`, default `beaconkit`. */
  topicPrefix?: string
  /**
   * A present beacon's retained `<p>/fleet/beacons/<id>` is republished at most this often
   * (default 5000 ms); found, room changes and gone go out at once.
   */
  publishIntervalMs?: number
  /**
   * A beacon gone this long is forgotten: its retained `<p>/fleet/presence/<id>` (which says
   * `present: false` while it is away) is cleared. Default `homeAssistant.expireMs` when given,
   * else 604800000 (7 days). Beacons away are also kept at most `maxBeacons`: beyond, the one
   * gone longest is forgotten.
   */
  forgetAfterMs?: number
  /** Time of the fused state and the 1 s tick; default the real clock. */
  clock?: Clock
  /**
   * The MQTT client id, used as given. Default `beaconkit-fleet-<host>-<6 random hex>`, unique per
   * process (with `scaleOut`: `beaconkit-fleet-<trackerId>`). Two clients with one id throw each
   * other off the broker: reported once as an `error` with code `session_taken_over`.
   */
  clientId?: string
  username?: string
  /** File whose first line is the broker password. */
  passwordFile?: string
  /**
   * The broker password itself (from the environment or a private config file); `passwordFile` wins.
   * Never a property.
   */
  password?: string
  tls?: MqttTlsOptions
  /**
   * Reconnect delay: starts at `initialDelayMs` (default 1000), doubles per failure up to `maxDelayMs`
   * (default 5000), each wait jittered (half to all of the step).
   */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number }
  /** Default 10000. */
  connectTimeoutMs?: number
  /**
   * A broker that has acknowledged nothing (no PUBACK, or no SUBACK for the subscription) for
   * this long while something waits has stopped acknowledging: a `warning` event, and `stop()`
   * gives up flushing after this long without any acknowledgement. Default 5000.
   */
  ackTimeoutMs?: number
  /**
   * Home Assistant discovery (docs/fleet.md): per beacon a `device_tracker` (home / not_home), a
   * Room sensor and a sensor per fused value, on one device named from the site. Off by default;
   * `true` uses the prefix `homeassistant`. Announced only for a stable identity
   * (`isStableIdentity`), after `dwellMs` (30 s) heard and below `maxBeacons` (1000); removed
   * after `expireMs` (7 days) gone, or when the beacon is forgotten (ha-gate.ts).
   */
  homeAssistant?: boolean | HomeAssistantOptions
  /**
   * Without a `positioner`, a site that places its gateways (x, y) gets one made by the tracker,
   * and `<p>/fleet/beacons/<id>` carries `position`: choose its `method`, give a `radioMap`
   * (from a survey), or say whether the grid filter runs on a worker thread (`thread`, default
   * with more than one core) here, or `false` for none.
   */
  positioning?: false | FleetPositioning
  /**
   * Gateway messages (and retained fleet states) larger than this many bytes are skipped
   * unparsed and counted in `stats.oversized` (default 4194304, 4 MiB: a batch of 10,000 beacons
   * is about 880 KiB). With MQTT 5 the tracker's own client also announces it, plus 128 KiB for
   * the topic, as its maximum packet size, so the broker never sends it a larger message; a
   * `client` given in the options keeps its own settings.
   */
  maxPayloadBytes?: number
  /** Events kept for a slow `for await` consumer; beyond it the oldest are dropped and counted (default 10000). */
  eventBufferSize?: number
  /**
   * Scale-out (docs/fleet.md "Scaling out"): this tracker is one of several that split the
   * beacons. The gateways must publish their batches in `partitions` partitions
   * (`MqttPublisher` option `rssiPartitions`, the same number everywhere).
   */
  scaleOut?: FleetScaleOutOptions
}

/** Options of a tracker that shares the beacons with others. */
export interface FleetScaleOutOptions {
  /** Number of partitions the gateways publish (`rssiPartitions`), 2–1024. */
  partitions: number
  /**
   * This tracker's id (`[A-Za-z0-9_-]+`), unique among the trackers; its status is
   * `<p>/fleet/trackers/<id>`. A stable id gives a restarted tracker its partitions back.
   * Default: the host name and a random suffix.
   */
  trackerId?: string
  /** The shared-subscription group, `$share/<group>/…` (default `beaconkit-fleet`). */
  group?: string
}

/**
 * A gateway's status as the tracker saw it change; `forgotten` when the tracker let it go
 * (silent for `gatewayForgetMs`, or evicted for a site gateway or a batch when `maxGateways` were known):
 * a list of gateways kept from these events drops it, so it stays bounded by the tracker's.
 */
export interface FleetGatewayEvent {
  gateway: string
  state: 'online' | 'offline' | 'forgotten'
  /** ms on the tracker's clock, when the status arrived. */
  time: number
}

/** Events of a {@link FleetTracker}. */
export interface FleetTrackerEvents {
  /** A beacon heard by some gateway for the first time, or again after it was gone. */
  found: [beacon: FleetBeacon]
  /** No gateway heard it for `goneTimeoutMs`. */
  gone: [beacon: FleetBeacon]
  /** The beacon was placed in a room, or moved to another (with hysteresis). */
  room: [beacon: FleetBeacon, change: RoomChange]
  /** With the room method (`rooms`): the beacon's floor was decided, or changed (ids in `change`). */
  floor: [beacon: FleetBeacon, change: RoomChange]
  /** Its position moved (with a positioner). */
  moved: [beacon: FleetBeacon]
  /** A gateway's status changed (`offline` includes its last will), or it was `forgotten`. */
  gateway: [info: FleetGatewayEvent]
  /**
   * A gateway the site does not declare published an RSSI batch: its readings give no room.
   * Once per gateway id, for the first 100 ids (with a site of gateways only).
   */
  unknownGateway: [info: { gateway: string; time: number }]
  /** A site given to `setSite` took effect (at the start of a tick): what logs and views follow. */
  site: [info: { site: Site; time: number }]
  /**
   * A gateway's RSSI batches are refused because their `time` is more than `maxClockOffsetMs`
   * from their arrival (`refused: true`, at its first such batch; `offsetMs` is arrival minus
   * stamp), or are taken again after that (`refused: false`). Once each way per gateway.
   */
  gatewayClock: [info: FleetGatewayClock]
  /** Every second: the beacons present. */
  updated: [beacons: FleetBeacon[]]
  /** Scale-out: the partitions this tracker holds changed (sorted), and the live trackers it counted. */
  partitions: [info: { partitions: number[]; trackers: string[] }]
  /** Connected to the broker (again) and subscribed. */
  connected: [info: { protocolVersion: 4 | 5 }]
  /** The broker connection was lost; mqtt.js reconnects. */
  disconnected: []
  /** A connection problem (retried) or a listener that threw. */
  error: [error: Error]
  /**
   * The broker stopped acknowledging (`acks_stalled`: nothing acknowledged for `ackTimeoutMs`
   * while fleet messages or the subscription waited) or acknowledges again (`acks_resumed`);
   * once per change.
   */
  warning: [warning: MqttAckWarning]
}

/** Counters of a {@link FleetTracker}. */
/** What a `gatewayClock` event says. */
export interface FleetGatewayClock {
  gateway: string
  refused: boolean
  /** Arrival minus the batch's stamp, ms (tracker clock minus gateway clock). */
  offsetMs: number
  time: number
}

export interface FleetTrackerStats extends FleetStateStats {
  /** Gateway messages that were not JSON, or a status of another shape (skipped; also counted in `malformed`). */
  unparsable: number
  /** Messages over `maxPayloadBytes`, skipped unparsed. */
  oversized: number
  /** Retained `present` states that no gateway confirmed within the gone timeout of the tracker's start, cleared. */
  ghostsCleared: number
  /**
   * RSSI batches that arrived retained (skipped): the contract never retains a batch, so one is a
   * leftover of an earlier run (or a forgery) whose readings and clock stamp are stale.
   */
  retainedBatches: number
  /** Statuses and batches on a topic whose gateway id is not `[A-Za-z0-9_-]{1,128}` (skipped). */
  invalidIds: number
  /**
   * The gateways' retained beacon states read for names and `values` (`<p>/gateways/+/beacons/+`):
   * held, skipped at a bound, of unknown gateways, clamped, and skipped as invalid ids, too
   * large or malformed (counted here only, not in `malformed`).
   */
  beaconStates: BeaconFactsStats
  /** Presence topics: beacons away now, and presences cleared because the beacon was forgotten. */
  presence: FleetPresenceStats
  /**
   * `<p>/fleet/forget` commands (`beaconkit fleet forget`): beacons forgotten on request, and
   * messages skipped as not `{"id": "<beacon id>"}` (too large, not JSON, an id that is no topic level).
   */
  forgetCommands: { done: number; invalid: number }
  /** Fleet messages handed to the broker. */
  published: number
  /**
   * Fleet messages dropped because the broker will never take them (docs/mqtt.md "Refused
   * publishes"): an invalid topic, a refusing MQTT 5 PUBACK, a message the broker closed the
   * connection on every time (poison). Never retried.
   */
  refused: Record<MqttRefusedReason, number>
  /** Events dropped by slow async iterators. */
  eventsDropped: number
  /** Scale-out: beacons taken over from retained states (no `found`), and let go to another tracker (no `gone`). */
  seeded: number
  released: number
  /** With Home Assistant: beacons announced, refused at the cap, and whose configs were removed. */
  homeAssistant?: HaGateStats
  /**
   * The positioning thread's counters, when positions are worked out on one
   * (`positioning.thread`): readings handed to it, dropped because it fell behind, invalid, and
   * whether it failed (positions then go on in the tracker's own thread).
   */
  positioningThread?: ThreadedPositionerStats
}
