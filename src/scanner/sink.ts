/**
 * The one shape of everything that consumes a scanner's events (DESIGN section 2): the uploader,
 * the MQTT publisher and a user's own sink. The composition root (gateway/start-gateway.ts)
 * attaches each sink to the scanner and closes it on the way out, without special-casing any.
 */

import type { Clock } from '../clock.js'
import type { Beacon } from '../reading.js'
import type { BeaconChanges } from '../range/merge.js'

/** The arguments of the beacon events a sink can listen to. */
export interface ScannerEventArgs {
  found: [beacon: Beacon]
  gone: [beacon: Beacon]
  changed: [beacon: Beacon, changes: BeaconChanges]
  updated: [beacons: Beacon[]]
}

/**
 * What a sink attaches to: a `BeaconScanner`, or anything with its beacon events, clock and
 * current list (the generic signature mirrors eventemitter3's, so a scanner fits without a cast).
 */
export interface ScannerEventSource {
  readonly clock: Clock
  /** The beacons in range now. */
  beacons(): Beacon[]
  /** True when `updated` snapshots already carry packet totals (`packetsHeard`), as a BeaconScanner's do. */
  readonly countsPackets?: boolean
  on<E extends keyof ScannerEventArgs>(event: E, listener: (...args: ScannerEventArgs[E]) => void): unknown
  off<E extends keyof ScannerEventArgs>(event: E, listener: (...args: ScannerEventArgs[E]) => void): unknown
}

/**
 * A consumer of scanner events. `attach` starts listening and returns the function that stops;
 * `close` delivers what it still holds (within its own deadline) and releases it. `S` narrows the
 * events a sink needs, so a test can attach it to less than a whole scanner.
 */
export interface ScannerSink<S = ScannerEventSource> {
  attach(events: S): () => void
  /**
   * Optional: what must happen before the scanner starts, after `attach` (an MQTT publisher's
   * `connect()`, so its first state goes out on a connection that exists). The composition root
   * awaits it in the sinks' order; a rejection closes the sinks already started and fails the start.
   */
  start?(): Promise<void>
  close(): Promise<unknown>
}
