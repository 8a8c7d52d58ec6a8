/**
 * The fleet tracker's own positioner: a site that places its gateways is all the positioning
 * engine needs, so the tracker positions beacons without being asked, unless told not to or
 * given a positioner of the caller's.
 */
import { Positioner } from '../positioning/positioner.js'
import type { RadioMap } from '../positioning/radio-map.js'
import type { PositioningMethod } from '../positioning/types.js'
import type { FleetStateOptions } from './fusion.js'

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
    ...(positioning?.radioMap === undefined ? {} : { radioMap: positioning.radioMap }),
    ...(positioning?.method === undefined ? {} : { method: positioning.method }),
  })
  return { ...options, positioner }
}
