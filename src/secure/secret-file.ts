/**
 * Reading a file that holds secrets (broadcast keys, a password). Such a file must be a plain
 * file: reading a FIFO would block until some other process writes to it (the command would
 * hang), and a device could be endless. Its name is not echoed when it looks like a key.
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { InvalidOptionError } from '../errors.js'
import { looksLikeBroadcastKey } from './broadcast-key.js'

/** A secrets file is small; a bigger one is a mistake (the wrong file), not a keyring. */
const MAX_SECRET_FILE_BYTES = 1024 * 1024

/** What was read from a secrets file. */
export interface SecretFile {
  text: string
  /**
   * The file is readable or writable by group or others (mode & 0o077), as ssh warns about
   * for private keys. Always false on Windows, whose permissions are not mode bits.
   */
  exposed: boolean
  /** The permission bits, e.g. 0o644. */
  mode: number
}

/** How to name a file in a message: its path, unless the path is really a key typed in the wrong place. */
export function pathForMessage(path: string): string {
  return looksLikeBroadcastKey(path)
    ? '(a value that looks like a broadcast key, not a file name: pass keys with --key or in a keys file)'
    : path
}

/**
 * Reads a secrets file as UTF-8, refusing anything but a regular file without blocking on it.
 * @param label how messages name the file, e.g. `Keys file` or `--password-file`
 * @param option the option reported on the error
 * @throws InvalidOptionError `file_not_found`, `unreadable_file` (a directory, no permission,
 *   too big) or `not_a_file` (a FIFO, socket or device)
 */
export async function readSecretFile(path: string, label: string, option: string): Promise<SecretFile> {
  const shown = pathForMessage(path)
  let handle: FileHandle
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT')
      throw new InvalidOptionError('file_not_found', `${label} ${shown} does not exist; check the path.`, { option })
    throw new InvalidOptionError(
      'unreadable_file',
      `${label} ${shown} cannot be read (${code ?? 'error'}); check its permissions.`,
      { option },
    )
  }
  try {
    const stats = await handle.stat()
    if (stats.isDirectory())
      throw new InvalidOptionError('unreadable_file', `${label} ${shown} is a directory; pass the file inside it.`, {
        option,
      })
    if (!stats.isFile()) {
      throw new InvalidOptionError(
        'not_a_file',
        `${label} ${shown} is not a regular file (a FIFO, socket or device); put the secrets in a plain file.`,
        { option },
      )
    }
    if (stats.size > MAX_SECRET_FILE_BYTES) {
      throw new InvalidOptionError(
        'unreadable_file',
        `${label} ${shown} is ${stats.size} bytes, ` +
          'too big for a file of keys or a password (1 MiB at most); check the path.',
        { option },
      )
    }
    let text: string
    try {
      text = await handle.readFile('utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw new InvalidOptionError(
        'unreadable_file',
        `${label} ${shown} cannot be read (${code ?? 'error'}); check its permissions.`,
        { option },
      )
    }
    const mode = stats.mode & 0o777
    return { text, mode, exposed: process.platform !== 'win32' && (mode & 0o077) !== 0 }
  } finally {
    await handle.close()
  }
}
