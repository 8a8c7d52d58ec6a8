/**
 * A broker connection's conditions, logged once each way (log/condition-log.ts): unreachable
 * (one warn over all the retries, then one info "mqtt: connected again") and session taken over
 * by another client with the same client id (one warn per episode, then one info once a
 * connection has held for the takeover window: the other client is gone).
 */

import { ConditionLog } from '../log/condition-log.js'
import type { Logger } from '../log/logger.js'
import { TAKEOVER_WINDOW_MS } from '../mqtt/takeover.js'

/** Condition key: the broker cannot be reached. */
export const UNREACHABLE = 'mqtt.unreachable'
/** Condition key: another client with this client id keeps taking the session over. */
export const TAKEN_OVER = 'mqtt.session_taken_over'

/** What {@link connectionConditions} is told: a connection's errors, its (re)connects and drops. */
export interface ConnectionConditions {
  error(error: Error): void
  connected(): void
  disconnected(): void
  /** Stops the timer that waits for a taken-over session to hold. */
  close(): void
}

/**
 * Follows one broker connection and logs its conditions through `conditions` (or a ConditionLog of its own
 * on `log`).
 */
export function connectionConditions(
  log: Logger,
  conditions: ConditionLog = new ConditionLog(log),
): ConnectionConditions {
  let holding: NodeJS.Timeout | undefined
  const stopHolding = (): void => {
    if (holding !== undefined) clearTimeout(holding)
    holding = undefined
  }
  return {
    error(error) {
      const code = (error as { code?: unknown }).code
      const fields = typeof code === 'string' ? { code } : {}
      if (code === 'session_taken_over') {
        stopHolding()
        conditions.start(TAKEN_OVER, error.message, fields)
      } else conditions.start(UNREACHABLE, error.message, fields)
    },
    connected() {
      conditions.clear(UNREACHABLE, 'mqtt: connected again')
      // The connects of a takeover episode are the problem going on: it is over only once a
      // connection lasts as long as the takeover watch's window (mqtt/takeover.ts).
      if (conditions.isActive(TAKEN_OVER) && holding === undefined) {
        holding = setTimeout(() => {
          holding = undefined
          conditions.clear(
            TAKEN_OVER,
            `mqtt: the session has held for ${TAKEOVER_WINDOW_MS / 1000} s: no other client takes it over any more`,
          )
        }, TAKEOVER_WINDOW_MS).unref()
      }
    },
    disconnected: stopHolding,
    close: stopHolding,
  }
}
