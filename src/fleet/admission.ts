/**
 * Which new beacons the fused state takes in. Beacon ids arrive from anyone who may publish on
 * the gateways' topics, so a full table must not be first come, first served: one client
 * flooding fake ids would keep every real beacon out. Two defences:
 *
 * - a quota per gateway: a gateway id introduces at most `maxBeaconsPerGateway` of the beacons
 *   tracked (the beacons a real gateway hears at once), so one flooding id cannot fill the table;
 * - a claim per beacon, used when the table is full: heard by a gateway of the site (2) and with
 *   a stable identity (1). A new beacon with a stronger claim evicts the least recently heard
 *   beacon of the weakest claim; one with no stronger claim is refused.
 */

import { InvalidOptionError } from '../errors.js'
import type { Site } from '../positioning/site.js'
import { isStableIdentity } from '../mqtt/stable-identity.js'

/** A count option of the fused state: `fallback` when absent, else a whole number ≥ 1 (typed error otherwise). */
export function countOption(v: number | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback
  if (!Number.isInteger(v) || v < 1)
    throw new InvalidOptionError(
      'invalid_option',
      `${name} must be a whole number of at least 1, e.g. ${fallback}, not ${String(v)}`,
      { option: name },
    )
  return v
}

/** Claim bits. */
const SITE_GATEWAY = 2
const STABLE_ID = 1
const CLASSES = 4

/** What admission needs of the table it guards. */
export interface AdmissionHost {
  /** Beacons tracked now. */
  size(): number
  /** Latest time the beacon was heard (tracker clock); undefined when it is not tracked. */
  lastSeen(id: string): number | undefined
  /** Forgets the beacon as if it went (a `gone`, its retained state cleared). */
  evict(id: string, now: number): void
}

/** Limits of {@link BeaconAdmission}. */
export interface AdmissionLimits {
  maxBeacons: number
  maxBeaconsPerGateway: number
  site?: Site
  /** The fleet's IRK file's names (FleetStateOptions.holdsIdentity). */
  holdsIdentity?: (name: string) => boolean
}

interface Claim {
  cls: number
  /** The gateway that introduced it ('' for a beacon taken over from a retained state). */
  by: string
}

interface Candidate {
  id: string
  cls: number
  lastSeen: number
}

/** Evictions prepared per scan of the weakest class: the scan is O(table), so it is amortised. */
const CANDIDATES = 256

/** The admission policy of the fused state's table (see the file comment). */
export class BeaconAdmission {
  private readonly claims = new Map<string, Claim>()
  private readonly classes: Set<string>[] = Array.from({ length: CLASSES }, () => new Set<string>())
  private readonly introduced = new Map<string, number>()
  /** The least recently heard beacons of the weakest class at the last scan, oldest last. */
  private candidates: Candidate[] = []
  /** New beacons refused: over their gateway's quota; table full with no weaker claim; evicted for a stronger claim. */
  readonly counters = { overQuota: 0, full: 0, evicted: 0 }

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly host: AdmissionHost,
  ) {}

  /** A new site (FleetState.setSite): its gateways' beacons claim more from the next batch on. */
  setSite(site: Site | undefined): void {
    if (site === undefined) delete this.limits.site
    else this.limits.site = site
  }

  /** Whether `gateway` is one of the site's. */
  private siteGateway(gateway: string): boolean {
    return this.limits.site?.anchor(gateway) !== undefined
  }

  /**
   * A new beacon `id` heard by `gateway` at `now`: true when it may be tracked (a weaker beacon
   * may have been evicted for it); false when refused (counted).
   */
  admit(id: string, gateway: string, now: number): boolean {
    const n = this.introduced.get(gateway) ?? 0
    if (n >= this.limits.maxBeaconsPerGateway) {
      this.counters.overQuota++
      return false
    }
    const cls =
      (this.siteGateway(gateway) ? SITE_GATEWAY : 0) | (isStableIdentity(id, this.limits.holdsIdentity) ? STABLE_ID : 0)
    if (this.host.size() >= this.limits.maxBeacons && !this.evictBelow(cls, now)) {
      this.counters.full++
      return false
    }
    this.add(id, cls, gateway)
    return true
  }

  /** A beacon taken over from another tracker's retained state (no quota: no gateway introduced it). */
  adopt(id: string, gateways: readonly string[]): void {
    const site = gateways.some((g) => this.siteGateway(g))
    this.add(id, (site ? SITE_GATEWAY : 0) | (isStableIdentity(id, this.limits.holdsIdentity) ? STABLE_ID : 0), '')
  }

  /** `gateway` heard tracked beacon `id`: a site gateway raises its claim for good. */
  heard(id: string, gateway: string): void {
    if (!this.siteGateway(gateway)) return
    const c = this.claims.get(id)
    if (c === undefined || (c.cls & SITE_GATEWAY) !== 0) return
    this.classes[c.cls].delete(id)
    c.cls |= SITE_GATEWAY
    this.classes[c.cls].add(id)
  }

  /** The beacon left the table (gone, released, evicted). */
  forget(id: string): void {
    const c = this.claims.get(id)
    if (c === undefined) return
    this.claims.delete(id)
    this.classes[c.cls].delete(id)
    if (c.by === '') return
    const n = (this.introduced.get(c.by) ?? 1) - 1
    if (n <= 0) this.introduced.delete(c.by)
    else this.introduced.set(c.by, n)
  }

  private add(id: string, cls: number, by: string): void {
    this.claims.set(id, { cls, by })
    this.classes[cls].add(id)
    if (by !== '') this.introduced.set(by, (this.introduced.get(by) ?? 0) + 1)
  }

  /** Evicts the least recently heard beacon of the weakest class below `cls`; false when there is none. */
  private evictBelow(cls: number, now: number): boolean {
    let scanned = false
    for (;;) {
      const top = this.candidates.at(-1)
      if (top === undefined || top.cls >= cls) {
        // One scan per admission: a scan only finds beacons tracked now, so a second would not help.
        if (scanned || !this.scan(cls)) return false
        scanned = true
        continue
      }
      this.candidates.pop()
      // Stale since the scan: gone, raised, or heard again (then no longer the least recent).
      if (this.claims.get(top.id)?.cls !== top.cls || this.host.lastSeen(top.id) !== top.lastSeen) continue
      this.host.evict(top.id, now)
      // The host's eviction forgets it here too; make sure even if it did not.
      this.forget(top.id)
      this.counters.evicted++
      return true
    }
  }

  /** Prepares the next evictions from the weakest non-empty class below `cls`; false when all are empty. */
  private scan(cls: number): boolean {
    for (let k = 0; k < cls; k++) {
      const set = this.classes[k]
      if (set.size === 0) continue
      const all: Candidate[] = []
      for (const id of set) all.push({ id, cls: k, lastSeen: this.host.lastSeen(id) ?? -Infinity })
      // Most recently heard first, so pop() takes the least recent.
      all.sort((a, b) => b.lastSeen - a.lastSeen)
      this.candidates = all.slice(-CANDIDATES)
      return true
    }
    return false
  }
}
