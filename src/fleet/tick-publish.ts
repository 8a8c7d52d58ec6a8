/**
 * What a tick publishes once every beacon is placed: Home Assistant discovery for the beacons
 * whose dwell is over, and the retained states of present beacons due for a refresh.
 */
import type { Site } from '../positioning/site.js'
import type { TrackerParts } from './tracker-parts.js'

/** Discovery and refreshes of the tick at `now` (see the file comment). */
export function publishTick(parts: TrackerParts, site: Site | undefined, now: number): void {
  const { facts, state, topics, presence } = parts
  // A named beacon skips the dwell, but on a site with rooms it waits for its first room: announced
  // earlier, Home Assistant's Room sensor would show `home` (present, no room yet) before the room.
  const roomless = (site?.rooms.length ?? 0) === 0
  topics.discovery(
    now,
    (id) => state.get(id, now),
    (id) => facts.listed(id),
    (b) => facts.named(b.id) && (roomless || b.room !== undefined),
  )
  // Present beacons are refreshed at most every publishIntervalMs: enough for a dashboard
  // that subscribes late (the message is retained anyway) without a message per beacon per second.
  const moving = (id: string): boolean => facts.moving(id)
  for (const b of state.list(now, (id) => topics.due(id, now, moving))) {
    topics.put(b)
    presence.refreshed(b)
  }
}
