// An adapter lost mid-run is one warn, its return one info (issue 26); the states before the
// adapter was first up are the start, not a loss.
import { describe, expect, it } from 'vitest'
import { adapterCondition } from '../../src/cli/adapter-condition.js'
import { ConditionLog } from '../../src/log/condition-log.js'
import { forwardingLogger } from '../../src/log/logger.js'
import type { LogRecord } from '../../src/log/logger.js'

describe('adapterCondition', () => {
  it('logs a running adapter that goes away once, and once when it is back', () => {
    const records: LogRecord[] = []
    const changed = adapterCondition(new ConditionLog(forwardingLogger((r) => records.push(r))), 'hci0')
    changed('unknown')
    changed('poweredOff')
    changed('poweredOn')
    expect(records).toEqual([])
    changed('poweredOff')
    changed('unknown')
    changed('poweredOn')
    expect(records[0].fields.state).toBe('poweredOff')
    expect(records.map((r) => [r.level, r.msg, r.fields.condition])).toEqual([
      ['warn', 'Bluetooth adapter hci0 went away: scanning paused until it is back (the command ends with exit 3 if it does not come back)', 'adapter.lost'],
      ['info', 'Bluetooth adapter hci0 is back: scanning again', 'adapter.lost'],
    ])
  })
})
