/**
 * The logger the rest of beaconkit talks to. It is our own small interface, not pino's types, so
 * that a module which reports a condition depends on nothing heavy and a test can hand it a plain
 * recording object; create-logger.ts backs it with pino.
 */

/** Log levels, quietest last: what pino calls them too. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number]

/** The lowest level a logger writes, or `silent` for none (`--log-level`). */
export type LogThreshold = LogLevel | 'silent'

/** `--log-format`: `auto` is `pretty` when standard error is a terminal, `json` otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const

/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number]

/** Structured fields of one log line (numbers, names, codes; secrets are redacted by name). */
export type LogFields = Readonly<Record<string, unknown>>

/** Writes one line at one level: the message, then fields to filter on. */
export type LogMethod = (msg: string, fields?: LogFields) => void

/** What beaconkit logs through. */
export interface Logger {
  trace: LogMethod
  debug: LogMethod
  info: LogMethod
  warn: LogMethod
  error: LogMethod
  fatal: LogMethod
  /** A logger whose every line carries `bindings` as well (e.g. `{ component: 'mqtt' }`). */
  child(bindings: LogFields): Logger
}

/** A logger that writes nothing: for library callers who pass none. */
export const silentLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  fatal: () => undefined,
  child: () => silentLogger,
}

/** A line a {@link forwardingLogger} hands on: level, message and every field (bindings first). */
export interface LogRecord {
  level: LogLevel
  msg: string
  fields: LogFields
}

/**
 * A logger that hands each line to `write`, with the child bindings merged in. The live table
 * uses one to hold lines for its status line instead of writing them over the screen.
 */
export function forwardingLogger(write: (record: LogRecord) => void, bindings: LogFields = {}): Logger {
  const at =
    (level: LogLevel): LogMethod =>
    (msg, fields) =>
      write({ level, msg, fields: { ...bindings, ...fields } })
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: (more) => forwardingLogger(write, { ...bindings, ...more }),
  }
}

/** Writes `record` to `logger` at its level. */
export function logRecord(logger: Logger, record: LogRecord): void {
  logger[record.level](record.msg, record.fields)
}

/**
 * A logger over a plain `warn(text)` callback, for callers of the library that gave one before
 * loggers existed: warnings, errors and the info lines of cleared conditions reach it as text;
 * debug and trace are dropped.
 */
export function textLogger(write: (text: string) => void): Logger {
  return forwardingLogger((record) => {
    if (record.level !== 'trace' && record.level !== 'debug') write(record.msg)
  })
}

/**
 * The logger a composition root was handed: `log` itself, else one over the plain `warn`
 * callback ({@link textLogger}), else one that writes nothing.
 */
export function loggerOf(hooks: { log?: Logger; warn?(text: string): void }): Logger {
  if (hooks.log !== undefined) return hooks.log
  const { warn } = hooks
  return warn === undefined ? silentLogger : textLogger((text) => warn.call(hooks, text))
}

/** Whether a logger at `threshold` writes a line at `level`. */
export function levelEnabled(level: LogLevel, threshold: LogThreshold): boolean {
  return threshold !== 'silent' && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold)
}
