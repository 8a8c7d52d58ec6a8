// The map server over real HTTP on this machine: security headers, the token off loopback, the
// Host check on loopback, coalesced updates, and no secret given to the process in any byte it
// serves (page, snapshot, event stream).
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { connect } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { SimulatedSource } from '../../src/sources/simulated.js'
import { SAMPLE_BROADCAST_KEY, siteScenario } from '../../src/sources/scenario.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { startBroker } from '../../src/mqtt/broker.js'
import { VirtualClock } from '../../src/clock.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import { LiveView } from '../../src/web/live-view.js'
import type { LiveUpdate } from '../../src/web/live-view.js'
import { pageAssets } from '../../src/web/assets.js'
import { planOf } from '../../src/web/view.js'
import { Site } from '../../src/positioning/site.js'
import { waitFor } from '../integration/wait.js'
import { SITE } from './fleet-driver.js'
import { readStream } from '../support/event-stream.js'

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

/** A GET with any headers (Host included, which fetch will not set). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** Sends `request` as raw bytes (a Host header fetch and http.request would not send) and returns the status line. */
function rawGet(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    let text = ''
    socket.setEncoding('utf8').on('data', (d: string) => (text += d))
    socket.on('end', () => resolve(text.split('\r\n')[0]))
    socket.on('error', reject)
  })
}

async function scannerWithKey(): Promise<BeaconScanner> {
  const scanner = new BeaconScanner({ source: new SimulatedSource({ devices: siteScenario(6, 1), seed: 1 }), keys: [SAMPLE_BROADCAST_KEY], updateIntervalMs: 200 })
  await scanner.start()
  closers.push(() => scanner.stop())
  return scanner
}

async function serve(options: Parameters<typeof startMapServer>[0]): Promise<MapServer> {
  const map = await startMapServer({ port: 0, flushIntervalMs: 200, ...options })
  closers.push(() => map.close())
  return map
}

