/**
 * What gateways claim about beacons (their retained Beacon objects on
 * `<p>/gateways/<gw>/beacons/<id>`), held with every bound a hostile publisher needs: a few
 * gateways per beacon, a total, a small share for gateways the fleet does not know (yet), and
 * times clamped to arrival, so a state dated in the future cannot outrank the honest ones that
 * arrive after it. One path for everyone who reads those topics: the tracker's fused `values`
 * and the map's details panel (web/gateway-claims.ts) both parse with {@link readBeaconState}
 * and hold in a {@link BeaconClaims}, each picking the fields it shows.
 *
 * Nothing here is verified by the fleet: it sees only the gateway's JSON. So what is shown names
 * the gateway it comes from, and "verified" is a list of gateways that claim it.
 */
import type { Beacon } from '../reading.js'
import type { Site } from '../positioning/site.js'
import { GATEWAY_ID, isBeaconId } from './wire.js'

/** Answers whether a gateway id belongs to the fleet (e.g. `FleetGateways`). */
export interface GatewayWitness {
  knows(gateway: string): boolean
}

/**
 * The gateways whose beacon states are believed: with a site that lists its gateways exactly
 * those (any other id is never believed), else the ones `heard` says the fleet knows. One rule
 * for the tracker's fused values and the map's details panel, so the two never disagree.
 */
export function gatewayWitness(site: Site | undefined, heard: (gateway: string) => boolean): GatewayWitness {
  const anchors = site !== undefined && site.kind === 'receivers' ? site.anchorList() : []
  if (anchors.length === 0) return { knows: heard }
  const listed = new Set(anchors.map((a) => a.id))
  return { knows: (gateway) => listed.has(gateway) }
}

/** Bounds of a claims store; the defaults are {@link CLAIM_LIMITS}. */
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

/** Counters of a claims store (each a state skipped, or held aside). */
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

/**
 * A gateway's Beacon object is well under 2 kB; anything past this is skipped before parsing,
 * so a huge payload costs no JSON parse and no memory.
 */
export const MAX_DETAILS_BYTES = 16 * 1024

/** What one message on `<p>/gateways/<gw>/beacons/<id>` is, once read. */
export type BeaconStateMessage =
  | { kind: 'state'; gateway: string; id: string; beacon: Beacon }
  /** The empty retained message: gone at that gateway. */
  | { kind: 'cleared'; gateway: string; id: string }
  /** Not a gateway's beacon topic. */
  | { kind: 'ignore' }
  /** Skipped, and why: a gateway or beacon id that is not one, over {@link MAX_DETAILS_BYTES}, not a Beacon object. */
  | { kind: 'invalidId' | 'tooLarge' | 'malformed' }

/**
 * Reads a message that may be a gateway's beacon state: both ids checked (they become map keys,
 * and the gateway a name on the page), the size bounded before parsing, the body a JSON object
 * with a finite `lastSeen`.
 */
export function readBeaconState(topicPrefix: string, topic: string, payload: Buffer): BeaconStateMessage {
  if (!topic.startsWith(`${topicPrefix}/`)) return { kind: 'ignore' }
  const parts = topic.slice(topicPrefix.length + 1).split('/')
  if (parts.length !== 4 || parts[0] !== 'gateways' || parts[2] !== 'beacons') return { kind: 'ignore' }
  const [, gateway, , id] = parts
  if (!GATEWAY_ID.test(gateway) || !isBeaconId(id)) return { kind: 'invalidId' }
  if (payload.length === 0) return { kind: 'cleared', gateway, id }
  if (payload.length > MAX_DETAILS_BYTES) return { kind: 'tooLarge' }
  let b: unknown
  try {
    b = JSON.parse(payload.toString('utf8'))
  } catch {
    return { kind: 'malformed' }
  }
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return { kind: 'malformed' }
  const lastSeen = (b as { lastSeen?: unknown }).lastSeen
  if (typeof lastSeen !== 'number' || !Number.isFinite(lastSeen)) return { kind: 'malformed' }
  return { kind: 'state', gateway, id, beacon: b as Beacon }
}

/** What {@link BeaconClaims.known} answers for a beacon without states: shared, never written to. */
const NONE: readonly never[] = Object.freeze([])

/** One gateway's held state of a beacon. */
export interface HeldClaim<T> {
  gateway: string
  /** The state's lastSeen, at most its arrival time. */
  seen: number
  arrived: number
  /** The gateway was not known when this arrived: counts against `limits.unknown`. */
  unknown: boolean
  /** What the holder picked from the Beacon object. */
  data: T
  /** The gateway's claim about the private broadcast, if it made one. */
  verified?: boolean
}

/**
 * Per beacon, the latest state of each gateway that hears it, within {@link ClaimLimits}; `pick`
 * keeps only the fields its holder uses (checked for their types: the object is a stranger's).
 */
export class BeaconClaims<T> {
  private readonly byBeacon = new Map<string, HeldClaim<T>[]>()
  private readonly limits: ClaimLimits
  private held = 0
  private heldUnknown = 0
  private readonly counters = { unknownGateway: 0, dropped: 0, clamped: 0 }

  constructor(
    private readonly witness: GatewayWitness | undefined,
    private readonly pick: (b: Beacon) => T,
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

  /** Whether the gateway is known now (every gateway without a witness). */
  knows(gateway: string): boolean {
    return this.witness?.knows(gateway) ?? true
  }

  /** Takes a gateway's state of a beacon that arrived at `arrived` (ms, the caller's clock). */
  put(id: string, gateway: string, b: Beacon, arrived: number): void {
    const unknown = !this.knows(gateway)
    if (unknown) this.counters.unknownGateway++
    if (b.lastSeen > arrived) this.counters.clamped++
    const secure: unknown = b.secure
    const claim =
      typeof secure === 'object' && secure !== null ? (secure as { verified?: unknown }).verified : undefined
    const entry: HeldClaim<T> = { gateway, seen: Math.min(b.lastSeen, arrived), arrived, unknown, data: this.pick(b) }
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
  private victim(list: HeldClaim<T>[], newcomerUnknown: boolean): number {
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

  /** The states of known gateways now, freshest first (by clamped lastSeen, then arrival). */
  known(id: string): readonly HeldClaim<T>[] {
    const list = this.byBeacon.get(id)
    // Asked for every beacon on every tick: one with no state costs no array.
    if (list === undefined) return NONE
    const out = list.filter((h) => this.knows(h.gateway))
    return out.sort((a, b) => b.seen - a.seen || b.arrived - a.arrived)
  }

  private hold(h: HeldClaim<T>): void {
    this.held++
    if (h.unknown) this.heldUnknown++
  }

  private release(h: HeldClaim<T>): void {
    this.held--
    if (h.unknown) this.heldUnknown--
  }

  private drop(): void {
    this.counters.dropped++
  }
}
