/**
 * The fused view of one beacon as the fleet publishes it (`<p>/fleet/beacons/<id>`), and the
 * positioning seam the fused state asks for positions.
 */
import type { FleetValues } from './beacon-values.js'

/** What one gateway hears of a beacon. */
export interface FleetGatewayReading {
  gateway: string
  /** Smoothed RSSI, dBm. */
  rssi: number
  /** Metres from the measured power, when the beacon sends one. */
  distance?: number
  /** ms on the tracker's clock. */
  lastSeen: number
}

/** A position estimate on the site's plan. */
export interface FleetPosition {
  x: number
  y: number
  /** Metres, a 1-sigma-like radius. */
  accuracy: number
}

/** One fused beacon, the payload of `<p>/fleet/beacons/<id>`. */
export interface FleetBeacon {
  id: string
  /** ms on the tracker's clock: when this view was taken. */
  time: number
  present: true
  room?: string
  /** Its floor's id, on a site with `floors` and the room method (#39). */
  floor?: string
  position?: FleetPosition
  /** The gateways hearing it now, strongest first. */
  gateways: FleetGatewayReading[]
  firstSeen: number
  lastSeen: number
  /** Its name, from the site file's `beacons` list (beacon-names.ts). */
  name?: string
  /** Its own readings, freshest from any known gateway's `<p>/gateways/<gw>/beacons/<id>` state (beacon-values.ts). */
  values?: FleetValues
}

/** What a holder of the fused state adds to a beacon's view: its name and its own readings. */
export type FleetDescriber = (id: string) => { name?: string; values?: FleetValues } | undefined

/** Something that estimates positions from observations (the positioning engine's `Positioner`). */
export interface PositionEstimator {
  observe(o: { time: number; anchor: string; beacon: string; rssi: number }): void
  estimate(beacon: string, time: number): (FleetPosition & { room?: string }) | undefined
  /** Lets go of a beacon's state. */
  forget?(beacon: string): void
  /**
   * Estimates `beacons` at `time` elsewhere (another thread), in this order, as far as
   * `budgetMs` allows; resolves with how many, from the first, were estimated — `estimate` then
   * returns theirs. Undefined when it cannot (then `estimate` does the work itself).
   */
  prepare?(beacons: readonly string[], time: number, budgetMs: number): Promise<number> | undefined
  /**
   * ms of the steps its estimates are cut into, if it has them: the fused state then asks for
   * positions at whole steps (see `FleetState.positionTime`).
   */
  readonly stepMs?: number
}
