/**
 * What the fleet keeps per gateway: its clock offset and its last known status. Gateway ids
 * arrive from the network, so the map is bounded twice: a gateway that sent nothing (no batch,
 * no status) for `forgetMs` is forgotten whatever its last status (by then it holds no beacon:
 * a reading counts for `hearingMs` only), and beyond `max` gateways a new one is refused and
 * counted, unless it is one of the site's: then the gateway silent longest that is not the
 * site's makes room for it (a flood of fake ids cannot lock the site's own gateways out).
 *
 * An online gateway that hears no beacon sends no batch, and its retained status arrives once:
 * it is forgotten after `forgetMs` like a silent one. Nothing is lost that matters: it holds no
 * beacon, and its next batch makes it known again (its clock offset is learnt afresh). Keeping
 * it for its status alone would let anyone who can publish a status fill the registry for good.
 */

import { ClockOffset } from './clock-offset.js'

/** One gateway as the fleet knows it. */
export interface GatewayRecord {
  offset: ClockOffset
  /** Last status seen; undefined until one arrives. */
  status?: 'online' | 'offline'
  /** Tracker time of its latest batch or status. */
  lastHeard: number
}

/** The bounded map of gateways. */
export class GatewayRegistry {
  /** By last heard, oldest first (a record heard again moves to the end). */
  private readonly records = new Map<string, GatewayRecord>()
  /** New gateways refused because `max` were known. */
  refused = 0

  /**
   * @param isSiteGateway True for a gateway of the site: always admitted.
   * @param forgotten Told of every gateway let go: silent for `forgetMs`, or `evicted` to make room for a site gateway (its readings may still count).
   */
  constructor(
    private readonly max: number,
    private readonly forgetMs: number,
    private readonly isSiteGateway: (gateway: string) => boolean = () => false,
    private readonly forgotten: (gateway: string, now: number, evicted: boolean) => void = () => undefined,
  ) {}

  get size(): number {
    return this.records.size
  }

  /** The record of `gateway`, made on first sight; undefined when the map is full (counted). */
  touch(gateway: string, now: number): GatewayRecord | undefined {
    let r = this.records.get(gateway)
    if (r === undefined) {
      if (this.records.size >= this.max && !this.makeRoom(gateway, now)) {
        this.refused++
        return undefined
      }
      r = { offset: new ClockOffset(), lastHeard: now }
      this.records.set(gateway, r)
    } else if (now > r.lastHeard) {
      r.lastHeard = now
      // Kept in order of last heard: the first one that is not the site's is the one to evict.
      this.records.delete(gateway)
      this.records.set(gateway, r)
    }
    return r
  }

  /** Full: a site gateway evicts the gateway silent longest that is not the site's. */
  private makeRoom(gateway: string, now: number): boolean {
    if (!this.isSiteGateway(gateway)) return false
    for (const id of this.records.keys()) {
      if (this.isSiteGateway(id)) continue
      this.records.delete(id)
      this.forgotten(id, now, true)
      return true
    }
    return false
  }

  /** The record, if known (never makes one). */
  get(gateway: string): GatewayRecord | undefined {
    return this.records.get(gateway)
  }

  /** Forgets gateways silent for `forgetMs`, whatever their last status (see the file's comment). */
  sweep(now: number): void {
    for (const [id, r] of this.records) {
      if (now - r.lastHeard < this.forgetMs) continue
      this.records.delete(id)
      this.forgotten(id, now, false)
    }
  }
}
