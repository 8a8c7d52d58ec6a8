// Answers are read with a size cap: a real loopback server streams an endless body, and the
// client must give up past the cap and close the connection (the server sees it closed).
import { describe, it, expect, afterEach } from 'vitest'
import type { ServerResponse } from 'node:http'
import { AccountClient } from '../../src/cloud/account-client.js'
import { AccountError, InvalidOptionError } from '../../src/errors.js'
import { loopback } from './loopback.js'
import type { Loopback } from './loopback.js'

const EMAIL = 'ops@example.com'
const PASSWORD = 'Size-cap-pw-123'
/** A safety stop, so that a client without a cap cannot take the test machine down. */
const SERVER_LIMIT = 256 * 1024 * 1024
const open: Loopback[] = []

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

interface Endless {
  server: Loopback
  /** Resolves with the bytes written once the client closed the connection. */
  closed: Promise<number>
}

/** Streams `[` then filler forever (until the client goes, or the safety stop). */
async function endless(status: number, headers: Record<string, string> = {}): Promise<Endless> {
  let closed!: (bytes: number) => void
  const done = new Promise<number>((resolve) => {
    closed = resolve
  })
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  const server = await loopback((_req, res: ServerResponse) => {
    let written = 0
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.on('close', () => closed(written))
    const pump = (): void => {
      while (!res.destroyed && written < SERVER_LIMIT) {
        written += chunk.length
        if (!res.write(chunk)) {
          res.once('drain', pump)
          return
        }
      }
      if (!res.destroyed) res.end()
    }
    res.write('[')
    pump()
  })
  open.push(server)
  return { server, closed: done }
}

async function rejection(p: Promise<unknown>): Promise<AccountError> {
  const e = await p.then(
    () => new Error('resolved, but the answer was endless'),
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(AccountError)
  return e as AccountError
}

describe('AccountClient response size cap', () => {
  it('abandons an endless 200 past the default 4 MiB with code response_too_large, and closes the connection', async () => {
    const { server, closed } = await endless(200)
    const client = new AccountClient({ baseUrl: server.url, email: EMAIL, password: PASSWORD, retry: { retries: 0 } })
    const e = await rejection(client.listBeacons())
    expect(e.code).toBe('response_too_large')
    expect(e.status).toBe(200)
    expect(e.message).toMatch(/more than 4194304 bytes/)
    expect(e.message).toMatch(/maxResponseBytes/)
    const written = await closed
    expect(written).toBeLessThan(SERVER_LIMIT)
  })

  it('honours maxResponseBytes, and never acknowledges an upload whose answer is endless', async () => {
    const { server, closed } = await endless(200)
    const client = new AccountClient({ baseUrl: server.url, email: EMAIL, password: PASSWORD, maxResponseBytes: 100_000 })
    const r = { msgId: 'm-1', beaconMac: '0117C5456A36', updatedTime: 1_800_000_000_000, sensor: { temperature: 20 } }
    const e = await rejection(client.uploadLogs([r]))
    expect(e.code).toBe('response_too_large')
    expect(e.message).toMatch(/more than 100000 bytes/)
    await closed
  })

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const { server, closed } = await endless(200, { 'content-length': String(10 * 1024 * 1024) })
    const client = new AccountClient({ baseUrl: server.url, email: EMAIL, password: PASSWORD, retry: { retries: 0 } })
    expect((await rejection(client.getMap('demo'))).code).toBe('response_too_large')
    await closed
  })

  it('reads only the start of an endless error answer and still reports its status', async () => {
    const { server, closed } = await endless(500)
    const client = new AccountClient({ baseUrl: server.url, email: EMAIL, password: PASSWORD, retry: { retries: 0 } })
    const e = await rejection(client.listBeacons())
    expect(e.code).toBe('server')
    expect(e.status).toBe(500)
    await closed
  })

  it('validates maxResponseBytes', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
      expect(() => new AccountClient({ baseUrl: 'https://x.example', email: EMAIL, password: PASSWORD, maxResponseBytes: bad })).toThrow(InvalidOptionError)
    }
  })
})