/** A local IPv4 address that is not loopback, if this machine has one. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  return undefined
}

describe('map server over HTTP', () => {
  it('serves the page with a CSP that allows no inline script, nosniff, and no-store data', async () => {
    const map = await serve({ scanner: await scannerWithKey() })
    const page = await get(map.url)
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline')
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    const snap = await get(`${map.url}api/snapshot`)
    expect(snap.status).toBe(200)
    expect(snap.headers['cache-control']).toBe('no-store')
    expect(JSON.parse(snap.body).mode).toBe('scanner')
    expect((await get(`${map.url}../../package.json`)).status).toBe(404)
  })

  it('off loopback: data only with the token (header or query); the page shell without', async () => {
    // Bound to a real non-loopback address of this machine when it has one; else to 0.0.0.0
    // (all interfaces, also not loopback), reached through 127.0.0.1.
    const outside = outsideAddress()
    const map = await serve({ scanner: await scannerWithKey(), host: outside ?? '0.0.0.0' })
    expect(map.tokenRequired).toBe(true)
    const token = new URL(map.pageUrl).hash.replace('#token=', '')
    expect(token.length).toBeGreaterThanOrEqual(32)
    const base = `http://${outside ?? '127.0.0.1'}:${map.port}/`
    expect((await get(`${base}api/snapshot`)).status).toBe(401)
    expect((await get(`${base}api/events`)).status).toBe(401)
    expect((await get(`${base}api/snapshot?token=wrong-token-wrong-token-wrong-tok`)).status).toBe(401)
    expect((await get(`${base}api/snapshot`, { Authorization: `Bearer ${token}` })).status).toBe(200)
    expect((await get(`${base}api/snapshot?token=${token}`)).status).toBe(200)
    expect((await get(base)).status).toBe(200)
    // The server object never shows the token.
    expect(inspect(map)).not.toContain(token)
    expect(JSON.stringify(map)).not.toContain(token)
  })

  it('with a token given, loopback requires it too', async () => {
    const map = await serve({ scanner: await scannerWithKey(), token: 'a-given-token-0123456789' })
    expect((await get(`${map.url}api/snapshot`)).status).toBe(401)
    expect((await get(`${map.url}api/snapshot`, { Authorization: 'Bearer a-given-token-0123456789' })).status).toBe(200)
  })

  it('on loopback without a token, answers only requests for a loopback Host (DNS rebinding)', async () => {
    const map = await serve({ scanner: await scannerWithKey() })
    expect((await get(`${map.url}api/snapshot`, { Host: 'attacker.example:80' })).status).toBe(403)
    expect((await get(`${map.url}api/snapshot`, { Host: `localhost:${map.port}` })).status).toBe(200)
  })

  it('answers 400, not 500, to an empty or malformed Host header (and keeps serving)', async () => {
    const map = await serve({ scanner: await scannerWithKey() })
    for (const host of ['', ' ', '[::', 'a b', 'localhost/x', 'user@localhost']) {
      const head = await rawGet(map.port, `GET /api/snapshot HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      expect(head, JSON.stringify(host)).toMatch(/^HTTP\/1\.1 400 /)
    }
    expect((await get(`${map.url}api/snapshot`, { Host: `127.0.0.1:${map.port}` })).status).toBe(200)
  })

  it('refuses a weak token and a missing source with typed errors', async () => {
    await expect(startMapServer({ port: 0, token: 'short' })).rejects.toMatchObject({ code: 'invalid_option' })
    await expect(startMapServer({ port: 0 })).rejects.toMatchObject({ code: 'invalid_option', option: 'fleet' })
  })

  it('never serves a broadcast key or a broker password given to the process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-map-'))
    const password = 'broker-Pa55word-7c1e9f'
    writeFileSync(join(dir, 'pw'), `${password}\n`, { mode: 0o600 })
    const broker = await startBroker({ port: 0 })
    closers.push(() => broker.close())
    const tracker = new FleetTracker({ url: broker.url, site: SITE, username: 'fleet', passwordFile: join(dir, 'pw') })
    closers.push(() => tracker.stop())
    await tracker.start()
    const scanner = await scannerWithKey()
    const token = 'page-token-0123456789abcdef'
    const scannerMap = await serve({ scanner, token, host: '127.0.0.1' })
    const fleetMap = await serve({ fleet: tracker, site: SITE })
    // The key decrypts something, or this test would prove little.
    await waitFor(() => scanner.beacons().some((b) => b.secure?.verified === true), 'a verified beacon', 20_000)
    const served: string[] = []
    for (const path of pageAssets().keys()) served.push((await get(`${scannerMap.url}${path.slice(1)}`)).body)
    served.push((await get(`${scannerMap.url}api/snapshot?token=${token}`)).body)
    served.push(await readStream(`${scannerMap.url}api/events?token=${token}`, (t) => (t.match(/event: update/g) ?? []).length >= 3))
    served.push((await get(`${fleetMap.url}api/snapshot`)).body)
    const all = served.join('\n')
    expect(all).toContain('"verified":true')
    const keyHex = SAMPLE_BROADCAST_KEY.toLowerCase()
    for (const secret of [keyHex, keyHex.toUpperCase(), keyHex.slice(0, 28), Buffer.from(keyHex.slice(0, 28), 'hex').toString('base64'), password]) {
      expect(all).not.toContain(secret)
    }
    // The page's own token is not echoed back either.
    expect(all).not.toContain(token)
  })
})

describe('coalescing', () => {
  function beacon(rssi: number, room = 'Hall'): FleetBeacon {
    return { id: 'B1', time: 1000, present: true, room, gateways: [{ gateway: 'gw-hall', rssi, lastSeen: 900 }], firstSeen: 0, lastSeen: 900 }
  }

  it('a beacon that changes many times between flushes goes out once, with its latest state; unchanged, not at all', () => {
    const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(0) })
    const view = new LiveView({ fleet: tracker, site: SITE, flushIntervalMs: 60_000 })
    const updates: LiveUpdate[] = []
    view.on('update', (u) => updates.push(u))
    view.start()
    try {
      for (let i = 0; i < 10; i++) tracker.emit('updated', [beacon(-70 + i)])
      view.flush()
      expect(updates).toHaveLength(1)
      expect(updates[0].beacons.map((b) => [b.id, b.rssi])).toEqual([['B1', -61]])
      // The same state again (noise below a dB): nothing to send.
      tracker.emit('updated', [beacon(-61.2)])
      view.flush()
      expect(updates).toHaveLength(1)
      tracker.emit('updated', [beacon(-61, 'Lab')])
      view.flush()
      expect(updates).toHaveLength(2)
      expect(updates[1].beacons[0].room).toBe('Lab')
    } finally {
      view.stop()
    }
  })
})

describe('the plan sent to the page', () => {
  it('carries the site file\'s walls, bounded in number', () => {
    const walls = Array.from({ length: 2500 }, (_, i) => [[i, 0], [i, 1]])
    const plan = planOf(Site.fromJSON({ gateways: { a: { x: 0, y: 0 } }, walls: [{ from: [0, 0], to: [3, 0], attenuationDb: 12 }, ...walls] }), undefined)
    expect(plan.walls?.[0]).toEqual([[0, 0], [3, 0]])
    expect(plan.walls).toHaveLength(2000)
    expect(planOf(Site.fromJSON({ gateways: { a: {} } }), undefined).walls).toBeUndefined()
  })
})
