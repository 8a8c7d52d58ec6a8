/**
 * The fleet's side of the site editor (`fleet --http --edit`, #40): the site store on the site
 * file (./site.json when none is given; a missing file is the empty site), a save handed to the
 * running fleet (`running.applySite`, set where the fleet can take a new site), and the editor's
 * "teach this room with this tag" handed to the teach part (`running.teachRoom`). Both are read
 * when used, not when the map starts, so a part that sets them later is still reached. A hand
 * edit of the file while the fleet runs is taken the same way (site-watch.ts).
 */
import { SiteStore } from '../web/site-store.js'
import type { SiteEditing, TeachOutcome } from '../web/edit-routes.js'
import type { FleetContext, FleetRuntime } from './fleet-context.js'
import type { TeachRefusal } from './fleet-teach.js'
import { DEFAULT_EDIT_SITE_FILE } from './settings/site.js'
import { takeSiteEdits } from './site-watch.js'
import type { Site } from '../positioning/site.js'

/** The HTTP status of each refusal: the fleet's state (409), the request (422), too many at once (429). */
const STATUS: Record<TeachRefusal['code'], number> = {
  no_room_method: 409,
  no_fingerprint_file: 409,
  beacon_not_heard: 409,
  unknown_room: 422,
  too_many_teachings: 429,
}

/**
 * The editor for the map server, or undefined without `http.edit`.
 * @throws SiteStoreError when the site file exists but cannot be read
 */
export async function siteEditing({ settings, runtime, running, log }: FleetContext): Promise<SiteEditing | undefined> {
  if (settings.edit !== true) return undefined
  // startFleet's runtime is the whole model: a program that gave `site` as a path edits that file.
  const given = (runtime as FleetRuntime & { site?: unknown }).site
  const file = runtime.siteFile ?? (typeof given === 'string' ? given : DEFAULT_EDIT_SITE_FILE)
  const store = await SiteStore.open(file)
  const apply = (site: Site): void => {
    if (running.applySite === undefined)
      log.warn(`site editor: ${store.name} saved; restart the fleet to use it (it cannot take a new site live)`)
    else running.applySite(site)
  }
  const stopWatch = takeSiteEdits(store, apply, log, 'site editor')
  return {
    store,
    saved: apply,
    close: stopWatch,
    teach: (room, beacon, seconds): TeachOutcome => {
      if (running.teachRoom === undefined)
        return {
          ok: false,
          status: 409,
          code: 'no_room_method',
          message: 'the fleet decides rooms by the strongest gateway: run it with --rooms plan --fingerprints <file>',
        }
      const refusal = running.teachRoom(beacon, room, seconds)
      return refusal === undefined ? { ok: true } : { ok: false, status: STATUS[refusal.code], ...refusal }
    },
  }
}
