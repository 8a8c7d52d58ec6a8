/**
 * The logger of a running command, from its `--log-level` and `--log-format`: on standard error,
 * as standard output carries the command's data (JSON lines or the table).
 */

import { createLogger } from '../log/create-logger.js'
import type { LogStream } from '../log/create-logger.js'
import type { Logger } from '../log/logger.js'
import type { LogFlags } from './command-line.js'

/** Creates the command's logger (pino is loaded here, by a command that runs, not at import). */
export function openLog(flags: LogFlags | undefined, stream: LogStream = process.stderr): Promise<Logger> {
  return createLogger({ level: flags?.level ?? 'info', format: flags?.format ?? 'auto', stream })
}
