/**
 * What a tracker publishes per room of its site (#39, room-occupancy.ts): the retained
 * `<p>/fleet/rooms/<slug>` (`{"room", "floor"?, "count", "beacons"}`) when a room's count or names
 * change, and with Home Assistant each room's occupancy sensor on the room's own device. The
 * counts are recomputed only on a tick after a beacon was found, went, or changed room or floor:
 * listing every beacon each second would cost most of a tick at 50,000 beacons.
 */

import type { Outbox } from '../mqtt/outbox.js'
import type { FleetBeacon } from './fleet-beacon.js'
import { changedRooms, haOccupancyConfig, haOccupancyConfigTopic, roomOccupancy } from './room-occupancy.js'
import { roomOccupancyTopic } from './room-occupancy.js'

/** The occupancy topics of one tracker's site, through its outbox. */
export class RoomOccupancyTopics {
  private readonly last = new Map<string, string>()
  private dirty = true
  private announced = false

  constructor(
    private readonly outbox: Outbox,
    private readonly topicPrefix: string,
    private rooms: readonly { name: string; floor?: string }[],
    private readonly ha: { prefix: string; availability: boolean } | undefined,
  ) {}

  /** A beacon was found, went, or changed room or floor: the counts are recomputed on the next tick. */
  changed(): void {
    this.dirty = true
  }

  /**
   * A new site's rooms (FleetTracker.setSite): a room it no longer has gets its retained state and
   * its Home Assistant config emptied (this tracker is their one publisher, so it clears them); a
   * new room gets its config on the next tick, and every count is recomputed then.
   */
  setRooms(rooms: readonly { name: string; floor?: string }[]): void {
    const slugs = new Set(rooms.map((r) => roomOccupancyTopic(this.topicPrefix, r.name)))
    const names = new Set(rooms.map((r) => r.name))
    for (const r of this.rooms) {
      if (!names.has(r.name)) this.last.delete(r.name)
      const topic = roomOccupancyTopic(this.topicPrefix, r.name)
      if (slugs.has(topic)) continue
      this.outbox.putRetained(topic, '', { always: true })
      const ha = this.ha
      if (ha !== undefined) this.outbox.putRetained(haOccupancyConfigTopic(ha.prefix, r.name), '', { always: true })
    }
    this.rooms = rooms
    this.announced = false
    this.dirty = true
  }

  /** Each tick: the configs once, then the rooms whose payload changed (`list`: the present beacons). */
  tick(list: () => readonly FleetBeacon[]): void {
    if (!this.announced) this.reannounce()
    // A site without rooms (yet: an editor may draw them) counts nothing, so lists nothing.
    if (!this.dirty || this.rooms.length === 0) return
    this.dirty = false
    for (const s of changedRooms(this.last, roomOccupancy(this.rooms, list())))
      this.outbox.putRetained(roomOccupancyTopic(this.topicPrefix, s.room), JSON.stringify(s))
  }

  /** Home Assistant's birth, or a broker that lost its retained messages: every room's config again. */
  reannounce(): void {
    this.announced = true
    const ha = this.ha
    if (ha === undefined) return
    for (const r of this.rooms)
      this.outbox.putRetained(
        haOccupancyConfigTopic(ha.prefix, r.name),
        JSON.stringify(haOccupancyConfig(this.topicPrefix, r.name, ha.availability)),
      )
  }

  /** The broker may have lost its retained messages: every room's payload goes out on the next tick. */
  republish(): void {
    this.last.clear()
    this.dirty = true
    this.reannounce()
  }
}
