import type { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../advertisement.js'
import type { Clock } from '../clock.js'

/** Adapter states, in noble's vocabulary. */
export type AdapterState = 'unknown' | 'resetting' | 'unsupported' | 'unauthorized' | 'poweredOff' | 'poweredOn'

/** Events every advertisement source emits. */
export interface AdvertisementSourceEvents {
  advertisement: [Advertisement]
  state: [AdapterState]
  error: [Error]
  /** Emitted once when a finite source (a replay) has delivered its last advertisement. */
  end: []
  /**
   * Something went wrong and the source recovered by itself (for noble: a stalled scan was
   * restarted). Sources that never need to recover never emit it; the scanner forwards it.
   */
  warning: [string]
}

/**
 * Anything that produces advertisements: the noble source, a replay, the simulator or a
 * user's own. The scanner never knows which (the serialport binding pattern).
 */
export interface AdvertisementSource extends EventEmitter<AdvertisementSourceEvents> {
  /** Starts producing; resolves once running (for noble: scanning). */
  start(): Promise<void>
  /** Stops producing; safe to call twice. */
  stop(): Promise<void>
  /**
   * Virtual-time sources expose the clock their timestamps run on; the scanner then uses
   * it instead of real time.
   */
  readonly clock?: Clock
  /**
   * The adapter this source scans (e.g. `hci1`), when it has a name of its own: a
   * `CombinedSource` tags this source's advertisements with it unless told another name.
   */
  readonly adapter?: string
}
