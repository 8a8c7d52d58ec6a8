// Log lines while the live table owns the terminal (issue 26): warnings and cleared conditions
// are held for the status line and logged after the table; plain info and debug lines are not.
import { describe, expect, it } from 'vitest'
import { HeldLog } from '../../../src/cli/ui/held-log.js'
import { forwardingLogger } from '../../../src/log/logger.js'
import type { LogRecord } from '../../../src/log/logger.js'

function setup(threshold: 'info' | 'error' = 'info'): { held: HeldLog; written: LogRecord[] } {
  const written: LogRecord[] = []
  return { held: new HeldLog(forwardingLogger((r) => written.push(r)), threshold), written }
}

describe('HeldLog', () => {
  it('holds warnings and cleared conditions, shows the latest in the status line, and logs them after the table', () => {
    const { held, written } = setup()
    expect(held.note()).toBeUndefined()
    held.logger.warn('MQTT broker: connect ECONNREFUSED', { condition: 'mqtt.unreachable', state: 'on' })
    expect(held.note()).toBe('⚠ MQTT broker: connect ECONNREFUSED')
    held.logger.info('mqtt: mqtt://b not reachable yet; retrying')
    held.logger.debug('detail')
    held.logger.info('mqtt: connected again', { condition: 'mqtt.unreachable', state: 'off' })
    expect(held.note()).toBe('mqtt: connected again')
    // Nothing reaches the real logger while the table is up.
    expect(written).toEqual([])
    held.flush()
    expect(written.map((r) => [r.level, r.msg])).toEqual([
      ['warn', 'MQTT broker: connect ECONNREFUSED'],
      ['info', 'mqtt: connected again'],
    ])
  })

  it('keeps the last ten and says how many earlier ones it left out; honours the level', () => {
    const { held, written } = setup()
    for (let i = 1; i <= 13; i++) held.logger.warn(`warning ${i}`)
    held.flush()
    expect(written.map((r) => r.msg)).toEqual(['3 earlier log lines of the run not shown', ...Array.from({ length: 10 }, (_, i) => `warning ${i + 4}`)])
    const quiet = setup('error')
    quiet.held.logger.warn('not at error')
    expect(quiet.held.note()).toBeUndefined()
  })
})
