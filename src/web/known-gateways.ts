/**
 * Which gateways the fleet knows, for the map's details panel: anyone on a shared broker can
 * publish `<p>/gateways/<any>/beacons/<id>`, so a gateway's beacon state is shown only when the
 * fleet knows that gateway from elsewhere. This is the one seam between the details and the
 * fleet: the details ask `knows(id)` when they show a beacon, so a gateway the fleet learns of
 * later (or forgets) changes what is shown without replaying anything.
 */
import type { FleetTracker } from '../fleet/tracker.js'
import type { Site } from '../positioning/site.js'
import { subscribe } from '../util/subscribe.js'

import type { GatewayWitness } from '../fleet/beacon-claims.js'

export type { GatewayWitness } from '../fleet/beacon-claims.js'

/** Gateways remembered from `online` statuses; past this, new ones are not (a flood of forged ids). */
const MAX_ONLINE = 10_000

/**
 * The gateways a fleet knows today. A site that lists its gateways (`receivers`) is the whole
 * answer: a gateway outside it is never trusted for details. Without one, a gateway is known
 * while the tracker holds a record of it (it sent a batch or a status: `clockOffset()` answers
 * for it, until the tracker forgets it) or saw it come online.
 *
 * ```ts
 * const gateways = new FleetGateways(tracker, site)
 * const details = new MqttBeaconDetails({ url, gateways })
 * ```
 */
export class FleetGateways implements GatewayWitness {
  private readonly listed: ReadonlySet<string> | undefined
  private readonly online = new Set<string>()
  private readonly detach: () => void

  constructor(
    private readonly fleet: FleetTracker,
    site?: Site,
  ) {
    const anchors = site !== undefined && site.kind === 'receivers' ? site.anchorList() : []
    this.listed = anchors.length > 0 ? new Set(anchors.map((a) => a.id)) : undefined
    this.detach = subscribe(fleet, {
      gateway: (e) => {
        // Offline or forgotten drops only what a status added: batches the tracker still holds
        // keep it known (clockOffset answers until the tracker forgets it).
        if (e.state !== 'online') this.online.delete(e.gateway)
        else if (this.online.size < MAX_ONLINE) this.online.add(e.gateway)
      },
    })
  }

  /** Whether `gateway` is one of the site's, or (without a site list) one the tracker hears. */
  knows(gateway: string): boolean {
    if (this.listed !== undefined) return this.listed.has(gateway)
    return this.online.has(gateway) || this.fleet.clockOffset(gateway) !== undefined
  }

  /** Stops listening to the tracker. */
  stop(): void {
    this.detach()
  }
}
