/**
 * Errors nobody listens to. eventemitter3 (unlike Node's EventEmitter) silently drops an
 * `'error'` with no listener. Throwing instead, Node's way, would be wrong for the SDK's
 * background components: the throw would land in a timer or a socket callback far from any
 * user code and crash the gateway over a transient 503. So an unheard error becomes a
 * `process.emitWarning` — printed on stderr by default, observable with
 * `process.on('warning')` — once per emitter and error code, so a retry loop cannot flood the log.
 */

/** An emitter that can tell whether anyone listens (eventemitter3's and Node's both fit). */
export interface ListenerCounter {
  listenerCount(event: 'error'): number
}

/** The `code` warnings carry (`process.on('warning', (w) => w.code)`). */
export const UNHEARD_ERROR_WARNING = 'BEACONKIT_UNHEARD_ERROR'

// Per emitter: the error codes already warned about. Weak, so emitters can be collected.
const warned = new WeakMap<object, Set<string>>()

/**
 * Makes an error that was emitted with no `'error'` listener visible: one process warning per
 * emitter and error code (`error.code`, else the error's name). `source` names the emitter in
 * the warning ("Uploader", "BeaconScanner").
 */
export function warnUnheard(emitter: object, source: string, error: Error): void {
  const own = (error as Error & { code?: unknown }).code
  const code = typeof own === 'string' ? own : error.name
  warnOnce(
    emitter,
    `error:${code}`,
    `${source} error with no 'error' listener (${code}): ${error.message}. ` +
      `Add .on('error', ...) to the ${source} to handle it; ` +
      `further '${code}' errors of this ${source} are not repeated here.`,
    UNHEARD_ERROR_WARNING,
  )
}

/** The `code` of warnings for a `warning` event nobody listened to. */
export const UNHEARD_WARNING = 'BEACONKIT_UNHEARD_WARNING'

/**
 * A `process.emitWarning(message)` at most once per emitter and `key`: how an event nobody
 * listens to (an `error`, a `warning`) still reaches the operator without flooding the log.
 */
export function warnOnce(emitter: object, key: string, message: string, code = UNHEARD_WARNING): void {
  let keys = warned.get(emitter)
  if (keys === undefined) {
    keys = new Set()
    warned.set(emitter, keys)
  }
  if (keys.has(key)) return
  keys.add(key)
  process.emitWarning(message, { type: 'BeaconkitWarning', code })
}

/**
 * Emits `error` on `emitter`, or, when nobody listens, reports it with {@link warnUnheard}.
 * Returns whether a listener received it.
 */
export function emitError(
  emitter: ListenerCounter & { emit(event: 'error', error: Error): boolean },
  source: string,
  error: Error,
): boolean {
  if (emitter.listenerCount('error') > 0) return emitter.emit('error', error)
  warnUnheard(emitter, source, error)
  return false
}
