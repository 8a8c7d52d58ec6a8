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
  it('a gateway the site did not declare clears once an edited site places it (fleet --edit)', () => {
    const records: LogRecord[] = []
    const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(0), site: SITE })
    const stop = logFleetConditions(tracker, forwardingLogger((r) => records.push(r)), undefined, SITE, true)
    tracker.emit('unknownGateway', { gateway: 'attic-pi', time: 1 })
    tracker.emit('unknownGateway', { gateway: 'shed-pi', time: 1 })
    const edited = Site.fromJSON({ gateways: { 'kitchen-pi': {}, 'hall-pi': {}, 'attic-pi': { x: 1, y: 1 } }, rooms: { Kitchen: ['kitchen-pi'], Hall: ['hall-pi'] } })
    tracker.emit('site', { site: edited, time: 2 })
    // The gateways watched for going offline are the edited site's.
    tracker.emit('gateway', { gateway: 'attic-pi', state: 'offline', time: 3 })
    stop()
    expect(records.map((r) => [r.level, r.fields.condition])).toEqual([
      ['warn', 'site.unknown_gateway:attic-pi'],
      ['warn', 'site.unknown_gateway:shed-pi'],
      ['info', 'site.unknown_gateway:attic-pi'],
      ['warn', 'gateway.offline:attic-pi'],
    ])
    // No file was named: the message says "the site", and points at the editor rather than a file.
    expect(records[0].msg).toBe('gateway attic-pi publishes RSSI batches but is not in the site: its readings give no room; place it on the map (Edit, then Gateways)')
    expect(records[2].msg).toBe('gateway attic-pi is in the site now')
  })

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
