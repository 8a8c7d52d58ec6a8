/** Reading a site file for `fleet --site`, `simulate --site` and `site check`: JSON, or a clear error; its problems. */
import { readFile, stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { InvalidOptionError } from '../../errors.js'
import { checkSiteJSON } from '../../fleet/site-check.js'
import type { SiteProblem } from '../../fleet/site-check.js'
import { EMPTY_SITE_JSON } from '../../web/site-store.js'

/**
 * The parsed JSON of a site file. A missing or unreadable file, or one that is not JSON, is an
 * InvalidOptionError (exit 2) saying which and what to do.
 * @param missingIsEmpty a missing file is the empty site (`fleet --edit` makes it at the first save)
 */
export async function readSiteFile(path: string, command: string, missingIsEmpty = false): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (missingIsEmpty && code === 'ENOENT') return { ...EMPTY_SITE_JSON }
    throw new InvalidOptionError(
      code === 'ENOENT' ? 'file_not_found' : 'unreadable_file',
      `${command}: cannot read the site file ${path} (${code ?? 'error'}); check the path ` +
        `(fixtures/site-demo.json is an example)`,
      { option: 'site', cause: error },
    )
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    const reason = (error as Error).message
    // JSON.parse says where by character offset ("at position 83"); an editor goes by line and column.
    const offset = /at position (\d+)/.exec(reason)?.[1]
    const { line, column } = lineColumn(text, offset === undefined ? text.length : Number(offset))
    const why = reason.replace(/ in JSON at position \d+.*$/s, '')
    const message =
      `${command}: the site file ${path} is not JSON at line ${line}, column ${column} ` +
      `(${why}); see docs/fleet.md for the shape`
    throw new InvalidOptionError('invalid_option', message, { option: 'site', cause: error })
  }
}

/** The 1-based line and column of a character offset in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const lineStart = before.lastIndexOf('\n') + 1
  return { line: before.split('\n').length, column: offset - lineStart + 1 }
}

/**
 * The site file's floor-plan image (`image`, or a deployment map's `imageURL`): a URL as it is,
 * a file path relative to the site file.
 */
export function siteImage(json: unknown, siteFile: string): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined
  const o = json as { image?: unknown; imageURL?: unknown }
  const image = typeof o.image === 'string' ? o.image : typeof o.imageURL === 'string' ? o.imageURL : undefined
  if (image === undefined || image === '' || /^https?:\/\//i.test(image)) return image
  return resolve(dirname(siteFile), image)
}

/** Every problem of a site file (checkSiteJSON), and a floor-plan image that is not a readable file. */
export async function siteFileProblems(path: string, json: unknown): Promise<SiteProblem[]> {
  const { problems } = checkSiteJSON(json)
  const image = siteImage(json, path)
  if (image !== undefined && image !== '' && !/^https?:\/\//i.test(image)) {
    const where = typeof (json as { image?: unknown }).image === 'string' ? 'image' : 'imageURL'
    let what: string | undefined
    try {
      if (!(await stat(image)).isFile()) what = 'is not a file'
    } catch (error) {
      what = `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`
    }
    if (what !== undefined)
      problems.push({
        severity: 'error',
        where,
        message:
          `the floor plan ${image} ${what}: the map would show no plan; give a path relative ` +
          `to the site file, or an http(s) URL`,
      })
  }
  return problems
}

/** One problem as a line: `rooms[2].gateways[1]: …`. */
export function problemLine(p: SiteProblem): string {
  return `${p.where}: ${p.message}`
}

/** Says every problem of the site file as a warning (fleet and simulate --site start anyway, as they did). */
export async function warnSiteProblems(path: string, json: unknown, warn: (text: string) => void): Promise<void> {
  for (const p of await siteFileProblems(path, json))
    warn(`site ${path}: ${problemLine(p)} (beaconkit site check ${path})`)
}
