/**
 * How well each room explains what the gateways hear now, from the plan (room-geometry.ts): per
 * point of the room, a Gaussian log-likelihood of the heard RSSI (offsets taken off) around the
 * plan's expectation, with the tag's own level fitted (a tag is louder or quieter than the
 * typical by a few dB, with a prior that keeps a lone reading from explaining everything); a
 * gateway that is online and hears nothing is evidence too, where the plan says it should hear.
 * A room's score is its best point's. Pure arithmetic over arrays the scorer owns.
 */
import type { RoomGeometry } from './room-geometry.js'

/** The noise the scores assume. */
export interface ScoreOptions {
  /** dB, spread of a smoothed reading around the plan's expectation (default 4). */
  sigmaDb?: number
  /** dB, spread of a tag's level around the typical (default 4). */
  levelSigmaDb?: number
  /** dBm down to which a gateway hears a tag reliably (default −88): silence counts above it. */
  floorDbm?: number
}

/** Scores rooms for one beacon at a time; reuse one per site. */
export class RoomScorer {
  private readonly sigma2: number
  private readonly level2: number
  private readonly floorDbm: number
  private readonly heard: Float64Array
  private readonly silent: Uint8Array
  /** Per room, its score of the last {@link score}. */
  readonly scores: Float64Array
  /** Per room, its best point of the last {@link score}. */
  readonly bestPoint: Int32Array
  /** The tag level fitted at each room's best point (dB above the typical). */
  readonly level: Float64Array

  constructor(
    readonly geometry: RoomGeometry,
    options: ScoreOptions = {},
  ) {
    this.sigma2 = (options.sigmaDb ?? 4) ** 2
    this.level2 = (options.levelSigmaDb ?? 4) ** 2
    this.floorDbm = options.floorDbm ?? -88
    const G = geometry.gateways.length
    this.heard = new Float64Array(G)
    this.silent = new Uint8Array(G)
    const R = geometry.rooms.length
    this.scores = new Float64Array(R)
    this.bestPoint = new Int32Array(R)
    this.level = new Float64Array(R)
  }

  /**
   * Scores every room (into `scores`) for the readings `heard` (gateway → dBm with its offset taken
   * off); `online` says which silent gateways count as silence. Returns how many placed gateways
   * heard the beacon (0: every score is 0, nothing to tell rooms apart).
   */
  score(heard: ReadonlyMap<string, number>, online: (gateway: string) => boolean): number {
    const geo = this.geometry
    const G = geo.gateways.length
    let count = 0
    for (let g = 0; g < G; g++) {
      const id = geo.gateways[g]
      const v = heard.get(id)
      this.heard[g] = v ?? Number.NaN
      this.silent[g] = v === undefined && online(id) ? 1 : 0
      if (v !== undefined) count++
    }
    const exp = geo.expected
    const s2 = this.sigma2
    // The level's prior, as a count of pseudo-readings: (Σ r) / (n + σ²/σ_level²) is its MAP estimate.
    const prior = s2 / this.level2
    for (let r = 0; r < geo.rooms.length; r++) {
      const room = geo.rooms[r]
      let best = -Infinity
      let bestP = room.start
      let bestLevel = 0
      for (let p = room.start; p < room.end; p++) {
        const base = p * G
        let sum = 0
        for (let g = 0; g < G; g++)
          if (this.silent[g] === 0 && !Number.isNaN(this.heard[g])) sum += this.heard[g] - exp[base + g]
        const level = sum / (count + prior)
        let ll = -(level * level) / (2 * this.level2)
        for (let g = 0; g < G; g++) {
          const e = exp[base + g] + level
          const v = this.heard[g]
          if (!Number.isNaN(v)) ll -= ((v - e) * (v - e)) / (2 * s2)
          else if (this.silent[g] === 1 && e > this.floorDbm) ll -= (e - this.floorDbm) ** 2 / (2 * s2)
        }
        if (ll > best) {
          best = ll
          bestP = p
          bestLevel = level
        }
      }
      this.scores[r] = room.end > room.start ? best : -Infinity
      this.bestPoint[r] = bestP
      this.level[r] = bestLevel
    }
    return count
  }
}
