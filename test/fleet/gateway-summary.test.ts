// The gateways the fleet counts (#35): with a site, the site's gateways, whatever retained
// statuses of earlier runs or made-up ids say; others are listed apart; a stale status is not
// `online`. Without a site, every gateway the tracker holds.
import { describe, expect, it } from 'vitest'
import { FleetState } from '../../src/fleet/fleet-state.js'
import { summarizeGateways } from '../../src/fleet/gateway-summary.js'
import { Site } from '../../src/positioning/site.js'

const NOW = 50_000_000
const HOUR = 3_600_000

function fleet(): FleetState {
  return new FleetState({ gatewayForgetMs: 600_000 }, { found: () => undefined, gone: () => undefined, room: () => undefined, moved: () => undefined })
}

const batch = (gateway: string, time: number): unknown => ({ gateway, time, readings: [{ id: `tag-${gateway}`, rssi: -60, lastSeen: time, count: 1 }] })

describe('summarizeGateways', () => {
  const site = Site.fromJSON({ gateways: { a: {}, b: {}, c: {}, d: {}, e: {}, f: {}, g: {} }, rooms: { Hall: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] } })

  it('with a site: counts the site\'s seven gateways, lists the others apart, and leftovers of an earlier run are not online', () => {
    const state = fleet()
    // Retained statuses of an earlier run (an hour old), one gateway not in the site that is up, one left offline.
    state.gatewayStatus('old-1', 'online', NOW, NOW - HOUR)
    state.gatewayStatus('old-2', 'online', NOW, NOW - HOUR)
    state.gatewayStatus('stray', 'online', NOW, NOW - 500)
    state.gatewayStatus('old-3', 'offline', NOW, NOW - 500)
    for (const id of ['a', 'b', 'c', 'd', 'e']) state.gatewayStatus(id, 'online', NOW, NOW - 500)
    // f's retained status is as old as its run; its batches say it is up. g is not heard yet.
    state.gatewayStatus('f', 'online', NOW, NOW - HOUR)
    state.ingest(batch('f', NOW), NOW)
    const s = summarizeGateways(state, site, NOW)
    expect(s.fromSite).toBe(true)
    expect(s.counted.map((g) => g.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g'])
    expect(s.counted.find((g) => g.id === 'g')?.state).toBe('unknown')
    expect(s.online).toBe(6)
    expect(s.others).toEqual([{ id: 'old-3', state: 'offline' }, { id: 'stray', state: 'online' }])
    // Ten minutes of silence later nothing is online any more (f's batch stopped too).
    expect(summarizeGateways(state, site, NOW + 600_000).online).toBe(0)
  })

  it('without a site: counts every gateway the tracker holds, never a stale leftover', () => {
    const state = fleet()
    state.gatewayStatus('old', 'online', NOW, NOW - HOUR)
    state.gatewayStatus('up', 'online', NOW, NOW)
    state.gatewayStatus('down', 'offline', NOW, NOW)
    const s = summarizeGateways(state, undefined, NOW)
    expect(s).toEqual({ counted: [{ id: 'down', state: 'offline' }, { id: 'up', state: 'online' }], others: [], online: 1, fromSite: false })
  })
})
