/**
 * `beaconkit site check <site.json>`: every problem of a site file, each with where it is, before
 * a fleet runs on it. Exit 2 when there is an error, 0 otherwise (warnings printed). The same
 * problems are warnings at the start of `fleet --site` and `simulate --site`.
 */
import { checkSiteJSON } from '../../fleet/site-check.js'
import { EXIT } from '../exit.js'
import { problemLine, readSiteFile, siteFileProblems } from './site-file.js'

/** Checks the site file and prints what it found; resolves with the exit code. */
export async function runSiteCheck(file: string, out: { write(text: string): unknown }): Promise<number> {
  const json = await readSiteFile(file, 'site check')
  const problems = await siteFileProblems(file, json)
  for (const p of problems) out.write(`${p.severity === 'error' ? 'error  ' : 'warning'} ${problemLine(p)}\n`)
  const errors = problems.filter((p) => p.severity === 'error').length
  const warnings = problems.length - errors
  const { site } = checkSiteJSON(json)
  const what = site === undefined ? '' : ` (${site.anchorList().length} ${site.kind === 'beacons' ? 'anchor beacons' : 'gateways'}, ${site.rooms.length} rooms)`
  if (problems.length === 0) out.write(`${file}: no problems found${what}\n`)
  else out.write(`${file}: ${errors} ${errors === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}${what}\n`)
  return errors > 0 ? EXIT.usage : EXIT.ok
}
