/**
 * Which gateways the fleet knows, for the map's details panel: anyone on a shared broker can
 * publish `<p>/gateways/<any>/beacons/<id>`, so a gateway's beacon state is shown only when the
 * fleet knows that gateway from elsewhere. This is the one seam between the details and the
 * fleet: the details ask `knows(id)` when they show a beacon, so a gateway the fleet learns of
 * later (or forgets) changes what is shown without replaying anything.
 */
import type { FleetTracker } from '../fleet/tracker.js'
import type { Site } from '../positioning/site.js'
import { gatewayWitness } from '../fleet/beacon-claims.js'
import type { GatewayWitness } from '../fleet/beacon-claims.js'

export type { GatewayWitness } from '../fleet/beacon-claims.js'

/**
 * The gateways a fleet knows today, by the rule the tracker's own fused values use
 * (`gatewayWitness`): a site that lists its gateways (`receivers`) is the whole answer; without
 * one, a gateway is known while the tracker holds a record of it (it sent a batch or a status,
 * and the tracker has not forgotten it: `clockOffset()` answers for it). The registry is bounded
 * by `maxGateways`, so a flood of forged ids cannot make the map believe more than that.
 *
 * ```ts
 * const gateways = new FleetGateways(tracker, site)
 * const details = new MqttBeaconDetails({ url, gateways })
 * ```
 */
export class FleetGateways implements GatewayWitness {
  private witness: GatewayWitness

  constructor(
    private readonly fleet: FleetTracker,
    site?: Site,
  ) {
    this.witness = gatewayWitness(site, (gateway) => fleet.clockOffset(gateway) !== undefined)
  }

  /** A new site (an edited site file): its gateways are the ones known from now on. */
  setSite(site: Site | undefined): void {
    this.witness = gatewayWitness(site, (gateway) => this.fleet.clockOffset(gateway) !== undefined)
  }

  /** Whether `gateway` is one of the site's, or (without a site list) one the tracker holds. */
  knows(gateway: string): boolean {
    return this.witness.knows(gateway)
  }
}
