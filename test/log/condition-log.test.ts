import { describe, expect, it } from 'vitest'
import { ConditionLog } from '../../src/log/condition-log.js'
import { forwardingLogger } from '../../src/log/logger.js'
import type { LogRecord } from '../../src/log/logger.js'

function recorder(): { conditions: ConditionLog; records: LogRecord[] } {
  const records: LogRecord[] = []
  return { conditions: new ConditionLog(forwardingLogger((r) => records.push(r))), records }
}

describe('ConditionLog', () => {
  it('logs a condition once when it starts and once when it clears, however often it repeats', () => {
    const { conditions, records } = recorder()
    for (let i = 0; i < 5; i++) expect(conditions.start('mqtt.connection', 'mqtt: connect ECONNREFUSED')).toBe(i === 0)
    expect(conditions.isActive('mqtt.connection')).toBe(true)
    expect(conditions.clear('mqtt.connection', 'mqtt: connected again')).toBe(true)
    expect(conditions.clear('mqtt.connection', 'mqtt: connected again')).toBe(false)
    expect(records).toEqual([
      { level: 'warn', msg: 'mqtt: connect ECONNREFUSED', fields: { condition: 'mqtt.connection', state: 'on' } },
      { level: 'info', msg: 'mqtt: connected again', fields: { condition: 'mqtt.connection', state: 'off' } },
    ])
  })

  it('says nothing for a clear of a condition that never started', () => {
    const { conditions, records } = recorder()
    expect(conditions.clear('gateway.offline:hall', 'gateway hall online again')).toBe(false)
    expect(records).toEqual([])
  })

  it('logs again when an active condition has a new description, and keeps conditions apart', () => {
    const { conditions, records } = recorder()
    conditions.start('mqtt.connection', 'mqtt: connect ECONNREFUSED')
    conditions.start('mqtt.connection', 'mqtt: getaddrinfo ENOTFOUND broker')
    conditions.start('gateway.offline:hall', 'gateway hall offline', { gateway: 'hall' })
    expect(conditions.activeKeys()).toEqual(['mqtt.connection', 'gateway.offline:hall'])
    conditions.clear('gateway.offline:hall', 'gateway hall online again', { gateway: 'hall' })
    expect(records.map((r) => [r.level, r.msg])).toEqual([
      ['warn', 'mqtt: connect ECONNREFUSED'],
      ['warn', 'mqtt: getaddrinfo ENOTFOUND broker'],
      ['warn', 'gateway hall offline'],
      ['info', 'gateway hall online again'],
    ])
    expect(records[3].fields).toEqual({ condition: 'gateway.offline:hall', state: 'off', gateway: 'hall' })
    // After a clear the same condition is news again.
    expect(conditions.start('gateway.offline:hall', 'gateway hall offline')).toBe(true)
  })
})
