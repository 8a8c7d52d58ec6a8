/**
 * The public shapes of {@link SiteSimulator}: its options, the ground truth it keeps, its events
 * and counters (apart from the class, as the fleet tracker's are).
 */
import type { Clock } from '../clock.js'
import type { SiteBeacon } from './site-beacons.js'
import type { RadioModel } from './site-radio.js'
import type { Site } from '../positioning/site.js'

/** Options of {@link SiteSimulator}. */
export interface SiteSimulatorOptions {
  /** Gateways with positions (`x`, `y`, optional `z`), rooms, walls. */
  site: Site
  /** The beacons, standing or walking (see `siteBeaconsFromJSON` for the file form). */
  beacons: readonly SiteBeacon[]
  /** The radio model; each value defaults as in {@link RadioModel}. */
  radio?: Partial<RadioModel>
  /** PRNG seed of noise, loss and start phases. Default 1. */
  seed?: number
  /**
   * Virtual time: the simulator owns a VirtualClock (exposed as `clock`, and by every gateway
   * source) that moves only through {@link SiteSimulator.advanceTo}, or as fast as possible once
   * started when `durationMs` is given. Default false: real time.
   */
  virtual?: boolean
  /** Virtual time: clock time of the start. Default 2026-01-01T00:00:00Z. */
  startTime?: number
  /** Real time: the clock to pace with. Default the real clock. */
  clock?: Clock
  /** Stop after this long (ms of simulation time) and emit `end`. Default: until stopped. */
  durationMs?: number
}

/** The ground truth of one beacon at one moment. */
export interface SiteTruth {
  name: string
  /** ms on the simulator's clock. */
  time: number
  x: number
  y: number
  /** The room whose polygon holds it, if any. */
  room?: string
  /** Its floor's id, on a site with `floors`. */
  floor?: string
  /** Appeared and not yet left. */
  present: boolean
  moving: boolean
}

/** A packet a gateway heard: `time` on the simulator's clock. */
export interface SiteHeard {
  gateway: string
  time: number
}

/** Events of a {@link SiteSimulator}. */
export interface SiteSimulatorEvents {
  /** The simulation reached `durationMs`. */
  end: []
  /** A device description the frame encoders refuse; the simulation stops. */
  error: [error: Error]
}

/** Counters of a {@link SiteSimulator}. */
export interface SiteSimulatorStats {
  /** Transmissions of all beacons (one per advertising interval and frame). */
  transmitted: number
  /** Packets heard by a gateway whose source was started (delivered). */
  heard: number
  /** Packets that reached a gateway above its sensitivity but were lost. */
  lost: number
  /** Packets below a gateway's sensitivity. */
  unheard: number
}
