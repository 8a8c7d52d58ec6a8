/**
 * The pino-backed {@link Logger}: JSON lines (level, time, msg and fields) for journald and
 * Docker, or a human line with time and level on a terminal. pino is loaded only here, when a
 * command runs (importing the package loads neither pino nor pino-pretty), and pino-pretty only
 * for the pretty format.
 */

import type { LogFields, LogFormat, Logger, LogThreshold } from './logger.js'

/** Where log lines go: standard error unless a test says otherwise. */
export interface LogStream {
  write(text: string): unknown
  isTTY?: boolean
}

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** The lowest level written; default `info`. */
  level?: LogThreshold
  /** Default `auto`: pretty when `stream` is a terminal, JSON lines otherwise. */
  format?: LogFormat
  /** Default `process.stderr` (standard output carries the data: JSON lines or the table). */
  stream?: LogStream
}

/**
 * Field names that hold secrets in beaconkit's own objects (MQTT and account passwords, the map
 * token, broadcast keys, an HTTP authorization header), at the top and one level down. Fixed
 * here, never from user input (pino's redaction docs warn against that).
 */
export const REDACTED_FIELDS = ['password', 'token', 'key', 'keys', 'authorization', 'secret'] as const

const REDACT_PATHS = REDACTED_FIELDS.flatMap((name) => [name, `*.${name}`, `headers["${name}"]`])

/** What a secret is written as. */
export const CENSOR = '[redacted]'

/** The format `auto` stands for on `stream`. */
export function resolveFormat(format: LogFormat, stream: LogStream): 'json' | 'pretty' {
  if (format !== 'auto') return format
  return stream.isTTY === true ? 'pretty' : 'json'
}

/** Adapts a pino logger to ours; pino takes fields first, message second. */
interface PinoLike {
  trace(obj: object, msg: string): void
  debug(obj: object, msg: string): void
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
  fatal(obj: object, msg: string): void
  child(bindings: Record<string, unknown>): PinoLike
}

function wrap(p: PinoLike): Logger {
  const fieldsOf = (fields: LogFields | undefined): object => fields ?? {}
  return {
    trace: (msg, fields) => p.trace(fieldsOf(fields), msg),
    debug: (msg, fields) => p.debug(fieldsOf(fields), msg),
    info: (msg, fields) => p.info(fieldsOf(fields), msg),
    warn: (msg, fields) => p.warn(fieldsOf(fields), msg),
    error: (msg, fields) => p.error(fieldsOf(fields), msg),
    fatal: (msg, fields) => p.fatal(fieldsOf(fields), msg),
    child: (bindings) => wrap(p.child({ ...bindings })),
  }
}

/**
 * A logger writing to `stream` (standard error by default). Writes are synchronous, so a line
 * logged just before the process exits is not lost, and lines keep their order with the
 * command's other stderr output.
 */
export async function createLogger(options: CreateLoggerOptions = {}): Promise<Logger> {
  const stream = options.stream ?? process.stderr
  const format = resolveFormat(options.format ?? 'auto', stream)
  const { pino } = await import('pino')
  const common = {
    level: options.level ?? 'info',
    // pid and hostname are what journald and Docker record themselves; a line without them is shorter.
    base: null,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
  }
  if (format === 'json') {
    // The level by name (`"level":"warn"`): what a person greps for and jq selects on.
    return wrap(
      pino(
        { ...common, formatters: { level: (label: string) => ({ level: label }) } },
        { write: (line: string) => void stream.write(line) },
      ),
    )
  }
  const { prettyFactory } = (await import('pino-pretty')).default
  const pretty = prettyFactory({
    colorize: stream.isTTY === true,
    translateTime: 'SYS:standard',
    ignore: 'pid,hostname,condition,state,component',
  })
  // prettyFactory formats one JSON line at a time on this thread: no transport worker, no pipe
  // that could lose the last lines at exit.
  return wrap(pino(common, { write: (line: string) => void stream.write(pretty(line)) }))
}
