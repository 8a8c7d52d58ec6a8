/**
 * Ghost states: retained `<p>/fleet/beacons/<id>` messages saying `present: true` that no
 * tracker will ever clear, because the beacon went while no tracker ran (or a flood put it
 * there). Home Assistant shows them as present forever. A starting tracker reads the ids of
 * the retained states (retained-reader.ts) and suspects each one; a suspect that no gateway
 * confirmed within the gone timeout (the beacon is not tracked at its deadline) is cleared with
 * an empty retained message.
 *
 * Bounded: only ids are kept, at most `max` of them (a broker may hold tens of thousands of
 * ghosts); the clears go through the outbox a batch per tick and only while its backlog is
 * small, so they never crowd out the live states. Ids beyond `max` are left for the next read.
 */

import type { MqttLink } from '../mqtt/connection.js'
import type { RetainedReader } from './retained-reader.js'
import { isBeaconId } from './wire.js'

/** What the check needs of its tracker. */
export interface GhostHost {
  /** Whether the beacon is tracked now (its state is live, published by this tracker). */
  present(id: string): boolean
  /** Whether the beacon's state is this tracker's to clear (scale-out: a partition it holds). */
  owns(id: string): boolean
  /** Clears the retained state (an empty retained message, also for a topic this run never published). */
  clear(id: string): void
  /** Messages waiting in the outbox. */
  backlog(): number
}

/** Clears put in the outbox per tick at most. */
const BATCH = 1000
/** The outbox backlog above which no clear is added this tick. */
const MAX_BACKLOG = 2000

/** The suspects and their deadlines. */
export class GhostStates {
  /** id → deadline (tracker clock). Deadlines only grow, so the map is in deadline order. */
  private readonly suspects = new Map<string, number>()
  /** Ids not kept because `max` were suspected (a later read finds them again). */
  private over = false
  /** Cleared since the latest read began: another read is worth it only when the last one cleared some. */
  private clearedSinceRead = 0
  readonly counters = { cleared: 0, skipped: 0 }

  constructor(
    private readonly max: number,
    private readonly timeoutMs: number,
    private readonly host: GhostHost,
  ) {}

  /** Suspects waiting for their deadline. */
  get size(): number {
    return this.suspects.size
  }

  /**
   * True once every suspect was decided and some were left out for lack of room (and room was made):
   * time for another read.
   */
  get wantsRead(): boolean {
    return this.over && this.suspects.size === 0 && this.clearedSinceRead > 0
  }

  /** The state of `id` was on the broker at `now`: cleared at `now + timeout` unless confirmed by then. */
  suspect(id: string, now: number): void {
    if (!isBeaconId(id) || this.suspects.has(id)) return
    if (this.suspects.size >= this.max) {
      this.over = true
      this.counters.skipped++
      return
    }
    this.suspects.set(id, now + this.timeoutMs)
  }

  /** The tracker publishes (found) or cleared (gone) the beacon's state itself: no longer a suspect. */
  settled(id: string): void {
    this.suspects.delete(id)
  }

  /**
   * Reads the retained states now on the broker and suspects each (`now()` at arrival). Rejects
   * when the connection goes meanwhile.
   */
  async read(link: MqttLink, reader: RetainedReader, now: () => number): Promise<void> {
    this.over = false
    this.clearedSinceRead = 0
    await reader.read(link, (id) => this.suspect(id, now()))
  }

  /** Clears the suspects whose deadline passed and that nobody confirmed, a batch at a time. */
  tick(now: number): void {
    let n = 0
    for (const [id, deadline] of this.suspects) {
      if (deadline > now || n >= BATCH || this.host.backlog() >= MAX_BACKLOG) return
      this.suspects.delete(id)
      if (this.host.present(id) || !this.host.owns(id)) continue
      this.host.clear(id)
      this.counters.cleared++
      this.clearedSinceRead++
      n++
    }
  }
}
