/** The range table's seams: the sink its events go to, its validated settings, its counters. */
import type { Clock } from '../clock.js'
import type { ProximityThresholds } from '../decode/distance.js'
import type { Beacon } from '../reading.js'
import type { CompiledFilter } from './filter.js'
import type { BeaconChanges } from './merge.js'
import type { RssiFilter } from './rssi-filter.js'

/** Where the table's events go (the scanner). */
export interface RangeTableSink {
  found(beacon: Beacon): void
  gone(beacon: Beacon): void
  changed(beacon: Beacon, changes: BeaconChanges): void
  updated(beacons: Beacon[]): void
  /** An address is no longer linked to any tracked beacon: whatever is cached for it can go. */
  released(address: string): void
  /** Whether anyone listens to `changed`: the diff is skipped otherwise. */
  wantsChanged(): boolean
  /** Whether anyone listens to `updated`: the sorted snapshot is skipped otherwise. */
  wantsUpdated(): boolean
}

/** Validated range-table settings. */
export interface RangeTableOptions {
  clock: Clock
  goneTimeoutMs: number
  updateIntervalMs: number
  filter: CompiledFilter
  /** RSSI smoothing (stateless: each entry holds its own state). */
  smoothing: RssiFilter
  proximityThresholds?: ProximityThresholds
  /** Hysteresis: found only once the smoothed RSSI reaches `enterRssi`; gone below `leaveRssi`. */
  enterRssi?: number
  leaveRssi?: number
  hideUnverifiedSecure: boolean
  /**
   * Replay time (a virtual or paced clock): no `updated` tick while nothing is tracked. The
   * tick pauses and resumes, on its old phase, with the next reading, so a gap of years in a
   * recording costs no work (instead of one tick per interval). Default false: a live table
   * keeps ticking, so a screen fed by the tick stays fresh while no beacon is near.
   */
  pauseTickWhenEmpty?: boolean
  /**
   * A beacon first heard without a serial number is announced this long after its first
   * packet, unless a packet carrying its serial (the scan response) arrives first. Default 0.
   */
  identitySettleMs?: number
}

/** Counters of the range table. */
export interface RangeTableStats {
  /** Beacons tracked now (reported or not). */
  tracked: number
  /** Readings ignored for being weaker than `filter.minRssi`. */
  belowMinRssi: number
  /** Readings held or dropped by the secure-broadcast confirmation. */
  heldSecure: number
  droppedSecure: number
}
