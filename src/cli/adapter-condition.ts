/**
 * The adapter lost, as a condition (log/condition-log.ts): once when a running adapter stops
 * being powered on (unplugged, powered off, bluetoothd restarting), once when it is back. A
 * source reports each state change once, and only a change after the adapter was up is news.
 */

import type { ConditionLog } from '../log/condition-log.js'
import type { AdapterState } from '../sources/source.js'

/** Condition key of a lost adapter. */
export const ADAPTER_LOST = 'adapter.lost'

/** Returns the listener for a source's `state` events that logs the condition through `conditions`. */
export function adapterCondition(conditions: ConditionLog, label: string): (state: AdapterState) => void {
  let wasUp = false
  return (state) => {
    if (state === 'poweredOn') {
      wasUp = true
      conditions.clear(ADAPTER_LOST, `Bluetooth adapter ${label} is back: scanning again`, { state })
    } else if (wasUp) {
      // The state is a field, not in the message: poweredOff then unknown is one loss, one line.
      conditions.start(
        ADAPTER_LOST,
        `Bluetooth adapter ${label} went away: scanning paused until it is back (the command ends ` +
          `with exit 3 if it does not come back)`,
        { state },
      )
    }
  }
}
