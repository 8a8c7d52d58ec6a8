/** The options, events and counters of the fused state (fleet-state.ts), and their defaults. */
import type { RoomChange, RoomOptions } from './room-choice.js'
import type { Site } from '../positioning/site.js'
import type { RoomLocator } from '../positioning/room-locator.js'
import type { AwayTimer } from './away-timer.js'
import type { FleetBeacon, PositionEstimator } from './fleet-beacon.js'

/** Default of {@link FleetStateOptions.goneTimeoutMs}. */
export const DEFAULT_GONE_TIMEOUT_MS = 30_000

/** Default of {@link FleetStateOptions.maxBeacons}. */
export const DEFAULT_MAX_BEACONS = 100_000

/** Options of `FleetState`. */
export interface FleetStateOptions extends RoomOptions {
  site?: Site
  /** No gateway heard it for this long: gone (default 30000 ms). */
  goneTimeoutMs?: number
  /**
   * The room method of #39 (floor first, then room; offsets; fingerprints), built on the same
   * site: rooms and floors are decided by it instead of the strongest gateway (room-choice.ts).
   */
  rooms?: RoomLocator
  /**
   * Away in seconds (#39): a beacon goes once nothing was heard for 3 of its learnt advertising
   * intervals + 1 s, instead of the gone timeout (which it keeps for beacons not learnt yet and
   * while their gateways are offline: give it `fallbackMs: goneTimeoutMs`).
   */
  away?: AwayTimer
  /** A gateway counts as hearing a beacon for this long after its latest reading (default 10000 ms). */
  hearingMs?: number
  /** Positions for beacons, when the site has anchor positions. */
  positioner?: PositionEstimator
  /**
   * A position this many metres or more from where `moved` last reported the beacon (or first
   * placed it) is reported as `moved` (default 1); less is not.
   */
  moveThresholdM?: number
  /**
   * A position counts as evidence for the room it lies in only when its accuracy radius is at
   * most this many metres (default 4): a filter that has just started spreads its first
   * estimates over the whole plan, and their centre names a room the beacon may not be in.
   */
  roomAccuracyM?: number
  /**
   * Beacons tracked at most (default 100000). When full, a new beacon with a stronger claim
   * (heard by a site gateway, a stable identity) evicts the least recently heard beacon of the
   * weakest claim (`evictedBeacons`, with a `gone`); otherwise it is skipped (`droppedBeacons`).
   */
  maxBeacons?: number
  /**
   * New beacons one gateway id may introduce into the table, counted while they are tracked
   * (default 20000, twice what a gateway at 10,000 beacons hears): one client flooding fake ids
   * under one gateway id cannot fill it. Beyond it: skipped and counted in `refusedBeacons`.
   */
  maxBeaconsPerGateway?: number
  /**
   * Whether the fleet's IRK file holds this key name: an `irk:<name>` beacon is then a stable
   * identity (admission, Home Assistant) named by it. Without it, `irk:` ids are judged as any
   * other made-up id (a site's `beacons` list may still name them).
   */
  holdsIdentity?: (name: string) => boolean
  /**
   * Readings read from one batch at most (default 20000, the same reasoning); the rest of the
   * batch is skipped and counted in `skippedReadings`.
   */
  maxBatchReadings?: number
  /** Gateways known at most; a new one beyond is skipped and counted in `droppedGateways` (default 10000). */
  maxGateways?: number
  /**
   * A gateway that sent nothing (no batch, no status) for this long is forgotten, whatever its last
   * status (default 600000 ms).
   */
  gatewayForgetMs?: number
  /**
   * A batch whose `time` is further than this from its arrival is skipped and counted in
   * `clockRejected` (default 30 days): a Pi without a real-time clock boots at the time it last
   * saved (fake-hwclock), hours or days behind until NTP answers, but never a month; a stamp
   * further off is hostile or a clock at 1970, and would shift every reading of the gateway.
   */
  maxClockOffsetMs?: number
}

/** Default of {@link FleetStateOptions.maxClockOffsetMs}: 30 days. */
export const DEFAULT_MAX_CLOCK_OFFSET_MS = 30 * 24 * 3600 * 1000

/** What the fused state reports. */
export interface FleetStateEvents {
  found(b: FleetBeacon): void
  /** `evicted`: dropped to make room for a beacon with a stronger claim, not gone by the timeout. */
  gone(b: FleetBeacon, evicted?: boolean): void
  room(b: FleetBeacon, change: RoomChange): void
  /** Its floor changed (or was first decided), with the room method (`rooms`). */
  floor?(b: FleetBeacon, change: RoomChange): void
  moved(b: FleetBeacon): void
  /**
   * A gateway was forgotten: silent for `gatewayForgetMs`, or evicted to make room for a site
   * gateway or one that sends batches (its readings no longer count). Lists of gateways kept elsewhere drop it too.
   */
  gatewayForgotten?(gateway: string): void
  /**
   * A gateway's batches are refused for their clock (`refused`, its first such batch; `offsetMs`
   * is arrival minus stamp) or, after that, taken again. Once each way per gateway.
   */
  gatewayClock?(gateway: string, refused: boolean, offsetMs: number): void
}

/** Counters of the fused state. */
export interface FleetStateStats {
  batches: number
  observations: number
  /** Batches or readings that were not of the published shape (skipped). */
  malformed: number
  /** Readings of new beacons skipped because `maxBeacons` were tracked and none had a weaker claim. */
  droppedBeacons: number
  /** Readings of new beacons skipped because their gateway had introduced `maxBeaconsPerGateway`. */
  refusedBeacons: number
  /** Beacons forgotten (with a `gone`) to make room for a new one with a stronger claim. */
  evictedBeacons: number
  /** Readings beyond `maxBatchReadings` in a batch (skipped). */
  skippedReadings: number
  /** Batches and statuses of new gateways skipped because `maxGateways` were known. */
  droppedGateways: number
  /** Gateways known now. */
  gateways: number
  /** Statuses skipped because they were sent `gatewayForgetMs` or more before they arrived (retained leftovers). */
  staleStatuses: number
  /** Batches skipped because their `time` was more than `maxClockOffsetMs` from their arrival. */
  clockRejected: number
  /** Gateways whose batches are refused for their clock now (their latest batch was; at most 100 known). */
  clockRefusedGateways: number
  /**
   * Ticks' room decisions made from a beacon's previous position because the tick's time for
   * positioning was spent (see `FleetState.beginTick`): a tracker short of CPU updates positions
   * less often instead of falling behind its messages.
   */
  positionsDeferred: number
}
