/**
 * The room method of #39: which floor, then which room a beacon is in, from what the gateways
 * hear. Per beacon and reading:
 * 1. what each gateway heard, its learnt offset taken off (gateway-offsets.ts), is scored against
 *    the plan (room-scores.ts) and, where rooms were taught, against their fingerprints
 *    (fingerprints.ts, in dBm as heard);
 * 2. a room with gateways of its own, online and none hearing the beacon, is out: silence in the
 *    room outweighs any estimate of where the beacon is;
 * 3. the scores are smoothed over time; the **floor** is decided first, with hysteresis, from
 *    the best room of each floor (a slab costs 10–20 dB, so the floors' best rooms differ by far
 *    more than two rooms of one floor); the **room** is then chosen among that floor's rooms only,
 *    with hysteresis of its own, so a room on another floor is never chosen without the floor
 *    changing;
 * 4. a beacon whose room is settled and that at least three placed gateways hear teaches the
 *    offsets (slowly, robustly); so does a finished teaching and a fixed beacon at a known place.
 * Pure: time is the caller's, no I/O; bounded in beacons.
 */
import {
  FingerprintRecorder,
  Fingerprints,
  matchFingerprint,
  type FingerprintSample,
  type MatchOptions,
} from './fingerprints.js'
import { GatewayOffsets, type OffsetOptions } from './gateway-offsets.js'
import { RoomGeometry, type GeometryOptions } from './room-geometry.js'
import { RoomScorer, type ScoreOptions } from './room-scores.js'
import type { Site } from './site.js'
import { BeaconRooms, type RoomDecision, type RoomHysteresis } from './room-hysteresis.js'

export type { RoomDecision } from './room-hysteresis.js'

/** Options of the room method. */
export interface RoomLocatorOptions extends RoomHysteresis {
  geometry?: GeometryOptions
  scores?: ScoreOptions
  offsets?: OffsetOptions
  /** Learn gateway offsets (default true). */
  learnOffsets?: boolean
  /** How readings are compared with fingerprints (fingerprints.ts). */
  match?: MatchOptions
  /** The taught fingerprints to use (and add teachings to); default an empty store. */
  fingerprints?: Fingerprints
  /** Weight of the plan's score against the fingerprints' once rooms are taught (default 2). */
  geometryWeight?: number
  /** Beacons held at most (default 100000): the least recently located gives way. */
  maxBeacons?: number
}

/** One gateway's reading of a beacon: smoothed dBm, as heard. */
export interface RoomReading {
  gateway: string
  rssi: number
}

const always = (): boolean => true

/** The room method (see the file comment). */
export class RoomLocator {
  readonly geometry: RoomGeometry
  readonly offsets: GatewayOffsets
  readonly fingerprints: Fingerprints
  private readonly scorer: RoomScorer
  private readonly learn: boolean
  private readonly geometryWeight: number
  private readonly maxBeacons: number
  private readonly beacons = new Map<string, BeaconRooms>()
  private readonly teaching = new Map<string, { recorder: FingerprintRecorder; until: number }>()
  /** Per room index, every gateway (placed or not) the site puts in it. */
  private readonly own: readonly string[][]
  private readonly corrected = new Map<string, number>()
  private readonly raw = new Map<string, number>()
  private readonly total: Float64Array

  constructor(
    readonly site: Site,
    private readonly options: RoomLocatorOptions = {},
  ) {
    this.geometry = new RoomGeometry(site, options.geometry)
    this.scorer = new RoomScorer(this.geometry, options.scores)
    this.offsets = new GatewayOffsets(options.offsets)
    this.fingerprints = options.fingerprints ?? new Fingerprints()
    this.learn = options.learnOffsets ?? true
    this.geometryWeight = options.geometryWeight ?? 2
    this.maxBeacons = options.maxBeacons ?? 100_000
    const anchors = site.anchorList()
    this.own = this.geometry.rooms.map((r) => anchors.filter((a) => a.room === r.name).map((a) => a.id))
    this.total = new Float64Array(this.geometry.rooms.length)
  }

