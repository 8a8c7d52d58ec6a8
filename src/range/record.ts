/**
 * The shapes the range table's entry and the merge share. They live apart from both so that
 * entry.ts (the storage) and merge.ts (the rules) depend on this file and not on each other.
 */
import type { Beacon } from '../reading.js'

/** What the range table keeps of a beacon: everything but the values computed for each snapshot. */
export type BeaconRecord = Omit<Beacon, 'inRange' | 'smoothedRssi' | 'adapters'>

/** Which sources a beacon's contested fields came from. */
export interface MergeState {
  /** major/minor came from a vendor frame: iBeacon values must not override them. */
  vendorMajorMinor: boolean
  /** measured power came from a vendor frame. */
  vendorPower: boolean
  /** battery/temperature came from a vendor frame: Eddystone TLM must not override them. */
  vendorSensors: boolean
}
