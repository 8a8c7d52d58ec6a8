// Issue 40: the map takes an edited site while pages are open. Over real HTTP on loopback with a
// token: `MapServer.setSite` sends `event: site` with the new plan to every open event stream, the
// snapshot serves it from then on, the gateways follow the plan in the next update (one moved,
// one dropped that was never heard goes), and a map that shows no fleet refuses a site.
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { VirtualClock } from '../../src/clock.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { Site } from '../../src/positioning/site.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { SimulatedSource } from '../../src/sources/simulated.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer } from '../../src/web/map-server.js'
import type { LiveSnapshot, LiveUpdate } from '../../src/web/live-view.js'
import type { ViewPlan } from '../../src/web/view.js'
import { waitFor } from '../integration/wait.js'
import { SITE, SITE_JSON } from './fleet-driver.js'

const TOKEN = 'map-site-token-0123456789abcdef'
const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

/** An open event stream: the events it sent so far, by name, in order. */
interface Stream {
  events: { event: string; data: unknown }[]
  close(): void
}

function openStream(url: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const events: Stream['events'] = []
    let text = ''
    const req = request(url, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${String(res.statusCode)}`))
      res.setEncoding('utf8').on('data', (d: string) => {
        text += d
        let end: number
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end).split('\n')
          text = text.slice(end + 2)
          const event = block.find((l) => l.startsWith('event: '))?.slice('event: '.length)
          const data = block.filter((l) => l.startsWith('data: ')).map((l) => l.slice('data: '.length))
          if (event !== undefined) events.push({ event, data: JSON.parse(data.join('\n')) as unknown })
        }
        resolve({ events, close: () => req.destroy() })
      })
    })
    req.on('error', () => undefined)
    req.end()
  })
}

describe('MapServer.setSite', () => {
  it('sends the new plan to every open page as event: site, serves it in the snapshot, and moves the gateways', async () => {
    const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', site: SITE, clock: new VirtualClock(0) })
    const map: MapServer = await startMapServer({ fleet: tracker, site: SITE, port: 0, token: TOKEN, flushIntervalMs: 100 })
    closers.push(() => map.close())
    const streams = [await openStream(`${map.url}api/events?token=${TOKEN}`), await openStream(`${map.url}api/events?token=${TOKEN}`)]
    for (const s of streams) closers.push(async () => s.close())
    await waitFor(() => streams.every((s) => s.events.some((e) => e.event === 'snapshot')), 'both snapshots', 20_000)

    // The edit: the Lab is now the Workshop, gw-kitchen moved, gw-office dropped (never heard).
    const edited = {
      ...SITE_JSON,
      gateways: { 'gw-kitchen': { x: 5, y: 1 }, 'gw-hall': SITE_JSON.gateways['gw-hall'], 'gw-lab': SITE_JSON.gateways['gw-lab'] },
      rooms: SITE_JSON.rooms.map((r) => (r.name === 'Lab' ? { ...r, name: 'Workshop' } : r)),
    }
    map.setSite(Site.fromJSON(edited))
    await waitFor(() => streams.every((s) => s.events.some((e) => e.event === 'site')), 'event: site on both pages', 20_000)
    for (const s of streams) {
      const plan = s.events.find((e) => e.event === 'site')?.data as ViewPlan
      expect(plan.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Hall', 'Workshop', 'Office'])
      expect(plan.area).toEqual(SITE_JSON.area)
    }
    const res = await fetch(`${map.url}api/snapshot`, { headers: { Authorization: `Bearer ${TOKEN}` } })
    const snapshot = (await res.json()) as LiveSnapshot
    expect(snapshot.plan?.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Hall', 'Workshop', 'Office'])
    expect(snapshot.gateways.map((g) => g.id).sort()).toEqual(['gw-hall', 'gw-kitchen', 'gw-lab'])
    expect(snapshot.gateways.find((g) => g.id === 'gw-kitchen')).toMatchObject({ x: 5, y: 1, site: true, state: 'unknown' })

    // The pages' markers follow in the next update: the moved one with its place, the dropped one gone.
    await waitFor(() => streams[0].events.some((e) => e.event === 'update'), 'an update after the site', 20_000)
    const update = streams[0].events.find((e) => e.event === 'update')?.data as LiveUpdate
    expect(update.gateways.find((g) => g.id === 'gw-kitchen')).toMatchObject({ x: 5, y: 1 })
    expect(update.gatewaysGone).toEqual(['gw-office'])
  })

  it('allows the images of a new site\'s floors from their origin in the page\'s policy', async () => {
    const tracker = new FleetTracker({ url: 'mqtt://127.0.0.1:1', site: SITE, clock: new VirtualClock(0) })
    const map = await startMapServer({ fleet: tracker, site: SITE, port: 0 })
    closers.push(() => map.close())
    const policy = async (): Promise<string> => (await fetch(map.url)).headers.get('content-security-policy') ?? ''
    expect(await policy()).not.toContain('plans.example.com')
    const floors = [{ id: 'ground', name: 'Ground', image: 'https://plans.example.com/ground.png' }]
    map.setSite(Site.fromJSON({ ...SITE_JSON, floors, gateways: { 'gw-hall': { x: 11, y: 2.5, floor: 'ground' } } }))
    expect(await policy()).toMatch(/img-src 'self' https:\/\/plans\.example\.com;/)
  })

  it('is refused by a map that shows no fleet', async () => {
    const scanner = new BeaconScanner({ source: new SimulatedSource({ devices: [], seed: 1 }) })
    await scanner.start()
    closers.push(() => scanner.stop())
    const map = await startMapServer({ scanner, port: 0 })
    closers.push(() => map.close())
    expect(() => map.setSite(SITE)).toThrow(expect.objectContaining({ code: 'invalid_option' }) as Error)
  })
})