  /**
   * The room method on a new site (an edited site file, applied by the running fleet): the same
   * options and fingerprint store, the fingerprints of rooms it no longer has let go of, the
   * learnt offsets of the gateways it still has kept, and teachings of remaining rooms going on.
   * Beacons start afresh on the new plan (its rooms and points differ).
   */
  forSite(site: Site): RoomLocator {
    const rooms = new Set(site.rooms.map((r) => r.name))
    for (const room of new Set(this.fingerprints.samples().map((s) => s.room)))
      if (!rooms.has(room)) this.fingerprints.clear(room)
    const next = new RoomLocator(site, { ...this.options, fingerprints: this.fingerprints })
    const gateways = new Set(site.anchorList().map((a) => a.id))
    next.offsets.restore(this.offsets.list().filter((o) => gateways.has(o.gateway)))
    for (const [beacon, t] of this.teaching) if (rooms.has(t.recorder.room)) next.teaching.set(beacon, t)
    // Finished teachings the caller has not taken yet (to save them): those of remaining rooms.
    next.finished = this.finished.filter((s) => rooms.has(s.room))
    return next
  }

  /** Floor id of a room index ('' on a one-plane site). */
  private floorId(room: number): string {
    return this.geometry.floors[this.geometry.rooms[room].floor]
  }

  /**
   * Locates `beacon` at `now` from `readings` (the gateways hearing it now; `online` says which
   * silent gateways are up: an offline one's silence means nothing). Returns its floor and room,
   * and what changed; undefined fields when no gateway of the plan hears it yet.
   */
  locate(
    beacon: string,
    readings: readonly RoomReading[],
    now: number,
    online: (gateway: string) => boolean = always,
  ): RoomDecision {
    this.raw.clear()
    this.corrected.clear()
    for (const r of readings) {
      if (!Number.isFinite(r.rssi)) continue
      this.raw.set(r.gateway, r.rssi)
      this.corrected.set(r.gateway, r.rssi - this.offsets.offset(r.gateway))
    }
    this.record(beacon, now)
    let state = this.beacons.get(beacon)
    const heard = this.scorer.score(this.corrected, online)
    if (heard === 0 && this.raw.size === 0) return state?.decision() ?? {}
    const geo = this.geometry
    const scores = this.scorer.scores
    const fp = this.fingerprints.rooms > 0
    for (let r = 0; r < geo.rooms.length; r++) {
      const own = this.own[r]
      const silentRoom = own.length > 0 && own.every((g) => !this.raw.has(g) && online(g)) && this.raw.size > 0
      if (silentRoom) {
        this.total[r] = -Infinity
        continue
      }
      let t = scores[r]
      if (fp) t = this.geometryWeight * t + this.fingerprintScore(geo.rooms[r].name, online)
      this.total[r] = t
    }
    if (state === undefined) {
      if (this.beacons.size >= this.maxBeacons) {
        const oldest = this.beacons.keys().next().value
        if (oldest !== undefined) this.beacons.delete(oldest)
      }
      state = new BeaconRooms(geo, this.options)
    } else this.beacons.delete(beacon)
    // Re-inserted: the map's order is least recently located first, for the bound above.
    this.beacons.set(beacon, state)
    const decision = state.update(this.total, now)
    if (this.learn && heard >= 3 && state.settled && decision.room !== undefined) {
      const r = geo.roomIndex(decision.room)
      if (r >= 0) this.teachOffsets(this.scorer.bestPoint[r], this.raw, 0.5)
    }
    return decision
  }

  /** A taught room's best match now; an untaught room's stands at a fit of 1.5 σ per gateway. */
  private fingerprintScore(room: string, online: (gateway: string) => boolean): number {
    const samples = this.fingerprints.of(room)
    if (samples.length === 0) return -1.125 * Math.max(1, this.raw.size)
    let best = -Infinity
    for (const s of samples) best = Math.max(best, matchFingerprint(s, this.raw, online, this.options.match))
    return best
  }

