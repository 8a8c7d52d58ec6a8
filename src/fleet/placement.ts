/**
 * Placing one beacon on a tick: its position from the positioner (or the one it had), a `moved`
 * when it went far enough, and its room decided with hysteresis (room-choice.ts) from the
 * evidence of its gateways and its position (room-evidence.ts).
 */
import type { Site } from '../positioning/site.js'
import type { RoomLocator } from '../positioning/room-locator.js'
import type { PositionEstimator } from './fleet-beacon.js'
import type { FleetStateOptions } from './fleet-state-options.js'
import type { Fused } from './fused-beacon.js'
import { roomEvidence } from './room-evidence.js'
import { decideRoom, type RoomChange } from './room-choice.js'

/** How long a new beacon's first room waits for the other gateways' batches (one batch interval). */
const FIRST_ROOM_WAIT_MS = 1000

/** What placing reports, with the view of the beacon at the time. */
export interface PlacementEvents {
  moved(b: Fused, now: number): void
  room(b: Fused, now: number, change: RoomChange): void
  floor?(b: Fused, now: number, change: RoomChange): void
  /** Whether a gateway is up at `now`: only an online gateway's silence is evidence (room method). */
  online?(gateway: string, now: number): boolean
}

/** How one beacon is placed. */
export interface PlaceOptions {
  /**
   * Ask the positioner for a new position (default true); false decides the room from the
   * position the beacon had (a tick whose time for positioning is spent).
   */
  estimate?: boolean
}

/** Places beacons (see the file comment): the fused state's options, read once. */
export class BeaconPlacer {
  private site: Site | undefined
  private positioner: PositionEstimator | undefined
  private readonly dwellMs: number
  private readonly marginDb: number
  private readonly moveThresholdM: number
  private readonly roomAccuracyM: number
  /** Reused for every beacon (see roomEvidence). */
  private readonly evidence = new Map<string, number>()
  private rooms: RoomLocator | undefined

  constructor(
    options: FleetStateOptions,
    private readonly on: PlacementEvents,
  ) {
    this.site = options.site
    this.positioner = options.positioner
    this.dwellMs = options.dwellMs ?? 4_000
    this.marginDb = options.marginDb ?? 3
    this.moveThresholdM = options.moveThresholdM ?? 1
    this.roomAccuracyM = options.roomAccuracyM ?? 4
    this.rooms = options.rooms
  }

  /**
   * A new site (FleetState.setSite) and its room method (`rooms`: the plan method's locator on
   * it; undefined: the strongest gateway's evidence), and its positioner (undefined: none).
   */
  setSite(site: Site | undefined, rooms: RoomLocator | undefined, positioner: PositionEstimator | undefined): void {
    this.site = site
    this.rooms = rooms
    this.positioner = positioner
  }

  /** Whether beacons are positioned: placing one is then a filter update, not a few comparisons. */
  get positioned(): boolean {
    return this.positioner !== undefined
  }

  /** A reading for the positioner, if there is one. */
  observe(o: { time: number; anchor: string; beacon: string; rssi: number }): void {
    this.positioner?.observe(o)
  }

  /** Lets go of a beacon's state in the positioner and the room method (gone, forgotten). */
  forget(id: string): void {
    this.positioner?.forget?.(id)
    this.rooms?.forget(id)
  }

  /** The room method's decision for `b` (#39): floor and room from what its gateways hear. */
  private locate(b: Fused, now: number): void {
    if (b.room === undefined && now - b.firstSeen < FIRST_ROOM_WAIT_MS) return
    const online = this.on.online
    const d = (this.rooms as RoomLocator).locate(b.id, b.gateways, now, online && ((g) => online(g, now)))
    // Changes are the beacon's own, not the locator's: a locator rebuilt on a new site starts
    // each beacon afresh, and its first decision of the room the beacon is already in is no change.
    const floorFrom = b.floor
    const roomFrom = b.room
    if (d.floor !== undefined) b.floor = d.floor
    if (d.room !== undefined) b.room = d.room
    if (d.floorChange !== undefined && d.floor !== floorFrom)
      this.on.floor?.(b, now, { ...(floorFrom === undefined ? {} : { from: floorFrom }), to: d.floorChange.to })
    if (d.roomChange !== undefined && d.room !== roomFrom)
      this.on.room(b, now, { ...(roomFrom === undefined ? {} : { from: roomFrom }), to: d.roomChange.to })
  }

  /**
   * The time a tick at `now` asks positions for: the last whole step of the positioner (a
   * second, for the grid filter) at or before `now`. An estimate's newest packets then make one
   * whole step, which the next tick folds in for good by taking the estimate over; at any other
   * time they straddle two steps, and every beacon cost two updates for each estimate and two
   * more to fold them for good. A tracker's tick falls just after a whole second (see
   * `FleetTracker.start`), so the position is as of a few ms before the tick.
   */
  positionTime(now: number): number {
    const step = this.positioner?.stepMs
    return step === undefined || !(step > 0) ? now : Math.floor(now / step) * step
  }

  /** Places `b` at `now` (see the file comment). */
  place(b: Fused, now: number, { estimate = true }: PlaceOptions = {}): void {
    const site = this.site
    const fix: { x: number; y: number; accuracy: number; room?: string } | undefined = estimate
      ? this.positioner?.estimate(b.id, this.positionTime(now))
      : b.position
    if (fix !== undefined) {
      const was = b.reported
      const position = { x: fix.x, y: fix.y, accuracy: fix.accuracy }
      b.position = position
      if (was === undefined) b.reported = position
      else if (Math.hypot(was.x - position.x, was.y - position.y) >= this.moveThresholdM) {
        b.reported = position
        this.on.moved(b, now)
      }
    }
    if (site === undefined) return
    if (this.rooms !== undefined) {
      this.locate(b, now)
      return
    }
    const at =
      fix === undefined || fix.accuracy > this.roomAccuracyM ? undefined : (fix.room ?? site.roomAt(fix.x, fix.y))
    const evidence = roomEvidence(this.evidence, site, b.gateways, at, this.marginDb)
    // A beacon just found has been heard by whichever gateway's batch came first; its first
    // room waits one batch interval so that every gateway hearing it has had its say.
    if (b.room === undefined && now - b.firstSeen < FIRST_ROOM_WAIT_MS) return
    const change = decideRoom(b, evidence, now, this.dwellMs, this.marginDb)
    if (change !== undefined) this.on.room(b, now, change)
  }
}
