/**
 * The floor and room of one beacon, held with hysteresis over smoothed room scores (the room
 * method, room-locator.ts): scores are log-likelihoods, smoothed with a time constant; the floor
 * changes when another floor's best room leads the current floor's by `floorMargin` for
 * `floorDwellMs`, and the room when another room **of the current floor** leads the current room
 * by `roomMargin` for `roomDwellMs`. A new floor takes its leading room at once.
 */
import type { RoomGeometry } from './room-geometry.js'

/** The hysteresis of the room method. */
export interface RoomHysteresis {
  /** ms, time constant of the score smoothing (default 1000). */
  timeConstantMs?: number
  /** Log-likelihood lead a new room needs (default 1.5). */
  roomMargin?: number
  /** ms the new room must lead (default 1000). */
  roomDwellMs?: number
  /** Log-likelihood lead a new floor needs (default 4). */
  floorMargin?: number
  /** ms the new floor must lead (default 3000). */
  floorDwellMs?: number
}

/** A beacon's floor and room now, and what changed at this reading. */
export interface RoomDecision {
  /** Floor id; absent on a one-plane site or before the first decision. */
  floor?: string
  room?: string
  floorChange?: { from?: string; to: string }
  roomChange?: { from?: string; to: string }
}

/** Smoothed scores below this count as this (a vetoed room must not poison the mean forever). */
const FLOOR_SCORE = -1000

/** One beacon's state (see the file comment). */
export class BeaconRooms {
  private readonly smoothed: Float64Array
  private readonly vetoed: Uint8Array
  private readonly floorBest: Float64Array
  private last = Number.NaN
  floor = -1
  room = -1
  private floorCandidate = -1
  private floorSince = 0
  private roomCandidate = -1
  private roomSince = 0

  constructor(
    private readonly geo: RoomGeometry,
    private readonly h: RoomHysteresis,
  ) {
    this.smoothed = new Float64Array(geo.rooms.length)
    this.vetoed = new Uint8Array(geo.rooms.length)
    this.floorBest = new Float64Array(geo.floors.length)
  }

  /** Whether the room holds with no challenger (a place good enough to learn offsets from). */
  get settled(): boolean {
    return this.room >= 0 && this.roomCandidate < 0 && this.floorCandidate < 0
  }

  /** The decision as it stands. */
  decision(): RoomDecision {
    const d: RoomDecision = {}
    if (this.room >= 0) d.room = this.geo.rooms[this.room].name
    const f = this.floor >= 0 ? this.geo.floors[this.floor] : ''
    if (f !== '') d.floor = f
    return d
  }

  /** Takes this reading's room scores (−Infinity: the room is out) at `now`. */
  update(total: Float64Array, now: number): RoomDecision {
    const tau = this.h.timeConstantMs ?? 1000
    const first = Number.isNaN(this.last)
    const a = first ? 1 : 1 - Math.exp(-Math.max(0, now - this.last) / tau)
    this.last = now
    const rooms = this.geo.rooms
    for (let r = 0; r < rooms.length; r++) {
      const t = total[r]
      this.vetoed[r] = t === -Infinity ? 1 : 0
      const v = Math.max(FLOOR_SCORE, t)
      this.smoothed[r] += a * (v - this.smoothed[r])
    }
    this.floorBest.fill(-Infinity)
    for (let r = 0; r < rooms.length; r++) {
      if (this.vetoed[r] === 1) continue
      const f = rooms[r].floor
      if (this.smoothed[r] > this.floorBest[f]) this.floorBest[f] = this.smoothed[r]
    }
    const before = this.decision()
    const change: RoomDecision = {}
    let floorLeader = -1
    for (let f = 0; f < this.floorBest.length; f++)
      if (this.floorBest[f] > -Infinity && (floorLeader < 0 || this.floorBest[f] > this.floorBest[floorLeader]))
        floorLeader = f
    if (floorLeader < 0) return before
    if (this.floor < 0) this.floor = floorLeader
    else if (floorLeader !== this.floor) {
      const lead = this.floorBest[floorLeader] - this.floorBest[this.floor]
      if (lead < (this.h.floorMargin ?? 4)) this.floorCandidate = -1
      else {
        if (this.floorCandidate !== floorLeader) [this.floorCandidate, this.floorSince] = [floorLeader, now]
        if (now - this.floorSince >= (this.h.floorDwellMs ?? 3000)) {
          this.floor = floorLeader
          this.floorCandidate = -1
          this.room = -1
        }
      }
    } else this.floorCandidate = -1
    let roomLeader = -1
    for (let r = 0; r < rooms.length; r++) {
      if (rooms[r].floor !== this.floor || this.vetoed[r] === 1) continue
      if (roomLeader < 0 || this.smoothed[r] > this.smoothed[roomLeader]) roomLeader = r
    }
    if (roomLeader >= 0) {
      // The current room is out (its gateways fell silent): the leader takes over at once.
      if (this.room < 0 || this.vetoed[this.room] === 1) {
        this.room = roomLeader
        this.roomCandidate = -1
      } else if (this.floorCandidate >= 0) {
        // Another floor is leading: the room waits for the floor's decision rather than wander
        // to the room of this floor nearest to the one above or below.
        this.roomCandidate = -1
      } else if (roomLeader !== this.room) {
        const lead = this.smoothed[roomLeader] - this.smoothed[this.room]
        if (lead < (this.h.roomMargin ?? 1.5)) this.roomCandidate = -1
        else {
          if (this.roomCandidate !== roomLeader) [this.roomCandidate, this.roomSince] = [roomLeader, now]
          if (now - this.roomSince >= (this.h.roomDwellMs ?? 1000)) {
            this.room = roomLeader
            this.roomCandidate = -1
          }
        }
      } else this.roomCandidate = -1
    }
    const after = this.decision()
    Object.assign(change, after)
    if (after.floor !== undefined && after.floor !== before.floor)
      change.floorChange = before.floor === undefined ? { to: after.floor } : { from: before.floor, to: after.floor }
    if (after.room !== undefined && after.room !== before.room)
      change.roomChange = before.room === undefined ? { to: after.room } : { from: before.room, to: after.room }
    return change
  }
}
