// Bounded memory of the fused state: every map keyed by what arrives from the network (beacon
// ids, gateway ids) has a bound, and what is refused is counted, never thrown. Also the quiet
// handover of scale-out: a beacon seeded from another tracker's retained state is not `found`
// again, one released to another tracker is not `gone`.
import { describe, expect, it } from 'vitest'
import { FleetState } from '../../src/fleet/fleet-state.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { Site } from '../../src/positioning/site.js'
import { readGatewayMessage } from '../../src/fleet/gateway-messages.js'

function harness(options: ConstructorParameters<typeof FleetState>[0] = {}) {
  const log: string[] = []
  const forgotten: string[] = []
  const state = new FleetState(options, {
    found: (b: FleetBeacon) => log.push(`found ${b.id}`),
    gone: (b: FleetBeacon) => log.push(`gone ${b.id}`),
    room: (b: FleetBeacon, c) => log.push(`room ${b.id} ${c.from ?? '-'}>${c.to}`),
    moved: (b: FleetBeacon) => log.push(`moved ${b.id}`),
    gatewayForgotten: (g) => forgotten.push(g),
  })
  const batch = (gateway: string, time: number, ids: string[], rssi = -60): RssiBatch => ({
    gateway, time, readings: ids.map((id) => ({ id, rssi, lastSeen: time, count: 1 })),
  })
  return { state, log, batch, forgotten }
}

