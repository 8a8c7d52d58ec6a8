/**
 * What gateways claim about beacons (their retained Beacon objects), held for the map's details
 * panel with every bound a hostile publisher needs: a few gateways per beacon, a total, a small
 * share for gateways the fleet does not know (yet), and times clamped to arrival, so a state
 * dated in the future cannot outrank the honest ones that arrive after it.
 *
 * Nothing here is verified by the fleet: it sees only the gateway's JSON. So the shown details
 * name the gateway they come from, and "verified" is a list of gateways that claim it.
 */
import type { Beacon } from '../reading.js'
import { detailsOf } from './view.js'
import type { ViewDetails } from './view.js'
import type { GatewayWitness } from './known-gateways.js'

/** Bounds of a {@link GatewayClaims} store; the defaults are {@link CLAIM_LIMITS}. */
export interface ClaimLimits {
  /** Gateways held per beacon. */
  perBeacon: number
  /** Beacons held. */
  beacons: number
  /** States held in all, from every gateway. */
  total: number
  /** States held from gateways the fleet did not know when they arrived. */
  unknown: number
}

/**
 * Default bounds: 8 gateways per beacon (a beacon is heard by a handful), 50,000 beacons, 200,000
 * states, of which at most 2,000 from gateways not known on arrival (enough to cover the retained
 * states that arrive before the tracker has seen their gateway's first batch).
 */
export const CLAIM_LIMITS: ClaimLimits = { perBeacon: 8, beacons: 50_000, total: 200_000, unknown: 2_000 }

/** Counters of a {@link GatewayClaims} store (each a state skipped, or held aside). */
export interface ClaimStats {
  /** States held now. */
  held: number
  /** States that arrived from a gateway the fleet did not know then (held aside, shown once it is known). */
  unknownGateway: number
  /** States refused because a bound was reached. */
  dropped: number
  /** States dated after they arrived (their time was clamped to the arrival). */
  clamped: number
}

interface Held {
  gateway: string
  /** The state's lastSeen, at most its arrival time. */
  seen: number
  arrived: number
  /** The gateway was not known when this arrived: counts against `limits.unknown`. */
  unknown: boolean
  details: ViewDetails
  /** The gateway's claim about the private broadcast, if it made one. */
  verified?: boolean
}

/** Per beacon, the latest state of each gateway that hears it, within {@link ClaimLimits}. */
export class GatewayClaims {
  private readonly byBeacon = new Map<string, Held[]>()
  private readonly limits: ClaimLimits
  private held = 0
  private heldUnknown = 0
  private readonly counters = { unknownGateway: 0, dropped: 0, clamped: 0 }

  constructor(
    private readonly witness: GatewayWitness | undefined,
    limits: Partial<ClaimLimits> = {},
  ) {
    this.limits = { ...CLAIM_LIMITS, ...limits }
  }

  /** Counters and the number of states held. */
  get stats(): ClaimStats {
    return { held: this.held, ...this.counters }
  }

  /** Beacons held. */
  get size(): number {
    return this.byBeacon.size
  }

  private knows(gateway: string): boolean {
    return this.witness?.knows(gateway) ?? true
  }

  /** Takes a gateway's state of a beacon that arrived at `arrived` (ms, the caller's clock). */
  put(id: string, gateway: string, b: Beacon, arrived: number): void {
    const unknown = !this.knows(gateway)
    if (unknown) this.counters.unknownGateway++
    if (b.lastSeen > arrived) this.counters.clamped++
    const secure: unknown = b.secure
    const claim = typeof secure === 'object' && secure !== null ? (secure as { verified?: unknown }).verified : undefined
    const { verified: _ignored, ...details } = detailsOf(b)
    const entry: Held = { gateway, seen: Math.min(b.lastSeen, arrived), arrived, unknown, details }
    if (typeof claim === 'boolean') entry.verified = claim
    let list = this.byBeacon.get(id)
    const at = list?.findIndex((h) => h.gateway === gateway) ?? -1
    if (list !== undefined && at >= 0) {
      // A gateway's newer state replaces its older one in place: no bound can be passed.
      if (unknown && !list[at].unknown && this.heldUnknown >= this.limits.unknown) return this.drop()
      this.release(list[at])
      list[at] = entry
      this.hold(entry)
      return
    }
    if (this.held >= this.limits.total || (unknown && this.heldUnknown >= this.limits.unknown)) return this.drop()
    if (list === undefined) {
      if (this.byBeacon.size >= this.limits.beacons) return this.drop()
      list = []
      this.byBeacon.set(id, list)
    }
    if (list.length >= this.limits.perBeacon) {
      const victim = this.victim(list, unknown)
      if (victim < 0) return this.drop()
      this.release(list[victim])
      list.splice(victim, 1)
    }
    list.push(entry)
    this.hold(entry)
  }

  /**
   * Which state gives way to a new one in a full beacon: one of a gateway not known now, else
   * (only for a known newcomer) the one that arrived first. An unknown newcomer never pushes
   * out a known gateway's state.
   */
  private victim(list: Held[], newcomerUnknown: boolean): number {
    let best = -1
    for (let i = 0; i < list.length; i++) {
      if (!this.knows(list[i].gateway) && (best < 0 || list[i].arrived < list[best].arrived)) best = i
    }
    if (best >= 0 || newcomerUnknown) return best
    for (let i = 0; i < list.length; i++) if (best < 0 || list[i].arrived < list[best].arrived) best = i
    return best
  }

  /** The gateway no longer holds the beacon (an empty retained message). */
  delete(id: string, gateway: string): void {
    const list = this.byBeacon.get(id)
    const at = list?.findIndex((h) => h.gateway === gateway) ?? -1
    if (list === undefined || at < 0) return
    this.release(list[at])
    list.splice(at, 1)
    if (list.length === 0) this.byBeacon.delete(id)
  }

  /**
   * The details of a beacon from the freshest state of a known gateway, naming that gateway, and
   * which known gateways claim its private broadcast verified or not.
   */
  details(id: string): ViewDetails | undefined {
    let best: Held | undefined
    const verified: string[] = []
    const notVerified: string[] = []
    for (const h of this.byBeacon.get(id) ?? []) {
      if (!this.knows(h.gateway)) continue
      if (best === undefined || h.seen > best.seen || (h.seen === best.seen && h.arrived > best.arrived)) best = h
      if (h.verified === true) verified.push(h.gateway)
      else if (h.verified === false) notVerified.push(h.gateway)
    }
    if (best === undefined) return undefined
    const d: ViewDetails = { ...best.details, reportedBy: best.gateway }
    if (verified.length > 0 || notVerified.length > 0) d.claims = { verified: verified.sort(), notVerified: notVerified.sort() }
    return d
  }

  private hold(h: Held): void {
    this.held++
    if (h.unknown) this.heldUnknown++
  }

  private release(h: Held): void {
    this.held--
    if (h.unknown) this.heldUnknown--
  }

  private drop(): void {
    this.counters.dropped++
  }
}
