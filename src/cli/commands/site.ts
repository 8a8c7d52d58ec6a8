/**
 * `beaconkit site check <site.json>`: every problem of a site file, each with where it is, before
 * a fleet runs on it. Exit 2 when there is an error, 0 otherwise (warnings printed). The same
 * problems are warnings at the start of `fleet --site` and `simulate --site`.
 */
import { checkSiteJSON } from '../../fleet/site-check.js'
import { EXIT } from '../exit.js'
import { problemLine, readSiteFile, siteFileProblems } from './site-file.js'
import { fail, quote } from '../arg-values.js'
import { defineCommand } from './command.js'

/** Checks the site file and prints what it found; resolves with the exit code. */
export async function runSiteCheck(file: string, out: { write(text: string): unknown }): Promise<number> {
  const json = await readSiteFile(file, 'site check')
  const problems = await siteFileProblems(file, json)
  for (const p of problems) out.write(`${p.severity === 'error' ? 'error  ' : 'warning'} ${problemLine(p)}\n`)
  const errors = problems.filter((p) => p.severity === 'error').length
  const warnings = problems.length - errors
  const { site } = checkSiteJSON(json)
  const what =
    site === undefined
      ? ''
      : ` (${site.anchorList().length} ${site.kind === 'beacons' ? 'anchor beacons' : 'gateways'}, ` +
        `${site.rooms.length} rooms)`
  if (problems.length === 0) out.write(`${file}: no problems found${what}\n`)
  else
    out.write(
      `${file}: ${errors} ${errors === 1 ? 'error' : 'errors'}, ${warnings} ` +
        `${warnings === 1 ? 'warning' : 'warnings'}${what}\n`,
    )
  return errors > 0 ? EXIT.usage : EXIT.ok
}

/** What `beaconkit site check <file>` parses to. */
export interface SiteCheckCommand {
  command: 'site-check'
  file: string
}

/** `beaconkit site`: its options, help, parser and runner (registered in registry.ts). */
export const siteCommand = defineCommand({
  name: 'site',
  overview: [['site check <site.json>', 'check a site file: rooms, gateways, floor plan']],
  options: {},
  help: `Usage: beaconkit site check <site.json>

Checks a site file before a fleet runs on it, and prints every problem with where it
is in the file (rooms[2].gateways[1]: …):
  error    the file cannot be read as a site; a room names a gateway the file does not
           declare; a gateway id no gateway can publish under; an image (floor plan)
           that is not a readable file
  warning  some gateways placed (x, y) and some not: positions are off
\`beaconkit fleet --site\` and \`beaconkit simulate --site\` print the same problems as
warnings when they start; the fleet also warns, once per gateway, when a gateway the
site does not declare publishes RSSI batches (a typo in its --gateway-id).

  -h, --help             this help
Exit codes: 0 no error (warnings may be printed), 2 errors found, or the file is
missing or not JSON.`,
  parse(values, pos): SiteCheckCommand {
    const command = 'site'
    const [sub, file, ...extra] = pos
    const usage = 'usage: beaconkit site check <site.json>'
    if (sub !== 'check')
      fail('argument', `${usage}${sub === undefined ? '' : `; unknown site command ${quote(sub)}`}`, command)
    if (file === undefined) fail('argument', `missing argument: ${usage}`, command)
    if (extra.length > 0) fail('argument', `site check takes one site file: ${usage}`, command)
    return { command: 'site-check', file }
  },
  run: (parsed) => runSiteCheck(parsed.file, process.stdout),
})