describe('bounded maps', () => {
  it('caps the beacons tracked and counts the readings of new beacons beyond the cap', () => {
    const { state, log, batch } = harness({ maxBeacons: 3 })
    state.ingest(batch('g', 0, ['a', 'b', 'c', 'd', 'e']), 0)
    expect(state.size).toBe(3)
    expect(state.stats.droppedBeacons).toBe(2)
    // Beacons already tracked keep being updated at the cap.
    state.ingest(batch('g', 1000, ['a', 'd'], -50), 1000)
    expect(state.get('a', 1000)?.gateways[0].rssi).toBe(-50)
    expect(state.get('d', 1000)).toBeUndefined()
    expect(state.stats.droppedBeacons).toBe(3)
    expect(log).toEqual(['found a', 'found b', 'found c'])
  })

  it('forgets a gateway silent for the forget time whatever its last status, and says so', () => {
    const { state, batch, forgotten } = harness({ hearingMs: 2000, goneTimeoutMs: 5000, gatewayForgetMs: 10_000 })
    for (let i = 0; i < 50; i++) state.ingest(batch(`passing-${i}`, 0, ['x']), 0)
    state.gatewayStatus('quiet', 'online', 0)
    state.gatewayStatus('passing-0', 'offline', 100)
    expect(state.stats.gateways).toBe(51)
    state.tick(9_000)
    expect(state.stats.gateways).toBe(51)
    state.tick(10_200)
    // Silent for the forget time: forgotten, offline, online or never announced alike (an
    // online status alone would let anyone fill the registry for good).
    expect(state.stats.gateways).toBe(0)
    expect(state.offsetOf('passing-1')).toBeUndefined()
    expect(forgotten).toHaveLength(51)
    expect(forgotten).toContain('quiet')
    // Heard again: known again (a status that changes nothing new is still news after forgetting).
    expect(state.gatewayStatus('quiet', 'online', 20_000)).toBe(true)
    expect(state.stats.gateways).toBe(1)
  })

  it('admits a site gateway when full by evicting the gateway silent longest that is not the site\'s', () => {
    const site = Site.fromJSON({ gateways: { k: {}, h: {} }, rooms: { Kitchen: ['k'], Hall: ['h'] } })
    const { state, log, batch, forgotten } = harness({ site, maxGateways: 3 })
    state.ingest(batch('fake-1', 0, ['f']), 0)
    state.gatewayStatus('fake-2', 'online', 10)
    state.gatewayStatus('fake-3', 'online', 20)
    state.ingest(batch('fake-1', 30, ['f']), 30)
    // Full: another fake is refused, the site's own gateways are admitted.
    expect(state.gatewayStatus('fake-4', 'online', 40)).toBe(false)
    state.ingest(batch('k', 50, ['t']), 50)
    expect(forgotten).toEqual(['fake-2'])
    state.ingest(batch('h', 60, ['t']), 60)
    expect(forgotten).toEqual(['fake-2', 'fake-3'])
    expect(state.stats).toMatchObject({ gateways: 3, droppedGateways: 1 })
    expect(state.get('t', 60)?.gateways.map((g) => g.gateway).sort()).toEqual(['h', 'k'])
    // Full again: a gateway that is not the site's is still refused.
    state.ingest(batch('fake-5', 70, ['f']), 70)
    expect(state.stats.droppedGateways).toBe(2)
    expect(log).toContain('found t')
  })

  it('without a site, a gateway that sends RSSI batches outranks gateways known only by a status (#35)', () => {
    const { state, log, batch, forgotten } = harness()
    // 12,000 forged `online` statuses fill the registry (10,000 by default) and are refused beyond.
    for (let i = 0; i < 12_000; i++) state.gatewayStatus(`fake-${i}`, 'online', i)
    expect(state.stats).toMatchObject({ gateways: 10_000, droppedGateways: 2000 })
    // A real gateway's batch is taken at once: the oldest status-only gateway makes room.
    state.ingest(batch('real', 12_000, ['t']), 12_000)
    expect(forgotten).toEqual(['fake-0'])
    expect(state.get('t', 12_000)?.gateways.map((g) => g.gateway)).toEqual(['real'])
    expect(log).toEqual(['found t'])
    // Another status-only gateway is still refused; a second real one evicts the next oldest.
    expect(state.gatewayStatus('fake-x', 'online', 12_001)).toBe(false)
    state.ingest(batch('real-2', 12_002, ['u']), 12_002)
    expect(forgotten).toEqual(['fake-0', 'fake-1'])
    expect(state.stats).toMatchObject({ gateways: 10_000, droppedGateways: 2001 })
  })

  it('a status older than gatewayForgetMs (a retained leftover of an earlier run) says nothing about now (#35)', () => {
    const { state, batch } = harness({ gatewayForgetMs: 600_000 })
    const now = 10_000_000
    // Retained statuses of a run an hour ago: not online, not offline, not even known.
    expect(state.gatewayStatus('old-1', 'online', now, now - 3_600_000)).toBe(false)
    expect(state.gatewayStatus('old-2', 'offline', now, now - 3_600_000)).toBe(false)
    expect(state.gatewayState('old-1', now)).toBe('unknown')
    expect(state.gatewayState('old-2', now)).toBe('unknown')
    expect(state.stats).toMatchObject({ gateways: 0, staleStatuses: 2 })
    // A fresh one counts; one stamped in the future counts as sent on arrival.
    expect(state.gatewayStatus('gw', 'online', now, now - 1000)).toBe(true)
    expect(state.gatewayStatus('ahead', 'online', now, now + 3_600_000)).toBe(true)
    expect(state.gatewayState('gw', now)).toBe('online')
    // A gateway started long before the fleet: its retained status is stale, its batches say it is up.
    expect(state.gatewayStatus('idle', 'online', now, now - 3_600_000)).toBe(false)
    state.ingest(batch('idle', now, ['t']), now)
    expect(state.gatewayState('idle', now)).toBe('online')
    // Online, then silent past the forget time: no longer online.
    expect(state.gatewayState('gw', now + 600_000)).toBe('unknown')
  })

  it('a status or batch of a gateway id that is not one never reaches the registry (tracker: readGatewayMessage)', () => {
    const base = 'beaconkit/gateways/'
    const body = Buffer.from('{"state":"online"}')
    expect(readGatewayMessage(base, `${base}${'x'.repeat(10_000)}/status`, body, false)).toBe('invalid_id')
    expect(readGatewayMessage(base, `${base}bad id/status`, body, false)).toBe('invalid_id')
    expect(readGatewayMessage(base, `${base}ctrl${String.fromCharCode(1)}/status`, body, false)).toBe('invalid_id')
    expect(readGatewayMessage(base, `${base}g/rssi/x`, body, true)).toBe('invalid_id')
    expect(readGatewayMessage(base, `${base}g/rssi/3`, body, true)).toMatchObject({ gateway: 'g', kind: 'rssi' })
    expect(readGatewayMessage(base, `${base}g-1/status`, body, false)).toMatchObject({ gateway: 'g-1', kind: 'status' })
  })

  it('caps the gateways known and counts what new gateways beyond it send', () => {
    const { state, log, batch } = harness({ maxGateways: 2 })
    state.ingest(batch('g1', 0, ['a']), 0)
    state.ingest(batch('g2', 0, ['a']), 0)
    state.ingest(batch('g3', 0, ['b']), 0)
    expect(state.gatewayStatus('g4', 'online', 0)).toBe(false)
    expect(state.stats).toMatchObject({ gateways: 2, droppedGateways: 2, batches: 2 })
    expect(log).toEqual(['found a'])
  })

  it('skips beacon ids that cannot be a topic level and batches that name another gateway than their topic', () => {
    const { state, log, batch } = harness()
    state.ingest(batch('g', 0, ['a/b', 'x+', '#', `nul${String.fromCharCode(0)}`, 'ok', 'CTRL\u0001', 'c1\u0085', 'del\u007f', 'lone\ud800', 'y'.repeat(257)]), 0)
    state.ingest(batch('other', 0, ['spoofed']), 0, 'g')
    expect(log).toEqual(['found ok'])
    expect(state.stats).toMatchObject({ malformed: 10, observations: 1 })
  })
})

