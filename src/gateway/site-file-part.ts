/**
 * A fleet's site file edited by hand while it runs, without the map's editor (#40): the file is
 * watched (site-watch.ts) and a change that passes `site check`'s model is taken without a
 * restart, as `RunningFleet.applySite` takes it. With `http.edit` the editor watches the file
 * itself (site-editing.ts); a site given as JSON rather than a path has no file to watch.
 */
import { SiteStore } from '../web/site-store.js'
import type { PartFactory } from './part.js'
import type { FleetContext, FleetRuntime } from './fleet-context.js'
import { takeSiteEdits } from './site-watch.js'

/** The part, for a fleet whose site is a file and that has no editor. */
export const siteFilePart: PartFactory<FleetContext> = ({ settings, runtime, running, log, site }) => {
  if (settings.edit === true || site === undefined) return undefined
  // startFleet's runtime is the whole model: a program that gave `site` as a path has a file.
  const given = (runtime as FleetRuntime & { site?: unknown }).site
  const file = runtime.siteFile ?? (typeof given === 'string' ? given : undefined)
  if (file === undefined) return undefined
  let stop: (() => void) | undefined
  return {
    name: 'site file',
    start: async () => {
      let store: SiteStore
      try {
        store = await SiteStore.open(file)
      } catch (error) {
        // The fleet runs on the site it read at its start; only hand edits wait for a restart.
        log.warn(`site: ${(error as Error).message}; hand edits of it are taken only at a restart`)
        return
      }
      // Read when a change comes, not now: the root sets applySite once every part has started.
      stop = takeSiteEdits(store, (next) => running.applySite?.(next), log, 'site')
    },
    stop: async () => stop?.(),
  }
}
