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
import type { DetailField, ViewDetails } from './view.js'

/** The claimed fields the panel shows, in its order. */
const FIELDS: readonly DetailField[] = [
  'serialNumber',
  'model',
  'battery',
  'temperature',
  'light',
  'moving',
  'movingState',
  'address',
]

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
   * The details of a beacon as the fleet fuses a beacon's values (fleet/beacon-values.ts): each
   * field from the freshest state of a known gateway that has it, so the panel and the fleet
   * topics never disagree. `reportedBy` names the gateway that supplied most of them, and
   * `sources` (only when more than one did) which fields each supplied; `claims` says which
   * known gateways claim its private broadcast verified or not.
   */
  details(id: string): ViewDetails | undefined {
    const held = this.store.known(id)
    if (held.length === 0) return undefined
    const d: ViewDetails = {}
    const supplied = new Map<string, DetailField[]>()
    for (const key of FIELDS) {
      // A gateway that did not hear the frame carrying a value (a weak one often hears only the
      // iBeacon frame) has a fresher state without it: the value comes from the freshest that has it.
      const h = held.find((x) => x.data[key] !== undefined)
      if (h === undefined) continue
      copy(d, h.data, key)
      supplied.set(h.gateway, [...(supplied.get(h.gateway) ?? []), key])
    }
    // Most fields first; among equals, the fresher state (held is freshest first, Map keeps that order).
    const sources = [...supplied]
      .map(([gateway, fields]) => ({ gateway, fields }))
      .sort((a, b) => b.fields.length - a.fields.length)
    const reporter = sources[0]?.gateway ?? held[0]?.gateway
    if (reporter !== undefined) d.reportedBy = reporter
    if (sources.length > 1) d.sources = sources
    const verified: string[] = []
    const notVerified: string[] = []
    for (const h of held) {
      if (h.verified === true) verified.push(h.gateway)
      else if (h.verified === false) notVerified.push(h.gateway)
    }
    if (verified.length > 0 || notVerified.length > 0)
      d.claims = { verified: verified.sort(), notVerified: notVerified.sort() }
    return d
  }
}

/** Sets `key` of `to` from `from` (one field, its type kept). */
function copy<K extends DetailField>(to: ViewDetails, from: ViewDetails, key: K): void {
  to[key] = from[key]
}