describe('quiet handover (scale-out)', () => {
  const site = Site.fromJSON({ gateways: { k: {}, h: {} }, rooms: { Kitchen: ['k'], Hall: ['h'] } })

  it('a seeded beacon keeps its room and is not found again; it goes like any other when unheard', () => {
    const { state, log, batch } = harness({ site, goneTimeoutMs: 5000, hearingMs: 3000 })
    expect(state.seed({ id: 't', room: 'Kitchen', gateways: [{ gateway: 'k', rssi: -60, lastSeen: 900 }], firstSeen: 0, lastSeen: 900 }, 1000)).toBe(true)
    // Heard again in the kitchen: no found, no room change.
    state.ingest(batch('k', 2000, ['t']), 2000)
    state.tick(2000)
    expect(state.get('t', 2000)).toMatchObject({ room: 'Kitchen', firstSeen: 0, lastSeen: 2000 })
    // A second seed of a tracked beacon changes nothing.
    expect(state.seed({ id: 't', gateways: [], firstSeen: 5, lastSeen: 5 }, 2000)).toBe(false)
    // A seed from a clock ahead of ours is pulled back to now.
    state.seed({ id: 'u', gateways: [{ gateway: 'h', rssi: -70, lastSeen: 99_999 }], firstSeen: 99_000, lastSeen: 99_999 }, 2000)
    expect(state.get('u', 2000)).toMatchObject({ firstSeen: 2000, lastSeen: 2000 })
    state.tick(7000)
    expect(log).toEqual(['gone t', 'gone u'])
  })

  it('a released beacon goes without a gone', () => {
    const { state, log, batch } = harness({ goneTimeoutMs: 5000 })
    state.ingest(batch('k', 0, ['a', 'b', 'c']), 0)
    expect(state.release((id) => id !== 'b')).toBe(2)
    state.tick(10_000)
    expect(log).toEqual(['found a', 'found b', 'found c', 'gone b'])
  })
})
