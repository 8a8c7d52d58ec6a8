/**
 * `<p>/fleet/presence/<id>` (docs/fleet-reference.md, "The fleet topics"): retained,
 * `{"id", "present", "room"?, "name"?,
 * "time"}` on found, room change and gone. Unlike the fleet state it is never emptied while the
 * beacon is known: Home Assistant must see "away", not nothing. It is emptied only when the
 * beacon is forgotten: evicted for a stronger claim, gone for `forgetAfterMs`, pushed out of the
 * bounded list of away beacons, or forgotten by hand (`FleetTracker.forget`).
 */
import type { Outbox } from '../mqtt/outbox.js'
import type { FleetBeacon } from './fleet-beacon.js'

/** The payload of `<p>/fleet/presence/<id>`. */
export interface FleetPresenceState {
  id: string
  present: boolean
  /** Its room while present. */
  room?: string
  /** Its floor's id while present, on a site with `floors` (#39). */
  floor?: string
  name?: string
  /** ms on the tracker's clock. */
  time: number
}

/** Default of `FleetTrackerOptions.forgetAfterMs`: 7 days, as Home Assistant's `expireMs`. */
export const DEFAULT_FORGET_AFTER_MS = 7 * 24 * 3600 * 1000

/** Counters of the presence topics. */
export interface FleetPresenceStats {
  /** Beacons gone and not yet forgotten (their presence says `present: false`). */
  away: number
  /** Presence topics cleared because their beacon was forgotten. */
  forgotten: number
}

/** The presence topics, through the tracker's outbox. */
export class FleetPresence {
  /** Gone, not yet forgotten: id → when it went. Re-inserted on every gone, so in order of going. */
  private readonly away = new Map<string, number>()
  /**
   * Beacons this run forgot, the latest `maxAway`: a ghost read still open can hold their last
   * state (see {@link ghost}), which must not bring their presence back.
   */
  private readonly forgotten = new Set<string>()
  private forgottenCount = 0
  /**
   * The name each present beacon's presence was published with, to see one learnt later. At most
   * `maxAway` (a beacon let go to another tracker leaves no gone here): the oldest give way, which
   * costs at most one presence published again.
   */
  private readonly named = new Map<string, string>()
  /**
   * The last presence published per beacon, to publish again when the broker lost its retained
   * messages. Bounded: at most twice `maxAway` (present ones, within the fusion's cap, and away ones).
   */
  private readonly last = new Map<string, FleetPresenceState>()

  constructor(
    private readonly outbox: Outbox,
    private readonly topicPrefix: string,
    /** Away beacons kept at most; the one gone longest is forgotten for a new one. */
    private readonly maxAway: number,
    private readonly forgetAfterMs: number,
  ) {}

  /** `<p>/fleet/presence/<id>` */
  topic(id: string): string {
    return `${this.topicPrefix}/fleet/presence/${id}`
  }

  /** Counters (a copy). */
  get stats(): FleetPresenceStats {
    return { away: this.away.size, forgotten: this.forgottenCount }
  }

  /** Found, or its room changed. */
  present(b: FleetBeacon): void {
    this.away.delete(b.id)
    this.forgotten.delete(b.id)
    this.named.delete(b.id)
    if (b.name !== undefined) this.named.set(b.id, b.name)
    for (const [old] of this.named) {
      if (this.named.size <= this.maxAway) break
      this.named.delete(old)
    }
    this.put({
      id: b.id,
      present: true,
      ...(b.room === undefined ? {} : { room: b.room }),
      ...(b.floor === undefined ? {} : { floor: b.floor }),
      ...(b.name === undefined ? {} : { name: b.name }),
      time: b.time,
    })
  }

  /**
   * The beacon's state is refreshed: its presence goes out again when its name became known (or
   * changed) since, e.g. the serial number that names it arrived after it was found.
   */
  refreshed(b: FleetBeacon): void {
    if (b.name !== undefined && this.named.get(b.id) !== b.name) this.present(b)
  }

  /** Gone by the timeout (or a state an earlier run left that no gateway confirmed): away, still known. */
  gone(id: string, time: number, name?: string): void {
    this.named.delete(id)
    this.away.delete(id)
    this.away.set(id, time)
    this.put({ id, present: false, ...(name === undefined ? {} : { name }), time })
    for (const [old] of this.away) {
      if (this.away.size <= this.maxAway) break
      this.forget(old)
    }
  }

  /**
   * A present state an earlier run left that no gateway confirmed (ghost-states.ts): away, unless
   * this run already has the beacon away or forgot it (its own state can reach the ghost read
   * while the read is open).
   */
  ghost(id: string, time: number, name?: string): void {
    if (!this.away.has(id) && !this.forgotten.has(id)) this.gone(id, time, name)
  }

  /** Forgotten: its presence is cleared, also when this run never published it. */
  forget(id: string): void {
    this.named.delete(id)
    this.away.delete(id)
    this.forgotten.delete(id)
    this.forgotten.add(id)
    for (const old of this.forgotten) {
      if (this.forgotten.size <= this.maxAway) break
      this.forgotten.delete(old)
    }
    this.forgottenCount++
    this.last.delete(id)
    this.outbox.putRetained(this.topic(id), '', { always: true })
  }

  /** Every beacon's last presence again (the broker kept no session and may have lost them). */
  republish(): void {
    for (const state of this.last.values()) this.outbox.putRetained(this.topic(state.id), JSON.stringify(state))
  }

  /** Forgets the beacons gone for `forgetAfterMs` at `now`. */
  tick(now: number): void {
    for (const [id, since] of this.away) {
      if (now - since < this.forgetAfterMs) break
      this.forget(id)
    }
  }

  private put(state: FleetPresenceState): void {
    // Latest last: beacons another tracker took over (scale-out) are never forgotten here, so
    // the least recently published give way beyond twice the away bound.
    this.last.delete(state.id)
    this.last.set(state.id, state)
    for (const [old] of this.last) {
      if (this.last.size <= 2 * this.maxAway) break
      this.last.delete(old)
    }
    this.outbox.putRetained(this.topic(state.id), JSON.stringify(state))
  }
}
