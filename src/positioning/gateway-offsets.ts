/**
 * Gateways differ by several dB in antenna and receiver gain (±6 dB between two boards of one
 * model is common): a loud gateway pulls every beacon towards its room. This learns each gateway's
 * offset online from what the fleet already has — a beacon heard by several gateways at a place
 * the room method found, a taught fingerprint, a fixed beacon at a known position — by comparing
 * what each gateway heard with what the plan expects there (room-geometry.ts).
 *
 * Hostile or broken gateways are the case to design for, so the learning is robust and slow:
 * - Per observation, residuals are taken relative to their **median** over the gateways that
 *   heard it (three at least): a beacon's own level and the place's error cancel, and one gateway
 *   lying by +20 dB moves the median of three or more by nothing, so it cannot drag the others.
 * - Each step moves an offset by a fraction of the error, and by at most `maxStepDb`.
 * - Offsets are bounded (`maxOffsetDb`) and re-centred on their median, so their common level —
 *   which no observation can tell from the tags' power — never drifts.
 * Pure: no I/O, no clock; the caller decides when to feed it.
 */

/** How fast and how far offsets move. */
export interface OffsetOptions {
  /** Fraction of an observation's error an offset moves by (default 0.02: ~50 observations to settle). */
  rate?: number
  /** dB an offset moves by in one observation at most (default 0.25). */
  maxStepDb?: number
  /** dB an offset may reach at most, either way (default 24: a gateway lying by 20 dB is learnt as such). */
  maxOffsetDb?: number
  /** Gateways that must have heard an observation for it to count (default 3; at least 3). */
  minGateways?: number
  /** Gateways learnt at most (default 1000); others are left at 0. */
  maxGateways?: number
}

/** One gateway's part of an observation: what it heard, and what the plan expects at the place. */
export interface OffsetSample {
  gateway: string
  /** dBm heard (smoothed), before any offset. */
  rssi: number
  /** dBm the plan expects at the place, for a tag of the typical level. */
  expected: number
}

function median(xs: number[]): number {
  xs.sort((a, b) => a - b)
  const m = xs.length >> 1
  return xs.length % 2 === 1 ? xs[m] : (xs[m - 1] + xs[m]) / 2
}

/** The learnt offsets (see the file comment). */
export class GatewayOffsets {
  private readonly rate: number
  private readonly maxStep: number
  private readonly maxOffset: number
  private readonly minGateways: number
  private readonly maxGateways: number
  private readonly offsets = new Map<string, { db: number; n: number }>()
  /** Observations taken. */
  observations = 0

  constructor(options: OffsetOptions = {}) {
    this.rate = Math.min(1, Math.max(0, options.rate ?? 0.02))
    this.maxStep = Math.max(0, options.maxStepDb ?? 0.25)
    this.maxOffset = Math.max(0, options.maxOffsetDb ?? 24)
    this.minGateways = Math.max(3, options.minGateways ?? 3)
    this.maxGateways = Math.max(1, options.maxGateways ?? 1000)
  }

  /** dB gateway `id` hears above the typical (subtract it from what it hears); 0 when not learnt. */
  offset(id: string): number {
    return this.offsets.get(id)?.db ?? 0
  }

  /** Every learnt offset, with how many observations it has seen. */
  list(): { gateway: string; offsetDb: number; observations: number }[] {
    return [...this.offsets].map(([gateway, o]) => ({ gateway, offsetDb: o.db, observations: o.n }))
  }

  /** Sets offsets learnt earlier (a restart), bounded as learnt ones are. */
  restore(entries: Iterable<{ gateway: string; offsetDb: number }>): void {
    for (const e of entries) {
      if (!Number.isFinite(e.offsetDb) || this.full(e.gateway)) continue
      this.offsets.set(e.gateway, { db: Math.max(-this.maxOffset, Math.min(this.maxOffset, e.offsetDb)), n: 0 })
    }
  }

  /**
   * One observation: the gateways that heard one beacon at one place. `weight` (0–1, default 1)
   * scales the step: a fixed beacon at a surveyed position is worth more than a place the room
   * method guessed. Returns whether it counted (enough gateways, finite values).
   */
  observe(samples: readonly OffsetSample[], weight = 1): boolean {
    const usable = samples.filter((s) => Number.isFinite(s.rssi) && Number.isFinite(s.expected))
    if (usable.length < this.minGateways) return false
    const residual = usable.map((s) => s.rssi - s.expected)
    // What each gateway heard above the others, minus what it is already known to hear above them.
    const corrected = usable.map((s, i) => residual[i] - this.offset(s.gateway))
    const centre = median([...corrected])
    const w = Math.min(1, Math.max(0, weight))
    usable.forEach((s, i) => {
      if (this.full(s.gateway)) return
      let o = this.offsets.get(s.gateway)
      if (o === undefined) this.offsets.set(s.gateway, (o = { db: 0, n: 0 }))
      const step = Math.max(-this.maxStep, Math.min(this.maxStep, this.rate * w * (corrected[i] - centre)))
      o.db = Math.max(-this.maxOffset, Math.min(this.maxOffset, o.db + step))
      o.n++
    })
    this.recentre()
    this.observations++
    return true
  }

  private full(id: string): boolean {
    return !this.offsets.has(id) && this.offsets.size >= this.maxGateways
  }

  /** Offsets are relative: their median is held at 0, so one loud gateway cannot shift the rest. */
  private recentre(): void {
    if (this.offsets.size < this.minGateways) return
    const m = median([...this.offsets.values()].map((o) => o.db))
    for (const o of this.offsets.values()) o.db -= m
  }
}
