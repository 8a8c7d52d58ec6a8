/**
 * Hand edits of the site file while the fleet runs (#40): someone who edits site.json in a text
 * editor gets it taken without a restart, like a save from the map's editor (with `--edit` the
 * editor's store is watched; without it, a store of the file's own, site-file-part.ts). The
 * folder is watched, not the file: a save (ours or a text editor's) replaces the file by a
 * rename, which ends a watch on the file itself. Changes are read once they settle (editors
 * write in several steps), through the store, so a hand edit and a page's save never
 * interleave; the store's own saves read back the same and do nothing.
 */
import { watch } from 'node:fs'
import type { FSWatcher } from 'node:fs'
import type { ReloadResult, SiteStore } from '../web/site-store.js'
import type { Logger } from '../log/logger.js'
import type { Site } from '../positioning/site.js'

/** How long the folder must be quiet before the file is read again (ms). */
export const SITE_SETTLE_MS = 300

/**
 * Watches the store's file and tells `changed` what reading it again came to (never `same`).
 * Returns what stops the watch. A folder that cannot be watched leaves hand edits to a restart.
 */
export function watchSiteFile(
  store: SiteStore,
  changed: (result: Exclude<ReloadResult, { kind: 'same' }>) => void,
  settleMs = SITE_SETTLE_MS,
): () => void {
  let timer: NodeJS.Timeout | undefined
  let watcher: FSWatcher | undefined
  let stopped = false
  const read = (): void => {
    timer = undefined
    void store.reload().then((result) => {
      if (!stopped && result.kind !== 'same') changed(result)
    })
  }
  try {
    watcher = watch(store.folder, { persistent: false }, (_event, name) => {
      // A platform that names no file: read it anyway (a read that finds it the same does nothing).
      if (name !== null && name !== store.name) return
      if (timer !== undefined) clearTimeout(timer)
      timer = setTimeout(read, settleMs)
      timer.unref()
    })
    // A folder removed or unwatchable later: stop watching; the fleet goes on with the site it has.
    watcher.on('error', () => watcher?.close())
  } catch {
    return () => undefined
  }
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
    watcher?.close()
  }
}

/**
 * Watches the store's file (see {@link watchSiteFile}) and hands each new site to `apply`, saying
 * so in `log`; a change with errors, or a file that cannot be read, is a warning that says where,
 * and the fleet keeps the site it has. `who` starts each line (`site editor`, `site`).
 */
export function takeSiteEdits(store: SiteStore, apply: (site: Site) => void, log: Logger, who: string): () => void {
  return watchSiteFile(store, (result) => {
    if (result.kind === 'changed') {
      log.info(`${who}: ${store.name} was changed on disk; the fleet takes it as version ${result.version}`)
      apply(result.site)
    } else if (result.kind === 'invalid') {
      const first = result.problems.find((p) => p.severity === 'error') ?? result.problems[0]
      const what = first === undefined ? 'it has errors' : `${first.where}: ${first.message}`
      log.warn(
        `${who}: ${store.name} was changed on disk, but ${what}; the fleet keeps the site it has ` +
          `(beaconkit site check ${store.name} lists every problem)`,
      )
    } else log.warn(`${who}: ${result.message}; the fleet keeps the site it has`)
  })
}
