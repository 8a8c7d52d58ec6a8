/**
 * Conditions a user must act on (a broker unreachable, a session taken over, a queue near its
 * bound, a gateway offline) logged once when they start and once when they clear, whatever the
 * number of retries in between: a broker that is down fails every reconnect with the same words,
 * and a log with one line per retry hides the line that says it came back.
 */

import type { LogFields, Logger } from './logger.js'

/** Keeps which conditions are on and logs their changes: a `warn` on, an `info` off. */
export class ConditionLog {
  private readonly active = new Map<string, string>()

  constructor(private readonly log: Logger) {}

  /**
   * Condition `key` is on, described by `msg`. Logged (warn) when it was off; when it was already
   * on, logged again only if `msg` says something new (another error on the same broker), never
   * once per repeat. Returns whether a line was written.
   */
  start(key: string, msg: string, fields?: LogFields): boolean {
    if (this.active.get(key) === msg) return false
    this.active.set(key, msg)
    this.log.warn(msg, { condition: key, state: 'on', ...fields })
    return true
  }

  /** Condition `key` is off: logged (info) only when it was on. Returns whether a line was written. */
  clear(key: string, msg: string, fields?: LogFields): boolean {
    if (!this.active.delete(key)) return false
    this.log.info(msg, { condition: key, state: 'off', ...fields })
    return true
  }

  /** Whether condition `key` is on. */
  isActive(key: string): boolean {
    return this.active.has(key)
  }

  /** The conditions on now, e.g. for a health check or the status line. */
  activeKeys(): string[] {
    return [...this.active.keys()]
  }
}
