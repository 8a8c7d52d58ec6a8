/** FleetTracker's counters, gathered from its parts at the time they are asked for. */
import type { InboxCounters } from './tracker-inbox.js'
import type { TrackerParts } from './tracker-parts.js'
import type { FleetTrackerStats } from './tracker-types.js'

/** The counters of the fused state, the inbox (`c`) and the connection; `published`: fleet messages sent. */
export function trackerStats(parts: TrackerParts, c: InboxCounters, published: number): FleetTrackerStats {
  const s = parts.state.stats
  const so = parts.scaleOut?.counters ?? { seeded: 0, released: 0, unparsable: 0 }
  const unparsable = c.unparsable + so.unparsable
  const stats: FleetTrackerStats = {
    ...s,
    malformed: s.malformed + unparsable,
    unparsable,
    oversized: c.oversized,
    invalidIds: c.invalidIds,
    beaconStates: parts.facts.stats,
    presence: parts.presence.stats,
    forgetCommands: { done: c.forgetCommands, invalid: c.invalidForgetCommands },
    published,
    refused: { ...parts.outbox.refused },
    eventsDropped: parts.streams.dropped,
    seeded: so.seeded,
    released: so.released,
    ghostsCleared: parts.ghosts.counters.cleared,
    retainedBatches: c.retainedBatches,
  }
  const ha = parts.topics.discoveryStats
  if (ha !== undefined) stats.homeAssistant = ha
  const thread = parts.own?.threadStats?.()
  if (thread !== undefined) stats.positioningThread = thread
  return stats
}
