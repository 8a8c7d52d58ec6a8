/**
 * The model's `site` (a path to a site file, or the site itself) as a fleet's Site; the model's
 * `beacons:` names replace the site's own list.
 */

import { readFile } from 'node:fs/promises'
import type { BeaconkitConfig } from '../../config/load-config.js'
import { ConfigError } from '../../config/config-error.js'
import { Site } from '../../positioning/site.js'

/** The site file of `fleet --http --edit` when no site is given: in the current folder. */
export const DEFAULT_EDIT_SITE_FILE = './site.json'

/**
 * The site's JSON (with the model's beacon names), or undefined without a site.
 * @throws ConfigError (`invalid_config`, path `site`) for a site file that cannot be read or is no JSON
 */
export async function siteJsonOf(model: BeaconkitConfig): Promise<unknown> {
  const given = model.site
  if (given === undefined) return undefined
  let json: unknown = given
  if (typeof given === 'string') {
    try {
      json = JSON.parse(await readFile(given, 'utf8')) as unknown
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error))
      throw new ConfigError([{ path: 'site', message: `cannot read the site file ${given} (${why})` }])
    }
  }
  const names = model.beacons
  return names === undefined || typeof json !== 'object' || json === null ? json : { ...json, beacons: names }
}

/** The fleet's Site, or undefined without one (see {@link siteJsonOf}). */
export async function siteOf(model: BeaconkitConfig): Promise<Site | undefined> {
  const json = await siteJsonOf(model)
  return json === undefined ? undefined : Site.fromJSON(json)
}
