// What `beaconkit fleet` warns about gateways (#35): with a site, only the site's gateways going
// offline are conditions; a retained offline status of a gateway the site does not list (an
// earlier run's) is not a warning. Without a site every gateway's offline is one.
import { describe, expect, it } from 'vitest'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { VirtualClock } from '../../src/clock.js'
import { forwardingLogger } from '../../src/log/logger.js'
import type { LogRecord } from '../../src/log/logger.js'
import { Site } from '../../src/positioning/site.js'
import { logFleetConditions } from '../../src/cli/commands/fleet-conditions.js'

const SITE = Site.fromJSON({ gateways: { 'kitchen-pi': {}, 'hall-pi': {} }, rooms: { Kitchen: ['kitchen-pi'], Hall: ['hall-pi'] } })

function run(site: Site | undefined): LogRecord[] {
  const records: LogRecord[] = []
  const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(0), ...(site === undefined ? {} : { site }) })
  const stop = logFleetConditions(tracker, forwardingLogger((r) => records.push(r)), 'site.json', site)
  tracker.emit('gateway', { gateway: 'old-pi', state: 'offline', time: 0 })
  tracker.emit('gateway', { gateway: 'kitchen-pi', state: 'offline', time: 1 })
  tracker.emit('gateway', { gateway: 'kitchen-pi', state: 'online', time: 2 })
  stop()
  return records
}

describe('fleet gateway conditions', () => {
  it('with a site: warns only of the site\'s gateways going offline', () => {
    const records = run(SITE)
    expect(records.map((r) => [r.level, r.fields.condition])).toEqual([
      ['warn', 'gateway.offline:kitchen-pi'],
      ['info', 'gateway.offline:kitchen-pi'],
    ])
  })

  it('without a site: every gateway that goes offline is a warning', () => {
    expect(run(undefined).filter((r) => r.level === 'warn').map((r) => r.fields.condition)).toEqual(['gateway.offline:old-pi', 'gateway.offline:kitchen-pi'])
  })
})
