/**
 * What gateways claim about beacons, for the map's details panel: the fleet's bounded claims
 * store (fleet/beacon-claims.ts, shared with the tracker's fused `values`) holding the fields the
 * panel shows. The shown details name the gateway they come from, and "verified" is a list of
 * gateways that claim it: the fleet sees only their JSON.
 */
import type { Beacon } from '../reading.js'
import { BeaconClaims } from '../fleet/beacon-claims.js'
import type { ClaimLimits, ClaimStats, GatewayWitness } from '../fleet/beacon-claims.js'
import { detailsOf } from './view.js'
import type { ViewDetails } from './view.js'

export { CLAIM_LIMITS } from '../fleet/beacon-claims.js'
export type { ClaimLimits, ClaimStats } from '../fleet/beacon-claims.js'

/** The panel's fields of a gateway's state; its verified claim is held apart (the store's `verified`). */
function panelDetails(b: Beacon): ViewDetails {
  const { verified: _ignored, ...details } = detailsOf(b)
  return details
}

/** Per beacon, the latest state of each gateway that hears it, within {@link ClaimLimits}. */
export class GatewayClaims {
  private readonly store: BeaconClaims<ViewDetails>

  constructor(witness: GatewayWitness | undefined, limits: Partial<ClaimLimits> = {}) {
    this.store = new BeaconClaims(witness, panelDetails, limits)
  }

  /** Counters and the number of states held. */
  get stats(): ClaimStats {
    return this.store.stats
  }

  /** Beacons held. */
  get size(): number {
    return this.store.size
  }

  /** Takes a gateway's state of a beacon that arrived at `arrived` (ms, the caller's clock). */
  put(id: string, gateway: string, b: Beacon, arrived: number): void {
    this.store.put(id, gateway, b, arrived)
  }

  /** The gateway no longer holds the beacon (an empty retained message). */
  delete(id: string, gateway: string): void {
    this.store.delete(id, gateway)
  }

  /**
   * The details of a beacon from the freshest state of a known gateway, naming that gateway, and
   * which known gateways claim its private broadcast verified or not.
   */
  details(id: string): ViewDetails | undefined {
    const held = this.store.known(id)
    const best = held[0]
    if (best === undefined) return undefined
    const verified: string[] = []
    const notVerified: string[] = []
    for (const h of held) {
      if (h.verified === true) verified.push(h.gateway)
      else if (h.verified === false) notVerified.push(h.gateway)
    }
    const d: ViewDetails = { ...best.data, reportedBy: best.gateway }
    if (verified.length > 0 || notVerified.length > 0) d.claims = { verified: verified.sort(), notVerified: notVerified.sort() }
    return d
  }
}
