/** Passwords come from files so they stay out of the process list; they are never printed. */

import { InvalidOptionError } from './errors.js'
import { pathForMessage, readSecretFile } from './secure/secret-file.js'

/**
 * Reads a password file: its first line, without the line ending (LF, CR LF or CR).
 * @throws InvalidOptionError `file_not_found`, `unreadable_file`, `not_a_file` (a FIFO would
 *   block the command) or `invalid_option` for an empty first line
 */
export async function readPasswordFile(path: string, option = 'password-file'): Promise<string> {
  const { text } = await readSecretFile(path, `--${option}`, option)
  const password = text.split(/\r\n|\n|\r/)[0]
  if (password === '')
    throw new InvalidOptionError(
      'invalid_option',
      `--${option} ${pathForMessage(path)} is empty: put the account password on its first line`,
      { option },
    )
  return password
}
