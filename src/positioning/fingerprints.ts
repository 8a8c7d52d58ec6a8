/**
 * Rooms taught in place: a person holds a beacon in a room for some seconds, and what each
 * gateway heard of it (mean and spread) becomes a fingerprint of that room. Fingerprints are kept
 * in what the gateways heard (dBm before any learnt offset): a gateway's gain is in both the
 * fingerprint and what it hears later, so they compare without calibration. Bounded: rooms ×
 * samples × gateways, the oldest sample of a room giving way to a new one. Pure: the file is
 * fleet/fingerprint-file.ts's.
 */

/** One gateway's part of a fingerprint. */
export interface FingerprintGateway {
  /** dBm, mean of what it heard (smoothed readings, one a second). */
  mean: number
  /** dB, spread of those readings. */
  sd: number
  /** Readings it was heard in. */
  n: number
}

/** One teaching of one room. */
export interface FingerprintSample {
  room: string
  floor?: string
  /** ms, when the teaching ended. */
  taught: number
  /** Readings (seconds) the teaching took. */
  readings: number
  gateways: Record<string, FingerprintGateway>
}

/** The bounds of a fingerprint store. */
export interface FingerprintLimits {
  /** Rooms at most (default 256). */
  maxRooms?: number
  /** Samples per room at most (default 16); a new one replaces the room's oldest. */
  maxSamplesPerRoom?: number
  /** Gateways per sample at most (default 64): the strongest are kept. */
  maxGatewaysPerSample?: number
}

/** Accumulates one teaching: per gateway, Welford's running mean and variance. */
export class FingerprintRecorder {
  private readonly acc = new Map<string, { n: number; mean: number; m2: number }>()
  private count = 0

  constructor(
    readonly room: string,
    readonly floor?: string,
  ) {}

  /** One reading of every gateway that hears the beacon now (dBm, as heard). */
  add(readings: readonly { gateway: string; rssi: number }[]): void {
    this.count++
    for (const r of readings) {
      if (!Number.isFinite(r.rssi)) continue
      let a = this.acc.get(r.gateway)
      if (a === undefined) {
        if (this.acc.size >= 1000) continue
        this.acc.set(r.gateway, (a = { n: 0, mean: 0, m2: 0 }))
      }
      a.n++
      const d = r.rssi - a.mean
      a.mean += d / a.n
      a.m2 += d * (r.rssi - a.mean)
    }
  }

  /** Readings so far. */
  get readings(): number {
    return this.count
  }

  /**
   * The fingerprint, or undefined when nothing was heard. Gateways heard in under a third of the
   * readings are left out: a gateway at the edge of hearing is no part of the room's pattern.
   */
  finish(taught: number, maxGateways = 64): FingerprintSample | undefined {
    const kept = [...this.acc].filter(([, a]) => a.n * 3 >= this.count).sort((x, y) => y[1].mean - x[1].mean)
    if (kept.length === 0) return undefined
    // Gateway ids come from the network: no prototype for an id like "__proto__" to reach.
    const gateways = Object.create(null) as Record<string, FingerprintGateway>
    for (const [id, a] of kept.slice(0, maxGateways))
      gateways[id] = { mean: a.mean, sd: a.n > 1 ? Math.sqrt(a.m2 / (a.n - 1)) : 0, n: a.n }
    const s: FingerprintSample = { room: this.room, taught, readings: this.count, gateways }
    if (this.floor !== undefined) s.floor = this.floor
    return s
  }
}

/** The taught fingerprints of a site (see the file comment). */
export class Fingerprints {
  private readonly byRoom = new Map<string, FingerprintSample[]>()
  private readonly maxRooms: number
  private readonly maxSamples: number
  readonly maxGatewaysPerSample: number

  constructor(limits: FingerprintLimits = {}) {
    this.maxRooms = Math.max(1, limits.maxRooms ?? 256)
    this.maxSamples = Math.max(1, limits.maxSamplesPerRoom ?? 16)
    this.maxGatewaysPerSample = Math.max(1, limits.maxGatewaysPerSample ?? 64)
  }

  /** Adds a sample; false when the store holds `maxRooms` other rooms already. */
  add(sample: FingerprintSample): boolean {
    let list = this.byRoom.get(sample.room)
    if (list === undefined) {
      if (this.byRoom.size >= this.maxRooms) return false
      this.byRoom.set(sample.room, (list = []))
    }
    list.push(sample)
    list.sort((a, b) => a.taught - b.taught)
    if (list.length > this.maxSamples) list.splice(0, list.length - this.maxSamples)
    return true
  }

  /** Whether `room` has been taught. */
  taught(room: string): boolean {
    return this.byRoom.has(room)
  }

  /** Rooms taught. */
  get rooms(): number {
    return this.byRoom.size
  }

  /** Every sample, room by room, oldest first. */
  samples(): FingerprintSample[] {
    return [...this.byRoom.values()].flat()
  }

  /** A room's samples (empty when untaught). */
  of(room: string): readonly FingerprintSample[] {
    return this.byRoom.get(room) ?? []
  }

  /** Forgets one room's samples, or all. */
  clear(room?: string): void {
    if (room === undefined) this.byRoom.clear()
    else this.byRoom.delete(room)
  }
}

/** How a reading is compared with a fingerprint. */
export interface MatchOptions {
  /** dB added (in quadrature) to a sample's spread: the place differs from the taught spot (default 6). */
  spreadDb?: number
  /** dBm a gateway hears a tag down to, reliably (default −90): silence is evidence above it. */
  floorDbm?: number
}

/**
 * Log-likelihood (up to a constant) of what the gateways hear now under one fingerprint: a
 * Gaussian per gateway both know; a gateway the fingerprint has but that hears nothing now (and is
 * online), or one that hears now but was silent then, costs as if it heard at `floorDbm`.
 */
export function matchFingerprint(
  sample: FingerprintSample,
  heard: ReadonlyMap<string, number>,
  online: (gateway: string) => boolean,
  options: MatchOptions = {},
): number {
  const extra = options.spreadDb ?? 6
  const floor = options.floorDbm ?? -90
  let ll = 0
  for (const [id, g] of Object.entries(sample.gateways)) {
    const v = heard.get(id)
    const s2 = g.sd * g.sd + extra * extra
    if (v !== undefined) ll -= (v - g.mean) ** 2 / (2 * s2)
    else if (online(id) && g.mean > floor) ll -= (g.mean - floor) ** 2 / (2 * s2)
  }
  for (const [id, v] of heard) {
    if (Object.hasOwn(sample.gateways, id) || v <= floor) continue
    ll -= (v - floor) ** 2 / (2 * extra * extra)
  }
  return ll
}
