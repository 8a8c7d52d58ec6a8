// The map server's bounds against clients that misbehave, over real sockets on loopback: an
// event-stream client that never reads is dropped once its unsent bytes pass the bound or its
// socket has not drained for a while (while a reading one keeps its updates), one address's
// streams are capped with 429 and all streams with 503, and thousands of slowloris sockets do
// not stop the server from answering.
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import type { ClientRequest, IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { VirtualClock } from '../../src/clock.js'
import { startMapServer } from '../../src/web/map-server.js'
import type { MapServer, MapServerOptions } from '../../src/web/map-server.js'
import { waitFor } from '../integration/wait.js'
import { SITE } from './fleet-driver.js'

const closers: (() => Promise<unknown> | void)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

/** A tracker that is never connected: the test emits its `updated` events itself. */
function idleTracker(): FleetTracker {
  return new FleetTracker({ url: 'mqtt://127.0.0.1:1', clock: new VirtualClock(0) })
}

async function serve(options: Partial<MapServerOptions> & Pick<MapServerOptions, 'fleet'>): Promise<MapServer> {
  const map = await startMapServer({ port: 0, site: SITE, flushIntervalMs: 50, ...options })
  closers.push(() => map.close())
  return map
}

/** `n` beacons whose RSSI flips by 10 dB on every call, so every flush sends all of them. */
function beacons(n: number, round: number): FleetBeacon[] {
  const rssi = round % 2 === 0 ? -60 : -70
  return Array.from({ length: n }, (_, i) => ({ id: `B${String(i).padStart(5, '0')}`, time: round, present: true, room: 'Hall', gateways: [{ gateway: 'gw-hall', rssi, lastSeen: round }], firstSeen: 0, lastSeen: round }))
}

/** Opens an event stream; counts the updates that arrive. */
function reader(url: string): Promise<{ req: ClientRequest; res: IncomingMessage; updates: () => number }> {
  return new Promise((resolve, reject) => {
    let text = ''
    let updates = 0
    const req = request(`${url}api/events`, (res) => {
      res.setEncoding('utf8').on('data', (d: string) => {
        text += d
        const parts = text.split('\n\n')
        text = parts.pop() ?? ''
        updates += parts.filter((p) => p.startsWith('event: update')).length
      })
      resolve({ req, res, updates: () => updates })
    })
    req.on('error', reject)
    req.end()
  })
}

describe('event streams against clients that do not read', () => {
  it('drops a stream whose unsent bytes pass the bound; a reading page keeps its updates', async () => {
    const tracker = idleTracker()
    const map = await serve({ fleet: tracker, maxStreamBufferBytes: 64 * 1024 })
    const good = await reader(map.url)
    closers.push(() => {
      good.req.destroy()
    })
    // A raw socket that asks for the stream and then never reads a byte.
    const stuck: Socket = await new Promise((resolve) => {
      const s = connect(map.port, '127.0.0.1', () => resolve(s))
    })
    closers.push(() => {
      stuck.destroy()
    })
    stuck.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${map.port}\r\n\r\n`)
    stuck.pause()
    await waitFor(() => map.clients === 2, 'both streams open')
    // About 150 kB per update, 20 a second: the kernel's socket buffers fill within seconds.
    let round = 0
    const pump = setInterval(() => tracker.emit('updated', beacons(1000, ++round)), 50)
    closers.push(() => clearInterval(pump))
    await waitFor(() => map.streamsDropped === 1, 'the stream that does not read dropped', 60_000)
    expect(map.clients).toBe(1)
    // The reading page goes on receiving.
    const before = good.updates()
    await waitFor(() => good.updates() >= before + 3, 'updates to the reading page after the drop', 20_000)
    expect(map.streamsDropped).toBe(1)
  }, 90_000)

  it('drops streams whose client stopped reading once they have not drained for a while, however few bytes wait (#35 item 4)', async () => {
    const tracker = idleTracker()
    // The byte bound far away: what must cut these readers off is that they stopped reading.
    const map = await serve({ fleet: tracker, maxStreamBufferBytes: 256 * 1024 * 1024, streamStallMs: 2000 })
    const good = await reader(map.url)
    closers.push(() => {
      good.req.destroy()
    })
    // Real sockets, from different loopback addresses, that ask for the stream and never read a byte.
    const stuck: Socket[] = await Promise.all(Array.from({ length: 5 }, (_, i) => new Promise<Socket>((resolve) => {
      const s = connect({ port: map.port, host: '127.0.0.1', localAddress: `127.0.0.${10 + i}` }, () => resolve(s))
    })))
    closers.push(() => stuck.forEach((s) => s.destroy()))
    for (const s of stuck) {
      s.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${map.port}\r\n\r\n`)
      s.pause()
    }
    await waitFor(() => map.clients === 6, 'all streams open')
    // About 10 MB per stream, more than the kernel holds for a socket that is not read (its send
    // buffer tops out at 4 MB here), then quiet: nothing more is written to the stalled streams.
    for (let round = 1; round <= 70; round++) {
      tracker.emit('updated', beacons(1000, round))
      await new Promise((resolve) => setTimeout(resolve, 60))
    }
    await waitFor(() => map.streamsDropped === 5, 'the five streams that do not read dropped', 15_000)
    expect(map.clients).toBe(1)
    const before = good.updates()
    tracker.emit('updated', beacons(1000, 71))
    await waitFor(() => good.updates() > before, 'the reading page still gets updates')
    expect(map.streamsDropped).toBe(5)
  }, 60_000)

  it('refuses a bound that would drop every stream', async () => {
    await expect(startMapServer({ port: 0, fleet: idleTracker(), maxStreamBufferBytes: 10 })).rejects.toMatchObject({ code: 'invalid_option', option: 'maxStreamBufferBytes' })
    await expect(startMapServer({ port: 0, fleet: idleTracker(), streamStallMs: 10 }))
      .rejects.toMatchObject({ code: 'invalid_option', option: 'streamStallMs' })
    await expect(startMapServer({ port: 0, fleet: idleTracker(), maxStreamsPerClient: 0 }))
      .rejects.toMatchObject({ code: 'invalid_option', option: 'maxStreamsPerClient' })
  })
})

