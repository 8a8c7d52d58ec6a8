/** Reading a site file for `fleet --site` and `simulate --site`: JSON, or a clear error. */
import { readFile } from 'node:fs/promises'
import { InvalidOptionError } from '../errors.js'

/**
 * The parsed JSON of a site file. A missing or unreadable file, or one that is not JSON, is an
 * InvalidOptionError (exit 2) saying which and what to do.
 */
export async function readSiteFile(path: string, command: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new InvalidOptionError(code === 'ENOENT' ? 'file_not_found' : 'unreadable_file', `${command}: cannot read the site file ${path} (${code ?? 'error'}); check the path (fixtures/site-demo.json is an example)`, { option: 'site', cause: error })
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new InvalidOptionError('invalid_option', `${command}: the site file ${path} is not JSON (${(error as Error).message}); see docs/fleet.md for the shape`, { option: 'site', cause: error })
  }
}
