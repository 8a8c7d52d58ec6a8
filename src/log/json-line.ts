/**
 * A JSON log line written without the logger, in the logger's own shape (`level`, `time`, fields,
 * `msg`): for the lines a command prints whatever `--log-level` says (where its servers listen,
 * its final answer), so that in the JSON format every line on standard error is a JSON object.
 */

import type { LogFields, LogLevel } from './logger.js'

/** One JSON line (with its newline), as pino writes one with beaconkit's settings. */
export function jsonLogLine(level: LogLevel, msg: string, fields: LogFields = {}, now: number = Date.now()): string {
  return `${JSON.stringify({ level, time: now, ...fields, msg })}\n`
}
