/** The public shapes of {@link ThreadedPositioner}: its options and its counters. */
import type { PositioningThreadError } from '../errors.js'
import type { PositionerOptions } from './positioner-options.js'

/** Options of {@link ThreadedPositioner}: the positioner's, and two of its own. */
export interface ThreadedPositionerOptions extends PositionerOptions {
  /**
   * Readings handed to the thread and not yet taken in (or held for a beacon waiting for a
   * slot), at most (default 250,000: five seconds of 100 gateways × 500 beacons). Past it new
   * readings are dropped and counted (`stats.dropped`): a thread that cannot keep up must not
   * grow its queue without end.
   */
  maxPending?: number
  /** Told once when the thread fails; positioning then goes on in this thread, from scratch. */
  onError?: (error: PositioningThreadError) => void
  /** @internal The worker's script (tests give one that fails). */
  script?: URL
}

/** Counters of a {@link ThreadedPositioner}. */
export interface ThreadedPositionerStats {
  /** Readings handed to the thread. */
  sent: number
  /** Readings dropped because `maxPending` were waiting. */
  dropped: number
  /**
   * Not finite, RSSI outside −130…20 dBm, or from an anchor the site does not place (as
   * `Positioner` counts them).
   */
  invalid: number
  /** Whether the thread failed and positioning runs in this thread. */
  failed: boolean
  /**
   * Bytes of the thread's heap and typed arrays at its latest answer (garbage not yet collected
   * included).
   */
  heapBytes: number
  /**
   * Beacon slots this side holds: its beacons' and those of forgotten beacons the thread has not
   * yet confirmed; at most `maxBeacons`.
   */
  slots: number
  /** Beacons waiting for a slot (their readings held here) until the thread confirms a forgotten one. */
  waiting: number
}
