/**
 * A simulated site and a FleetTracker on one virtual clock, stepped a second at a time: each step
 * moves the site (the gateways' ticks publish their batches) and then waits, in real time, until
 * the tracker has received every batch published so far. So the run is the same however slow the
 * machine is; only its wall time changes.
 */
import type { FleetTracker } from '../../src/fleet/tracker.js'
import type { RunningSite } from '../../src/gateway/run-site.js'
import { waitFor } from '../integration/wait.js'

/** Steps `site` and `tracker` (on the simulator's clock) up to `until`, one second at a time. */
export async function stepTo(site: RunningSite, tracker: FleetTracker, until: number, onStep?: (time: number) => void): Promise<void> {
  const clock = site.simulator.clock
  if (clock === undefined) throw new Error('stepTo needs a virtual-time simulator')
  for (let at = clock.now() + 1000; at <= until; at += 1000) {
    await site.advanceTo(at)
    await waitFor(() => tracker.stats.batches >= site.rssiBatches(), `the tracker to have every batch at ${at}`, 60_000)
    onStep?.(at)
  }
}
