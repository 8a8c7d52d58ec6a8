// A broker connection's conditions, logged once each way (issue 26): unreachable over all its
// retries, then "connected again"; a session taken over once per episode, with no "connected
// again" for the reconnects of the episode (they are the problem going on).
import { describe, expect, it } from 'vitest'
import { connectionConditions, TAKEN_OVER, UNREACHABLE } from '../../src/gateway/connection-conditions.js'
import { forwardingLogger } from '../../src/log/logger.js'
import type { LogRecord } from '../../src/log/logger.js'
import { MqttError } from '../../src/errors.js'
import { takeoverError } from '../../src/mqtt/takeover.js'

function watch(): { records: LogRecord[]; conditions: ReturnType<typeof connectionConditions> } {
  const records: LogRecord[] = []
  return { records, conditions: connectionConditions(forwardingLogger((r) => records.push(r))) }
}

describe('connectionConditions', () => {
  it('a broker down over many retries is one warn, its return one info', () => {
    const { records, conditions } = watch()
    for (let i = 0; i < 6; i++) conditions.error(new MqttError('connection', 'MQTT broker: connect ECONNREFUSED 127.0.0.1:1; retrying'))
    conditions.connected()
    conditions.connected()
    expect(records.map((r) => [r.level, r.msg, r.fields.condition, r.fields.state])).toEqual([
      ['warn', 'MQTT broker: connect ECONNREFUSED 127.0.0.1:1; retrying', UNREACHABLE, 'on'],
      ['info', 'mqtt: connected again', UNREACHABLE, 'off'],
    ])
    expect(records[0].fields.code).toBe('connection')
    conditions.close()
  })

  it('a session taken over is one warn; the reconnects of the episode say nothing', () => {
    const { records, conditions } = watch()
    conditions.connected()
    conditions.error(takeoverError('fleet-twin', false))
    for (let i = 0; i < 3; i++) {
      conditions.disconnected()
      conditions.connected()
    }
    conditions.error(takeoverError('fleet-twin', false))
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ level: 'warn', fields: { condition: TAKEN_OVER, state: 'on', code: 'session_taken_over' } })
    expect(records[0].msg).toContain('client id (fleet-twin)')
    // The timer that waits for the session to hold is stopped with the connection.
    conditions.close()
  })
})
