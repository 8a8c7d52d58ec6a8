/**
 * A new site taken by a running tracker (an edited site file, FleetTracker.setSite), applied
 * between two ticks so that the next one places every beacon with it. Beacons keep their state
 * (no gone, no found); what the site says of them is what changes:
 * - its gateways (admission, the unknown-gateway warning, whose beacon states are believed) and
 *   its rooms (the room method; a beacon in a room that went is placed anew on this tick);
 * - its names: a present beacon whose name (or room) changed is published at once, and Home
 *   Assistant's configs follow (renamed, emptied for a beacon no longer announced);
 * - its rooms' occupancy: a room that went has its retained state and config emptied, a new
 *   one gets its config.
 */
import type { RoomLocator } from '../positioning/room-locator.js'
import type { Site } from '../positioning/site.js'
import type { TrackerInbox } from './tracker-inbox.js'
import type { TrackerParts } from './tracker-parts.js'

/** A site waiting for the next tick, with its room method (undefined: the strongest gateway). */
export interface SiteChange {
  site: Site
  rooms: RoomLocator | undefined
}

/** Applies `change` at `now` (see the file comment). */
export function applySiteChange(parts: TrackerParts, inbox: TrackerInbox, change: SiteChange, now: number): void {
  const { state, facts, topics, presence, occupancy } = parts
  const before = new Map(state.list(now).map((b) => [b.id, { name: b.name, room: b.room }]))
  state.setSite(change.site, change.rooms)
  facts.setSite(change.site)
  inbox.setSite(change.site)
  occupancy?.setRooms(change.site.rooms)
  const present = state.list(now)
  // Configs first: a beacon put after its configs were renamed finds them up to date (one message each).
  topics.names(
    now,
    present,
    (id) => facts.listed(id),
    (id) => facts.describe(id)?.name,
  )
  for (const b of present) {
    const was = before.get(b.id)
    if (was === undefined || (was.name === b.name && was.room === b.room)) continue
    topics.put(b)
    presence.present(b)
  }
}
