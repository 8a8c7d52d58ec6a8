/** Passwords come from files so they stay out of the process list; they are never printed. */

import { readFile } from 'node:fs/promises'
import { InvalidOptionError } from './errors.js'

/** Reads a password file: its first line, without the line ending. */
export async function readPasswordFile(path: string, option = 'password-file'): Promise<string> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new InvalidOptionError('file_not_found', `--${option} ${path} does not exist; check the path`, { option })
    throw new InvalidOptionError('unreadable_file', `--${option} ${path} cannot be read (${code ?? 'error'}); check its permissions`, { option })
  }
  const password = text.split(/\r?\n/)[0]
  if (password === '') throw new InvalidOptionError('invalid_option', `--${option} ${path} is empty: put the account password on its first line`, { option })
  return password
}
