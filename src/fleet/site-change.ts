/**
 * A new site taken by a running tracker (an edited site file, FleetTracker.setSite), applied
 * between two ticks so that the next one places every beacon with it. Beacons keep their state
 * (no gone, no found); what the site says of them is what changes:
 * - its gateways (admission, the unknown-gateway warning, whose beacon states are believed) and
 *   its rooms (the room method; a beacon in a room that went is placed anew on this tick);
 * - its names: a present beacon whose name (or room) changed is published at once, and Home
 *   Assistant's configs follow (renamed, emptied for a beacon no longer announced);
 * - its rooms' occupancy: a room that went has its retained state and config emptied, a new
 *   one gets its config;
 * - the tracker's own positioner, made again on the gateways' new places.
 */
import type { RoomLocator } from '../positioning/room-locator.js'
import type { Site } from '../positioning/site.js'
import type { TrackerInbox } from './tracker-inbox.js'
import type { TrackerParts } from './tracker-parts.js'
import type { SitePositioner } from './site-positioner.js'

/** A site waiting for the next tick, with its room method (undefined: the strongest gateway). */
export interface SiteChange {
  site: Site
  rooms: RoomLocator | undefined
}

/**
 * What positions depend on in a site: its gateways' places, walls, area, floors and rooms. Names
 * alone changed (most edits) keep the positioner and its beacons' tracks.
 */
export function positioningKey(site: Site | undefined): string {
  if (site === undefined) return ''
  const anchors = site.anchorList().map((a) => [a.id, a.x, a.y, a.z, a.floor])
  const floors = site.floors.map((f) => [f.id, f.z])
  return JSON.stringify([site.kind, anchors, site.walls, site.area, floors, site.rooms])
}

/**
 * Applies `change` at `now` (see the file comment). `positioner` makes the tracker's own
 * positioner on the new site (site-positioner.ts; undefined: the one it has is kept): the old
 * one is closed, and beacons' tracks start again on the gateways' new places.
 */
export function applySiteChange(
  parts: TrackerParts,
  inbox: TrackerInbox,
  change: SiteChange,
  now: number,
  positioner?: (site: Site) => SitePositioner | undefined,
): void {
  const { state, facts, topics, presence, occupancy } = parts
  const before = new Map(state.list(now).map((b) => [b.id, { name: b.name, room: b.room }]))
  if (positioner !== undefined) {
    // Its thread's end is not waited for: nothing is asked of it any more.
    void parts.own?.close().catch(() => undefined)
    parts.own = positioner(change.site)
    parts.positioner = parts.own?.positioner
  }
  state.setSite(change.site, change.rooms, parts.positioner)
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
