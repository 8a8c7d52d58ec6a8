/**
 * What the fleet keeps per gateway: its clock offset and its last known status. Gateway ids
 * arrive from the network, so the map is bounded twice: a gateway that sent nothing (no batch,
 * no status) for `forgetMs` is forgotten whatever its last status (by then it holds no beacon:
 * a reading counts for `hearingMs` only), and beyond `max` gateways a new one is refused and
 * counted, unless it is one of the site's: then the gateway silent longest that is not the
 * site's makes room for it (a flood of fake ids cannot lock the site's own gateways out). Without
 * a site the same holds for a gateway that sends RSSI batches: it evicts the gateway silent
 * longest that is known only by a status (a status is one retained message anyone can publish
 * under any id; a gateway that hears beacons is what the fleet is for), so a flood of fake
 * `online` statuses cannot keep a real gateway out for `forgetMs`.
 *
 * An online gateway that hears no beacon sends no batch, and its retained status arrives once:
 * it is forgotten after `forgetMs` like a silent one. Nothing is lost that matters: it holds no
 * beacon, and its next batch makes it known again (its clock offset is learnt afresh). Keeping
 * it for its status alone would let anyone who can publish a status fill the registry for good.
 *
 * A status is a retained message: one left by a run long gone arrives at every start. A status
 * sent `forgetMs` or more before it arrives says nothing about now, so it is not taken at all
 * (`stale`), and a gateway is `online` only while it was heard within `forgetMs` (see `stateOf`).
 */

import { ClockOffset } from './clock-offset.js'

/** One gateway as the fleet knows it. */
export interface GatewayRecord {
  offset: ClockOffset
  /** Last status seen; undefined until one arrives. */
  status?: 'online' | 'offline'
  /** It sent an RSSI batch (not only a status): it outranks status-only gateways when the map is full. */
  batched: boolean
  /** Tracker time of its latest batch or status. */
  lastHeard: number
}

/** What the fleet can say of a gateway now. */
export type GatewayState = 'online' | 'offline' | 'unknown'

/** The bounded map of gateways. */
export class GatewayRegistry {
  /** By last heard, oldest first (a record heard again moves to the end). */
  private readonly records = new Map<string, GatewayRecord>()
  /** New gateways refused because `max` were known. */
  refused = 0

  /**
   * @param isSiteGateway True for a gateway of the site: always admitted.
   * @param forgotten Told of every gateway let go: silent for `forgetMs`, or `evicted` to make
   *   room (its readings may still count).
   */
  constructor(
    private readonly max: number,
    private readonly forgetMs: number,
    private readonly isSiteGateway: (gateway: string) => boolean = () => false,
    private readonly forgotten: (gateway: string, now: number, how: { evicted: boolean }) => void = () => undefined,
  ) {}

  get size(): number {
    return this.records.size
  }

  /**
   * The record of `gateway`, made on first sight; undefined when the map is full (counted).
   * `kind`: what arrived, an RSSI batch or a status.
   */
  touch(gateway: string, now: number, kind: 'batch' | 'status'): GatewayRecord | undefined {
    const batch = kind === 'batch'
    let r = this.records.get(gateway)
    if (r === undefined) {
      if (this.records.size >= this.max && !this.makeRoom(gateway, now, batch)) {
        this.refused++
        return undefined
      }
      r = { offset: new ClockOffset(), lastHeard: now, batched: batch }
      this.records.set(gateway, r)
      return r
    }
    if (batch) r.batched = true
    if (now > r.lastHeard) {
      r.lastHeard = now
      // Kept in order of last heard: the first one that is not the site's is the one to evict.
      this.records.delete(gateway)
      this.records.set(gateway, r)
    }
    return r
  }

  /**
   * Full: a site gateway evicts the gateway silent longest that is not the site's; a gateway that
   * sends a batch evicts the one silent longest that is known only by a status (and not the site's).
   */
  private makeRoom(gateway: string, now: number, batch: boolean): boolean {
    const site = this.isSiteGateway(gateway)
    if (!site && !batch) return false
    for (const [id, r] of this.records) {
      if (this.isSiteGateway(id) || (!site && r.batched)) continue
      this.records.delete(id)
      this.forgotten(id, now, { evicted: true })
      return true
    }
    return false
  }

  /**
   * Whether a status the gateway stamped `sentAt` (its own clock, corrected when its batches taught
   * the offset; never later than arrival) was sent `forgetMs` or more before it arrived at `now`.
   */
  stale(gateway: string, sentAt: number, now: number): boolean {
    const r = this.records.get(gateway)
    const sent = r?.batched === true ? r.offset.toTracker(sentAt, now) : Math.min(sentAt, now)
    return now - sent >= this.forgetMs
  }

  /**
   * `online` while heard within `forgetMs` and its last status says so, or, without a status, it
   * sends batches (its retained status was stale); `offline` when its last status says so.
   */
  stateOf(gateway: string, now: number): GatewayState {
    const r = this.records.get(gateway)
    if (r === undefined) return 'unknown'
    if (r.status === 'offline') return 'offline'
    const up = r.status === 'online' || (r.status === undefined && r.batched)
    return up && now - r.lastHeard < this.forgetMs ? 'online' : 'unknown'
  }

  /** The ids known now, silent longest first. */
  ids(): IterableIterator<string> {
    return this.records.keys()
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
      this.forgotten(id, now, { evicted: false })
    }
  }
}
