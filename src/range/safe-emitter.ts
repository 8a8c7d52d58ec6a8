/**
 * An eventemitter3 emitter whose listeners cannot hurt the emitter or each other: eventemitter3
 * stops at the first listener that throws, and the exception unwinds into whoever emitted
 * (for a scanner: the advertisement path). Here each listener runs in its own try/catch and a
 * failure is re-emitted as `error`. An `error` nobody listens to is not dropped (eventemitter3
 * would): it becomes a process warning (see unheard.ts).
 */
import { EventEmitter } from 'eventemitter3'
import { warnUnheard } from '../util/unheard.js'

type Listener = { fn: (...args: unknown[]) => void; context: unknown; once: boolean }

/** Events every safe emitter has: where failing listeners are reported. */
export interface ErrorEvents {
  error: [error: Error]
}

/** EventEmitter with isolated listeners; `listenerErrors` counts the ones that threw. */
export class SafeEmitter<Events extends ErrorEvents> extends EventEmitter<Events> {
  private errorsInListeners = 0

  /** Listeners that threw so far. */
  get listenerErrors(): number {
    return this.errorsInListeners
  }

  /**
   * Calls the listeners one by one, so that one that throws neither stops the others nor the
   * scanner: the error is emitted as `error` instead. eventemitter3 stops at the first throw,
   * hence this copy of its dispatch over its (stable, documented-by-source) listener store.
   */
  override emit<T extends EventEmitter.EventNames<Events>>(
    event: T,
    ...args: EventEmitter.EventArgs<Events, T>
  ): boolean {
    const store = (this as unknown as { _events: Record<string, Listener | Listener[] | undefined> })._events
    const key = (typeof EventEmitter.prefixed === 'string' ? EventEmitter.prefixed : '') + String(event)
    const found = store[key]
    if (found === undefined) {
      if (event === 'error') this.unheard(args[0])
      return false
    }
    const list = Array.isArray(found) ? found.slice() : [found]
    for (const l of list) {
      if (l.once) this.removeListener(event, l.fn as never, l.context, true)
      try {
        l.fn.apply(l.context, args)
      } catch (err) {
        this.errorsInListeners++
        const error = err instanceof Error ? err : new Error(`listener of '${String(event)}' threw ${String(err)}`)
        // An 'error' listener that throws has no listener left to report to: warn instead.
        if (event === 'error') this.unheard(error)
        else (this as unknown as { emit(event: 'error', error: Error): boolean }).emit('error', error)
      }
    }
    return true
  }

  private unheard(error: unknown): void {
    warnUnheard(this, this.constructor.name, error instanceof Error ? error : new Error(String(error)))
  }
}
