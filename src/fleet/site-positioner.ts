/**
 * The fleet tracker's own positioner: a site that places its gateways is all the positioning
 * engine needs, so the tracker positions beacons without being asked, unless told not to or
 * given a positioner of the caller's. On a machine with more than one core the grid filter runs
 * on a worker thread of its own.
 */
import { availableParallelism } from 'node:os'
import { Positioner } from '../positioning/positioner.js'
import type { PositionerOptions } from '../positioning/positioner-options.js'
import type { PositioningThreadError } from '../errors.js'
import { ThreadedPositioner } from '../positioning/positioner-thread.js'
import type { RadioMap } from '../positioning/radio-map.js'
import type { PositioningMethod } from '../positioning/types.js'
import { DEFAULT_MAX_BEACONS, type FleetStateOptions } from './fleet-state-options.js'
import type { PositionEstimator } from './fleet-beacon.js'

/** How the fleet tracker positions beacons by itself (`FleetTrackerOptions.positioning`). */
export interface FleetPositioning {
  /** Default `'filter'`. */
  method?: PositioningMethod
  /** A calibration (`RadioMap.fromSurvey`); default physics from the site without one (metres of error). */
  radioMap?: RadioMap
  /**
   * Whether the grid filter runs on a worker thread (default: when the machine has more than
   * one core). The filter is most of a positioned fleet's CPU (every beacon, every second):
   * on its own thread it no longer delays the readings, and a tick waits for its estimates
   * instead of cutting them short. Estimates are the same either way. The other methods are a
   * few comparisons per beacon and never take a thread.
   */
  thread?: boolean
}

/** The tracker's own positioner, and how to stop it. */
export interface SitePositioner {
  positioner: PositionEstimator
  /** Stops its thread, if it has one. */
  close(): Promise<void>
  /** The thread's counters, when positioning runs on one. */
  threadStats?: () => ThreadedPositioner['stats']
}

/**
 * The positioner the tracker makes for itself: when the site places at least one gateway (x and
 * y), no `positioner` is given and `positioning` is not `false`. A site of fixed beacons (the
 * mobile case) gets none: its anchors are not the fleet's gateways. `onError` hears a thread
 * that failed (positions then go on in this thread).
 */
export function sitePositioner(
  options: FleetStateOptions & { positioning?: false | FleetPositioning },
  onError: (error: PositioningThreadError) => void,
): SitePositioner | undefined {
  const { site, positioning } = options
  if (options.positioner !== undefined || positioning === false || site === undefined || site.kind !== 'receivers')
    return undefined
  if (!site.anchorList().some((a) => a.x !== undefined && a.y !== undefined)) return undefined
  const settings: PositionerOptions = {
    site,
    // A fleet hears a beacon once per gateway and batch: 64 packets are seconds of every gateway
    // around it, and 12,500 beacons × the default 256 would hold 44 MB of packets the filter has folded.
    bufferSize: 64,
    // One track per fused beacon: a positioner holding fewer would evict and restart filters
    // (a whole-grid update each) every second once the fleet tracks more than it.
    maxBeacons: options.maxBeacons ?? DEFAULT_MAX_BEACONS,
    ...(positioning?.radioMap === undefined ? {} : { radioMap: positioning.radioMap }),
    ...(positioning?.method === undefined ? {} : { method: positioning.method }),
  }
  const method = positioning?.method ?? 'filter'
  if (method === 'filter' && (positioning?.thread ?? availableParallelism() > 1)) {
    const threaded = new ThreadedPositioner({ ...settings, onError })
    return { positioner: threaded, close: () => threaded.close(), threadStats: () => threaded.stats }
  }
  return { positioner: new Positioner(settings), close: () => Promise.resolve() }
}
