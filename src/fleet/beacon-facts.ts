/**
 * What the tracker knows of a beacon beyond its radio: its name (the site file's `beacons`
 * list) and its own readings (the gateways' retained `<p>/gateways/<gw>/beacons/<id>` states,
 * through the bounded claims store the map's details panel uses too). Gateways are believed only
 * when the fleet knows them: the site's list when it has one, else a gateway the tracker holds a
 * record of (a batch or a status).
 */
import { irkNameOf } from '../mqtt/stable-identity.js'
import { BeaconClaims, gatewayWitness, readBeaconState } from './beacon-claims.js'
import type { ClaimLimits, ClaimStats, GatewayWitness } from './beacon-claims.js'
import { BeaconNames } from '../positioning/beacon-names.js'
import { fleetClaimOf, fuseValues, serialOf } from './beacon-values.js'
import type { FleetClaim, FleetValues } from './beacon-values.js'
import type { Site } from '../positioning/site.js'

/** Counters of the gateways' beacon states the tracker read. */
export interface BeaconFactsStats extends ClaimStats {
  /** Messages on a beacon state topic whose gateway or beacon id is not a valid one. */
  invalidIds: number
  /** Messages larger than `MAX_DETAILS_BYTES`. */
  oversized: number
  /** Messages that were not a Beacon object. */
  malformed: number
}

/** Names and fused values of beacons. */
export class BeaconFacts {
  names: BeaconNames
  private readonly claims: BeaconClaims<FleetClaim>
  private readonly counters = { invalidIds: 0, oversized: 0, malformed: 0 }
  /** Whose beacon states are believed: the site's gateways (gatewayWitness), swapped with the site. */
  private witness: GatewayWitness

  constructor(
    site: Site | undefined,
    private readonly knows: (gateway: string) => boolean,
    limits: Partial<ClaimLimits> = {},
    /** The fleet's IRK file's names: an `irk:<name>` it holds is named (by the key's name) and listed. */
    private readonly holdsIdentity?: (name: string) => boolean,
  ) {
    this.names = new BeaconNames(site?.beaconNames ?? [])
    this.witness = gatewayWitness(site, knows)
    this.claims = new BeaconClaims({ knows: (gateway) => this.witness.knows(gateway) }, fleetClaimOf, limits)
  }

  /** A new site (FleetTracker.setSite): its `beacons` list names them, its gateways are believed. */
  setSite(site: Site | undefined): void {
    this.names = new BeaconNames(site?.beaconNames ?? [])
    this.witness = gatewayWitness(site, this.knows)
  }

  /** Counters (a copy). */
  get stats(): BeaconFactsStats {
    return { ...this.claims.stats, ...this.counters }
  }

  /**
   * Takes a message if it is on a gateway's beacon state topic (true then, counted when
   * skipped); `arrival` bounds the state's time.
   */
  onMessage(topicPrefix: string, topic: string, payload: Buffer, arrival: number): boolean {
    const m = readBeaconState(topicPrefix, topic, payload)
    switch (m.kind) {
      case 'ignore':
        return false
      case 'state':
        this.claims.put(m.id, m.gateway, m.beacon, arrival)
        break
      case 'cleared':
        this.claims.delete(m.id, m.gateway)
        break
      case 'invalidId':
        this.counters.invalidIds++
        break
      case 'tooLarge':
        this.counters.oversized++
        break
      case 'malformed':
        this.counters.malformed++
        break
    }
    return true
  }

  /** The beacon's name and fused values, as far as known. */
  describe(id: string): { name?: string; values?: FleetValues } | undefined {
    const held = this.claims.known(id)
    const name = this.names.nameOf(id, serialOf(held)) ?? this.heldName(id)
    const values = fuseValues(held)
    if (name === undefined && values === undefined) return undefined
    return { ...(name === undefined ? {} : { name }), ...(values === undefined ? {} : { values }) }
  }

  /** Whether the freshest gateway state that says anything of the beacon's motion says it moves. */
  moving(id: string): boolean {
    return this.claims.known(id).find((h) => h.data.values.moving !== undefined)?.data.values.moving === true
  }

  /** Whether the site's `beacons` list names the beacon (by id, or by the serial number a gateway gave). */
  named(id: string): boolean {
    return this.names.nameOf(id, serialOf(this.claims.known(id))) !== undefined || this.heldName(id) !== undefined
  }

  /** The key's name of an `irk:<name>` the fleet's IRK file holds (the user named it there). */
  private heldName(id: string): string | undefined {
    const name = this.holdsIdentity === undefined ? undefined : irkNameOf(id)
    return name !== undefined && this.holdsIdentity?.(name) === true ? name : undefined
  }

  /** Whether Home Assistant may be told of the beacon: every one without a `beacons` list, else only those named. */
  listed(id: string): boolean {
    return this.names.listed(id, serialOf(this.claims.known(id))) || this.heldName(id) !== undefined
  }
}
