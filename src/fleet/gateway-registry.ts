/**
 * What the fleet keeps per gateway: its clock offset and its last known status. Gateway ids
 * arrive from the network, so the map is bounded twice: a gateway that is not online and sent
 * nothing for `forgetMs` is forgotten (by then it holds no beacon: a reading counts for
 * `hearingMs` only), and beyond `max` gateways a new one is refused and counted.
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
  private readonly records = new Map<string, GatewayRecord>()
  /** New gateways refused because `max` were known. */
  refused = 0

  constructor(
    private readonly max: number,
    private readonly forgetMs: number,
  ) {}

  get size(): number {
    return this.records.size
  }

  /** The record of `gateway`, made on first sight; undefined when the map is full (counted). */
  touch(gateway: string, now: number): GatewayRecord | undefined {
    let r = this.records.get(gateway)
    if (r === undefined) {
      if (this.records.size >= this.max) {
        this.refused++
        return undefined
      }
      r = { offset: new ClockOffset(), lastHeard: now }
      this.records.set(gateway, r)
    } else if (now > r.lastHeard) r.lastHeard = now
    return r
  }

  /** The record, if known (never makes one). */
  get(gateway: string): GatewayRecord | undefined {
    return this.records.get(gateway)
  }

  /**
   * Forgets gateways that are not online and were silent for `forgetMs`. An online gateway that
   * hears nothing is kept: its retained status says it is there.
   */
  sweep(now: number): void {
    for (const [id, r] of this.records) if (r.status !== 'online' && now - r.lastHeard >= this.forgetMs) this.records.delete(id)
  }
}
