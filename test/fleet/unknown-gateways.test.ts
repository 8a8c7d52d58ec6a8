// The fleet's note of gateways the site does not declare: once per id, bounded.
import { describe, expect, it } from 'vitest'
import { Site } from '../../src/positioning/site.js'
import { UnknownGateways } from '../../src/fleet/unknown-gateways.js'

describe('UnknownGateways', () => {
  const site = Site.fromJSON({ gateways: { 'kitchen-pi': {}, 'hall-pi': {} } })

  it('tells the first batch of each undeclared gateway, never a declared one', () => {
    const u = new UnknownGateways(site)
    expect(u.firstSight('kitchen-pi')).toBe(false)
    expect(u.firstSight('stranger')).toBe(true)
    expect(u.firstSight('stranger')).toBe(false)
    expect(u.firstSight('other')).toBe(true)
  })

  it('remembers a bounded number of ids; past it they are only counted', () => {
    const u = new UnknownGateways(site, 3)
    const told = Array.from({ length: 10 }, (_, i) => u.firstSight(`gw-${i}`)).filter(Boolean)
    expect(told).toHaveLength(3)
    expect(u.unreported).toBe(7)
  })

  it('says nothing without a site, or with a site of fixed beacons', () => {
    expect(new UnknownGateways(undefined).firstSight('x')).toBe(false)
    expect(new UnknownGateways(Site.fromJSON({ anchorBeacons: { b1: {} } })).firstSight('x')).toBe(false)
  })
})
