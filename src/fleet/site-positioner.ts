/**
 * The fleet tracker's own positioner: a site that places its gateways is all the positioning
 * engine needs, so the tracker positions beacons without being asked, unless told not to or
 * given a positioner of the caller's.
 */
import { Positioner } from '../positioning/positioner.js'
import type { RadioMap } from '../positioning/radio-map.js'
import type { PositioningMethod } from '../positioning/types.js'
import { DEFAULT_MAX_BEACONS, type FleetStateOptions } from './fusion.js'

/** How the fleet tracker positions beacons by itself (`FleetTrackerOptions.positioning`). */
export interface FleetPositioning {
  /** Default `'filter'`. */
  method?: PositioningMethod
  /** A calibration (`RadioMap.fromSurvey`); default physics from the site without one (metres of error). */
  radioMap?: RadioMap
}

/**
 * The fused state's options with a `Positioner` added when the site places at least one
 * gateway (x and y), no `positioner` is given and `positioning` is not `false`. A site of fixed
 * beacons (the mobile case) gets none: its anchors are not the fleet's gateways.
 */
export function withSitePositioner<T extends FleetStateOptions>(options: T & { positioning?: false | FleetPositioning }): T {
  const { site, positioning } = options
  if (options.positioner !== undefined || positioning === false || site === undefined || site.kind !== 'receivers') return options
  if (!site.anchorList().some((a) => a.x !== undefined && a.y !== undefined)) return options
  const positioner = new Positioner({
    site,
    // A fleet hears a beacon once per gateway and batch: 64 packets are seconds of every gateway
    // around it, and 12,500 beacons × the default 256 would hold 44 MB of packets the filter has folded.
    bufferSize: 64,
    // One track per fused beacon: a positioner holding fewer would evict and restart filters
    // (a whole-grid update each) every second once the fleet tracks more than it.
    maxBeacons: options.maxBeacons ?? DEFAULT_MAX_BEACONS,
    ...(positioning?.radioMap === undefined ? {} : { radioMap: positioning.radioMap }),
    ...(positioning?.method === undefined ? {} : { method: positioning.method }),
  })
  return { ...options, positioner }
}
