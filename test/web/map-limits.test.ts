// The map server's bounds against clients that misbehave, over real sockets on loopback: an
// event-stream client that never reads is dropped once its unsent bytes pass the bound (while a
// reading one keeps its updates), the stream count is capped with 503, and thousands of
// slowloris sockets do not stop the server from answering.
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import type { ClientRequest, IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetBeacon } from '../../src/fleet/fusion.js'
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

  it('refuses a bound that would drop every stream', async () => {
    await expect(startMapServer({ port: 0, fleet: idleTracker(), maxStreamBufferBytes: 10 })).rejects.toMatchObject({ code: 'invalid_option', option: 'maxStreamBufferBytes' })
  })
})

describe('held: connection limits', () => {
  it('serves 200 event streams and refuses the rest with 503; snapshots still answer', async () => {
    const map = await serve({ fleet: idleTracker() })
    const statuses: number[] = []
    const open: ClientRequest[] = []
    closers.push(() => open.forEach((r) => r.destroy()))
    await Promise.all(
      Array.from({ length: 260 }, () => new Promise<void>((resolve, reject) => {
        const req = request(`${map.url}api/events`, (res) => {
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