/** Opens an event stream from `localAddress` (a loopback address: Linux answers all of 127/8); resolves with its status. */
function open(url: string, localAddress: string, requests: ClientRequest[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = request(`${url}api/events`, { localAddress }, (res) => {
      // A stream answers with its snapshot first; a refusal is a short text.
      res.once('data', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    requests.push(req)
    req.end()
  })
}

describe('held: connection limits', () => {
  it('bounds the streams of one client with 429; other clients are still served (#35 item 4)', async () => {
    const map = await serve({ fleet: idleTracker(), maxStreamsPerClient: 4 })
    const requests: ClientRequest[] = []
    closers.push(() => requests.forEach((r) => r.destroy()))
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push(await open(map.url, '127.0.0.2', requests))
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
    expect(await open(map.url, '127.0.0.3', requests)).toBe(200)
    expect(map.clients).toBe(5)
    // A stream that ends gives its place back.
    requests[0].destroy()
    await waitFor(() => map.clients === 4, 'the closed stream forgotten')
    expect(await open(map.url, '127.0.0.2', requests)).toBe(200)
    // The refusal says what to do.
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(`${map.url}api/events`, { localAddress: '127.0.0.2' }, (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve(`${res.statusCode ?? 0} ${body}`))
      })
      req.on('error', reject)
      req.end()
    })
    expect(text).toMatch(/^429 this address already has 4 live map pages open; close some/)
  }, 30_000)

  it('by default a client may hold 20 streams', async () => {
    const map = await serve({ fleet: idleTracker() })
    const requests: ClientRequest[] = []
    closers.push(() => requests.forEach((r) => r.destroy()))
    const statuses: number[] = []
    for (let i = 0; i < 21; i++) statuses.push(await open(map.url, '127.0.0.4', requests))
    expect(statuses.filter((s) => s === 200)).toHaveLength(20)
    expect(statuses[20]).toBe(429)
  }, 30_000)

  it('serves 200 event streams and refuses the rest with 503; snapshots still answer', async () => {
    const map = await serve({ fleet: idleTracker() })
    const statuses: number[] = []
    const open: ClientRequest[] = []
    closers.push(() => open.forEach((r) => r.destroy()))
    await Promise.all(
      // Ten pages from each of 26 addresses: the total bound is what is tested, not the per-client one.
      Array.from({ length: 260 }, (_, i) => new Promise<void>((resolve, reject) => {
        const req = request(`${map.url}api/events`, { localAddress: `127.0.1.${1 + (i % 26)}` }, (res) => {
          statuses.push(res.statusCode ?? 0)
          // A stream answers with its snapshot first; a refusal is a short text.
          res.once('data', () => resolve())
        })
        req.on('error', reject)
        open.push(req)
        req.end()
      })),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(200)
    expect(statuses.filter((s) => s === 503)).toHaveLength(60)
    expect(map.clients).toBe(200)
    const snap = await fetch(`${map.url}api/snapshot`)
    expect(snap.status).toBe(200)
    expect(((await snap.json()) as { mode: string }).mode).toBe('fleet')
  }, 60_000)

  it('answers while 5,000 slowloris sockets send headers that never end', async () => {
    const map = await serve({ fleet: idleTracker() })
    const sockets: Socket[] = []
    closers.push(() => sockets.forEach((s) => s.destroy()))
    // In batches, so the listen backlog is not what is being tested.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 500 }, () => new Promise<void>((resolve, reject) => {
          const s = connect(map.port, '127.0.0.1', () => {
            s.write(`GET /api/snapshot HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `)
            resolve()
          })
          s.on('error', reject)
          sockets.push(s)
        })),
      )
    }
    expect(sockets.filter((s) => !s.destroyed)).toHaveLength(5000)
    const snap = await fetch(`${map.url}api/snapshot`)
    expect(snap.status).toBe(200)
    const stream = await reader(map.url)
    closers.push(() => {
      stream.req.destroy()
    })
    expect(stream.res.statusCode).toBe(200)
  }, 120_000)
})
