/**
 * Away in seconds (#39): per device, its advertising interval is learnt from the times its packets
 * were heard (by any gateway), and it is away once nothing was heard for `multiple` intervals plus
 * `marginMs` — a 1 Hz tag in about 4 s, a 10 s tag in about 31 s — instead of one fixed timeout
 * for all. The interval is a low quantile of the recent gaps between distinct packets: a lost
 * packet doubles one gap, and several gateways hearing the device make a loss of all rarer still.
 *
 * A gateway going offline never makes a device away by itself: when every gateway that heard the
 * device lately is offline, its silence says nothing of the device, and it waits for the fixed
 * `fallbackMs` (the fleet's gone timeout) instead. Before an interval is learnt, the same.
 * Pure: time is the caller's; bounded in devices and gateways per device.
 */

/** Options of the away rule. */
export interface AwayOptions {
  /** Intervals of silence before away (default 3). */
  multiple?: number
  /** ms added to them (default 1000: a gateway's batch interval). */
  marginMs?: number
  /** ms, the timeout without a learnt interval, or while the device's gateways are offline (default 30000). */
  fallbackMs?: number
  /** Gaps needed before the interval is trusted (default 4). */
  minGaps?: number
  /** Two packets closer than this (ms) are one packet heard by two gateways (default 300). */
  sameMs?: number
  /** The learnt interval is held within [minIntervalMs, maxIntervalMs] (defaults 1000 and 60000). */
  minIntervalMs?: number
  maxIntervalMs?: number
  /** Devices held at most (default 100000): the least recently heard gives way. */
  maxDevices?: number
}

const GAPS = 16
const GATEWAYS = 16

interface Device {
  last: number
  /** When the latest distinct packet was first heard (gaps are measured between these). */
  packetAt: number
  gaps: number[]
  /** Gateway → when it last heard the device (the newest {@link GATEWAYS}). */
  heardBy: Map<string, number>
  intervalMs?: number
}

/** The away rule (see the file comment). */
export class AwayTimer {
  private readonly devices = new Map<string, Device>()
  private readonly o: Required<AwayOptions>

  constructor(options: AwayOptions = {}) {
    this.o = {
      multiple: options.multiple ?? 3,
      marginMs: options.marginMs ?? 1000,
      fallbackMs: options.fallbackMs ?? 30_000,
      minGaps: Math.max(1, Math.min(GAPS, options.minGaps ?? 4)),
      sameMs: options.sameMs ?? 300,
      minIntervalMs: options.minIntervalMs ?? 1000,
      maxIntervalMs: options.maxIntervalMs ?? 60_000,
      maxDevices: options.maxDevices ?? 100_000,
    }
  }

  /** `gateway` heard a packet of `device` sent at `at` (ms, tracker clock). */
  heard(device: string, gateway: string, at: number): void {
    let d = this.devices.get(device)
    if (d === undefined) {
      if (this.devices.size >= this.o.maxDevices) {
        const oldest = this.devices.keys().next().value
        if (oldest !== undefined) this.devices.delete(oldest)
      }
      d = { last: at, packetAt: at, gaps: [], heardBy: new Map() }
      this.devices.set(device, d)
    } else {
      // Least recently heard first, for the bound above.
      this.devices.delete(device)
      this.devices.set(device, d)
      const gap = at - d.packetAt
      if (gap >= this.o.sameMs) {
        d.packetAt = at
        d.gaps.push(gap)
        if (d.gaps.length > GAPS) d.gaps.shift()
        d.intervalMs = this.learnt(d.gaps)
      }
      if (at > d.last) d.last = at
    }
    d.heardBy.delete(gateway)
    d.heardBy.set(gateway, Math.max(at, d.heardBy.get(gateway) ?? -Infinity))
    if (d.heardBy.size > GATEWAYS) d.heardBy.delete(d.heardBy.keys().next().value as string)
  }

  private learnt(gaps: readonly number[]): number | undefined {
    if (gaps.length < this.o.minGaps) return undefined
    const sorted = [...gaps].sort((a, b) => a - b)
    const q = sorted[Math.floor((sorted.length - 1) / 4)]
    return Math.min(this.o.maxIntervalMs, Math.max(this.o.minIntervalMs, q))
  }

  /** The learnt advertising interval of `device`, ms. */
  intervalOf(device: string): number | undefined {
    return this.devices.get(device)?.intervalMs
  }

  /** When the device was last heard. */
  lastHeard(device: string): number | undefined {
    return this.devices.get(device)?.last
  }

  /**
   * When `device` is away if nothing more is heard (ms), given which gateways are `online` now;
   * undefined for a device never heard.
   */
  awayAt(device: string, online: (gateway: string) => boolean): number | undefined {
    const d = this.devices.get(device)
    if (d === undefined) return undefined
    const interval = d.intervalMs
    if (interval === undefined) return d.last + this.o.fallbackMs
    const quick = d.last + this.o.multiple * interval + this.o.marginMs
    // The gateways that heard it within the window it would be judged on: one still up vouches
    // that silence means the device, not the gateway.
    const since = d.last - this.o.multiple * interval - this.o.marginMs
    for (const [g, t] of d.heardBy) if (t >= since && online(g)) return quick
    return d.last + Math.max(this.o.fallbackMs, quick - d.last)
  }

  /** Whether `device` is away at `now`. */
  away(device: string, now: number, online: (gateway: string) => boolean): boolean {
    const at = this.awayAt(device, online)
    return at !== undefined && now >= at
  }

  /** Lets go of a device (away and reported, forgotten). */
  forget(device: string): void {
    this.devices.delete(device)
  }

  /** Devices held. */
  get size(): number {
    return this.devices.size
  }
}
