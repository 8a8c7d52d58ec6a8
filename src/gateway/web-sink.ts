/**
 * `--http`: the live map of the run's scanner (or fleet) in a browser. The address, with the
 * access token when one is needed, is printed once to standard error: it is the only place the
 * token appears.
 */
import type { BeaconScanner } from '../scanner/scanner.js'
import type { FleetTracker } from '../fleet/tracker.js'
import type { SiteEditing } from '../web/edit-routes.js'
import type { Site } from '../positioning/site.js'
import type { FleetTimeline } from '../web/timeline.js'
import { startMapServer } from '../web/map-server.js'
import type { MapServer } from '../web/map-server.js'
import type { ListenSettings } from './settings/listen.js'
import type { DetailsSource } from '../web/live-view.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'

/** Starts the map server for a scanner or a fleet and says where it is. */
export async function startWeb(
  flags: ListenSettings,
  what:
    | { scanner: BeaconScanner }
    | { fleet: FleetTracker; site?: Site; image?: string; siteFile?: string; edit?: SiteEditing }
    | { timeline: FleetTimeline },
  stderr: { write(text: string): unknown },
  details?: DetailsSource,
  metrics?: MetricsEndpoint,
): Promise<MapServer> {
  const server = await startMapServer({
    host: flags.host,
    port: flags.port,
    ...(flags.token === undefined ? {} : { token: flags.token }),
    ...what,
    ...(details === undefined ? {} : { details }),
    ...(metrics === undefined ? {} : { metrics }),
  })
  if (server.tokenRequired) {
    const given =
      flags.token === undefined ? ' (a generated access token: anyone with this address can see the map)' : ''
    stderr.write(`beaconkit: live map at ${server.pageUrl}${given}\n`)
  } else {
    stderr.write(`beaconkit: live map at ${server.url}\n`)
  }
  return server
}
