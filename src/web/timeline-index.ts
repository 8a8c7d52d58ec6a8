/**
 * The seek index of a loaded fleet recording. The page's slider asks for any moment, and the
 * view there needs the gateways' states and the event log as they stood, which depend on every
 * line before it. Walking from the first line made a seek cost time in proportion to the
 * recording (0.19 s per snapshot at 400,000 lines); this keeps a checkpoint of that state every
 * {@link CHECKPOINT_EVERY} entries, built in one pass at load, so a seek costs a binary search
 * plus at most that many entries.
 */
import type { FleetBeacon } from '../fleet/fleet-beacon.js'
import type { ViewGateway, ViewLogEntry } from './view.js'

/** One line of a fleet recording, as the timeline keeps it. */
export type TimelineEntry =
  | { t: number; event: 'keyframe' | 'beacons'; beacons: FleetBeacon[] }
  | { t: number; event: 'gone'; id: string }
  | { t: number; event: 'gateway'; gateway: string; state: 'online' | 'offline' | 'forgotten' }
  | { t: number; event: 'found' | 'room'; id: string; room?: string; from?: string }

/** Entries between checkpoints: a seek replays at most this many. */
export const CHECKPOINT_EVERY = 2048

/** Log entries a view shows. */
export const LOG = 200

/** Gateway states and the log tail after the entries before `index`. */
interface Checkpoint {
  /** In order of each gateway's first event, as a walk from the start would add them. */
  gateways: [string, 'online' | 'offline'][]
  log: ViewLogEntry[]
}

/** Applies one entry to the gateway states and the log; keeps the log bounded (amortised). */
function apply(e: TimelineEntry, gateways: Map<string, 'online' | 'offline'>, log: ViewLogEntry[]): void {
  if (e.event === 'gateway') {
    // As the live map: a forgotten gateway leaves the list (a site gateway falls back to its
    // site entry, state unknown); forgetting is housekeeping, not an event of the log.
    if (e.state === 'forgotten') gateways.delete(e.gateway)
    else {
      gateways.set(e.gateway, e.state)
      log.push({ time: e.t, event: e.state, id: e.gateway })
    }
  } else if (e.event === 'found' || e.event === 'room') {
    const room = e.room === undefined ? {} : { room: e.room }
    log.push({ time: e.t, event: e.event, id: e.id, ...room, ...(e.from === undefined ? {} : { from: e.from }) })
  } else if (e.event === 'gone') log.push({ time: e.t, event: 'gone', id: e.id })
  if (log.length > 2 * LOG) log.splice(0, LOG)
}

/** Checkpoints of gateway states and event log over time-sorted entries (see the file comment). */
export class TimelineIndex {
  private readonly checkpoints: Checkpoint[] = []
  /** Positions of the keyframes, rising. */
  private readonly keyframes: number[] = []

  constructor(private readonly entries: readonly TimelineEntry[]) {
    const gateways = new Map<string, 'online' | 'offline'>()
    const log: ViewLogEntry[] = []
    for (let i = 0; i < entries.length; i++) {
      if (i % CHECKPOINT_EVERY === 0) this.checkpoints.push({ gateways: [...gateways], log: log.slice(-LOG) })
      if (entries[i].event === 'keyframe') this.keyframes.push(i)
      apply(entries[i], gateways, log)
    }
  }

  /**
   * Where replaying beacons for a view at entry `last` starts: two keyframes back (sparklines get
   * up to two minutes behind them).
   */
  replayFrom(last: number): number {
    // Count of keyframes at or before `last`, by binary search.
    let lo = 0
    let hi = this.keyframes.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.keyframes[mid] <= last) lo = mid + 1
      else hi = mid
    }
    return lo >= 2 ? this.keyframes[lo - 2] : (this.keyframes[0] ?? 0)
  }

  /**
   * Gateway states (starting from `known`, the site's gateways) and the last {@link LOG} log
   * entries after entry `last`.
   */
  stateAt(last: number, known: ViewGateway[]): { gateways: Map<string, ViewGateway>; log: ViewLogEntry[] } {
    const gateways = new Map<string, ViewGateway>(known.map((g) => [g.id, g]))
    if (last < 0) return { gateways, log: [] }
    const k = Math.floor(last / CHECKPOINT_EVERY)
    const cp = this.checkpoints[k]
    const states = new Map(cp.gateways)
    const log = [...cp.log]
    for (let i = k * CHECKPOINT_EVERY; i <= last; i++) apply(this.entries[i], states, log)
    for (const [id, state] of states) gateways.set(id, { ...(gateways.get(id) ?? { id }), state })
    return { gateways, log: log.slice(-LOG) }
  }
}