  /** Feeds the offsets: what each placed gateway heard at point `p` against the plan there. */
  private teachOffsets(p: number, heard: ReadonlyMap<string, number>, weight: number): void {
    const geo = this.geometry
    const G = geo.gateways.length
    const samples: { gateway: string; rssi: number; expected: number }[] = []
    for (const [id, rssi] of heard) {
      const g = geo.indexOf(id)
      if (g !== undefined) samples.push({ gateway: id, rssi, expected: geo.expected[p * G + g] })
    }
    this.offsets.observe(samples, weight)
  }

  /**
   * A fixed beacon at a known place (x, y on `floor`) heard by `readings`: the strongest lesson
   * for the offsets. The plan's nearest point on that floor stands for the place.
   */
  observeFixed(readings: readonly RoomReading[], x: number, y: number, floor?: string): boolean {
    const geo = this.geometry
    const f = floor === undefined ? 0 : Math.max(0, geo.floors.indexOf(floor))
    let best = -1
    let bestD = Infinity
    for (const room of geo.rooms) {
      if (room.floor !== f) continue
      for (let p = room.start; p < room.end; p++) {
        const d = Math.hypot(geo.points[2 * p] - x, geo.points[2 * p + 1] - y)
        if (d < bestD) [best, bestD] = [p, d]
      }
    }
    if (best < 0) return false
    return this.offsets.observe(
      readings.flatMap((r) => {
        const g = geo.indexOf(r.gateway)
        return g === undefined
          ? []
          : [{ gateway: r.gateway, rssi: r.rssi, expected: geo.expected[best * geo.gateways.length + g] }]
      }),
    )
  }

  /**
   * Starts teaching `room` with `beacon`: its readings of the next `seconds` (from `now`) become a
   * fingerprint when {@link locate} sees the time is up (it returns it in `taught`). False for a
   * room the site does not know.
   */
  teach(beacon: string, room: string, now: number, seconds: number): boolean {
    const r = this.geometry.roomIndex(room)
    if (r < 0 || !(seconds > 0)) return false
    const floor = this.floorId(r)
    this.teaching.set(beacon, {
      recorder: new FingerprintRecorder(room, floor === '' ? undefined : floor),
      until: now + seconds * 1000,
    })
    return true
  }

  /** Teachings under way, by beacon. */
  get teachings(): number {
    return this.teaching.size
  }

  /** Taught samples finished since the last call (and so stored), for the caller to save. */
  takeTaught(): FingerprintSample[] {
    const out = this.finished
    this.finished = []
    return out
  }

  private finished: FingerprintSample[] = []

  private record(beacon: string, now: number): void {
    const t = this.teaching.get(beacon)
    if (t === undefined) return
    if (now < t.until) {
      t.recorder.add([...this.raw].map(([gateway, rssi]) => ({ gateway, rssi })))
      return
    }
    this.teaching.delete(beacon)
    const sample = t.recorder.finish(now, this.fingerprints.maxGatewaysPerSample)
    if (sample === undefined || !this.fingerprints.add(sample)) return
    this.finished.push(sample)
    const r = this.geometry.roomIndex(sample.room)
    const means = new Map(Object.entries(sample.gateways).map(([id, g]) => [id, g.mean - this.offsets.offset(id)]))
    if (this.learn && r >= 0) {
      // The taught room is known for sure; where in it, the plan's best point for the means says.
      this.scorer.score(means, always)
      this.teachOffsets(
        this.scorer.bestPoint[r],
        new Map(Object.entries(sample.gateways).map(([id, g]) => [id, g.mean])),
        1,
      )
    }
  }

  /** Lets go of a beacon's state (gone, forgotten). */
  forget(beacon: string): void {
    this.beacons.delete(beacon)
    this.teaching.delete(beacon)
  }
}
