/**
 * "A queue near its bound" as a condition (logged once when it starts, once when it clears),
 * shared by the MQTT event queue and the upload queue: both fill while their far end (a broker,
 * the account interface) is away or slower than the beacons, and drop their oldest beyond it.
 */

import type { ConditionLog } from '../log/condition-log.js'

/** The queue is "near its bound" from this fill on, and no longer once it is back under {@link QUEUE_CLEAR}. */
export const QUEUE_NEAR = 0.8
/** See {@link QUEUE_NEAR}: the gap keeps a queue hovering at the mark from logging at every check. */
export const QUEUE_CLEAR = 0.5

/** How often a queue's fill is looked at: its stats are cheap, and a queue fills in seconds, not milliseconds. */
const QUEUE_CHECK_MS = 1000

/**
 * Looks at `fill()` (0 empty … 1 at the bound) every second and reports the condition `key`;
 * `what` names the queue in the lines (`mqtt: the event queue`). Returns the function that stops watching.
 */
export function watchQueueFill(
  conditions: ConditionLog,
  key: string,
  what: string,
  fill: () => number,
  fields: () => Record<string, unknown> = () => ({}),
): () => void {
  const timer = setInterval(() => {
    const f = fill()
    if (f >= QUEUE_NEAR)
      conditions.start(key, `${what} is ${Math.round(f * 100)}% full; the oldest go beyond its bound`, fields())
    else if (f <= QUEUE_CLEAR) conditions.clear(key, `${what} is back to ${Math.round(f * 100)}% full`, fields())
  }, QUEUE_CHECK_MS)
  timer.unref()
  return () => clearInterval(timer)
}
