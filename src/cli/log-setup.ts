/**
 * The logger of a running command, from its `--log-level` and `--log-format`: on standard error,
 * as standard output carries the command's data (JSON lines or the table). Also the command's own
 * lines beside the log (where a server listens, the final answer), in the same format: in the
 * JSON format every line on standard error is a JSON object, so `jq` reads a service's journal.
 */

import { resolveFormat } from '../log/create-logger.js'
import type { LogStream } from '../log/create-logger.js'
import { createLogger } from '../log/create-logger.js'
import { jsonLogLine } from '../log/json-line.js'
import type { Logger, LogFields, LogLevel } from '../log/logger.js'
import type { LogFlags } from './command-line.js'

/** Creates the command's logger (pino is loaded here, by a command that runs, not at import). */
export function openLog(flags: LogFlags | undefined, stream: LogStream = process.stderr): Promise<Logger> {
  return createLogger({ level: flags?.level ?? 'info', format: flags?.format ?? 'auto', stream })
}

/** Where the command's own lines go. */
export interface LineStream {
  write(text: string): unknown
}

/** Whether the command's log on `stream` is JSON lines (`json`, or `auto` off a terminal). */
export function logIsJson(flags: LogFlags | undefined, stream: LogStream): boolean {
  return resolveFormat(flags?.format ?? 'auto', stream) === 'json'
}

/**
 * A stream for a command's notices (`beaconkit: metrics at …`), printed whatever the level: as
 * they are in the pretty format, each line a JSON record at `level` in the JSON format (without
 * the `beaconkit: ` of a plain line; the record says whose it is).
 */
export function noticeStream(
  flags: LogFlags | undefined,
  stream: LogStream,
  level: LogLevel = 'info',
  fields: LogFields = {},
): LineStream {
  if (!logIsJson(flags, stream)) return stream
  return {
    write(text: string) {
      for (const line of text.split('\n')) {
        if (line.trim() !== '') stream.write(jsonLogLine(level, line.replace(/^beaconkit(?: [a-z-]+)?: /, ''), fields))
      }
      return true
    },
  }
}

/**
 * A stream for the command's final answer (an error line, `stopped; N messages not
 * acknowledged`): the plain line, as scripts read it, unless JSON was asked for by name
 * (`--log-format json`, `logging.format: json`, `BEACONKIT_LOGGING_FORMAT=json`); then an
 * `error` record, its `code` a field when the line ends in one (`[invalid_config]`).
 */
export function answerStream(flags: LogFlags | undefined, stream: LogStream): LineStream {
  if (flags?.format !== 'json') return stream
  return {
    // One record per answer, even of several lines (every problem of a config file): one error, one object.
    write(text: string) {
      const answer = text.trimEnd()
      if (answer === '') return true
      const code = /\[([a-z_]+)\]$/.exec(answer)?.[1]
      const msg = answer.replace(/^beaconkit(?: [a-z-]+)?: /, '')
      return stream.write(jsonLogLine('error', msg, code === undefined ? {} : { code }))
    },
  }
}
