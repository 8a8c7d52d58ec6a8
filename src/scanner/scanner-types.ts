/** The public shapes of {@link BeaconScanner}: its events and its counters (apart from the class). */
import type { DecodeStats } from '../decode/decoder.js'
import type { IdentityResolverStats } from '../secure/identity-resolver.js'
import type { BeaconChanges } from '../range/merge.js'
import type { RangeTableStats } from '../range/range-table-types.js'
import type { Beacon, FrameKind } from '../reading.js'
import type { AdapterState } from '../sources/source.js'
import type { ScannerWarning } from './event-stream.js'

/** Events of a {@link BeaconScanner}. */
export interface ScannerEvents {
  /** A beacon was heard for the first time, or again after it was gone. */
  found: [beacon: Beacon]
  /**
   * A beacon was not heard for `goneTimeoutMs` (emitted at exactly `lastSeen + goneTimeoutMs`), or
   * fell below `leaveRssi`.
   */
  gone: [beacon: Beacon]
  /**
   * Every `updateIntervalMs`: the beacons in range, nearest first. On replay time (a virtual
   * or paced clock) there is no tick while nothing is tracked, so a gap in a recording costs
   * nothing; the tick resumes, on its old phase, with the next reading.
   */
  updated: [beacons: Beacon[]]
  /** rssi (smoothed, whole dBm), temperature, light, accelerometerCount, movingState or batteryLevel changed. */
  changed: [beacon: Beacon, changes: BeaconChanges]
  /** The adapter's state, as the source reports it. */
  state: [state: AdapterState]
  /** Something was skipped or recovered (a malformed recording line, a restarted scan); scanning goes on. */
  warning: [warning: ScannerWarning]
  /**
   * A source error, or a listener that threw (scanning goes on either way). With no listener,
   * a process warning instead (once per error code).
   */
  error: [error: Error]
}

/** Counters of a scanner. */
export interface ScannerStats {
  /** Advertisements received from the source. */
  advertisements: number
  /** Readings decoded from them. */
  decoded: number
  /** Advertisements skipped as unusable (bad envelope). */
  malformed: number
  /** Advertisements with no known frame (other devices). */
  ignored: number
  /** Readings per frame kind. */
  byFrame: Record<FrameKind, number>
  /** Decoder counters, including encrypted frames decrypted / verified / rejected by reason. */
  decoder: DecodeStats
  secure: DecodeStats['secure']
  range: RangeTableStats
  /** Events dropped by slow `events()` consumers. */
  eventsDropped: number
  /** Listeners that threw (each reported as `error`). */
  listenerErrors: number
  /** With identity resolving keys (`identities`): addresses resolved, not resolved, cache use. */
  identities?: IdentityResolverStats
}
