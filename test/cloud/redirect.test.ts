// Redirects are never followed: a real loopback server answers 3xx, a second one stands for
// wherever the redirect points, and must receive nothing.
import { describe, it, expect, afterEach } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AccountClient } from '../../src/cloud/account-client.js'
import { FileQueue } from '../../src/queue/file-queue.js'
import { Uploader } from '../../src/cloud/uploader.js'
import type { RetryInfo } from '../../src/cloud/uploader-options.js'
import { AccountError } from '../../src/errors.js'
import { loopback } from './loopback.js'
import type { Loopback } from './loopback.js'
import { reading } from './reading-fixture.js'

const EMAIL = 'ops@example.com'
const PASSWORD = 'Redirect-S3cret-pw'
const open: Loopback[] = []

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

async function serve(...args: Parameters<typeof loopback>): Promise<Loopback> {
  const s = await loopback(...args)
  open.push(s)
  return s
}

/** Stands for a login page or another host: answers 200 to anything. */
function elsewhere(): Promise<Loopback> {
  return serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<html>please log in</html>')
  })
}

function redirecting(status: number, to: string): Promise<Loopback> {
  return serve((_req, res) => {
    res.writeHead(status, { location: to, 'content-type': 'text/plain' })
    res.end('moved')
  })
}

async function rejection(p: Promise<unknown>): Promise<AccountError> {
  const e = await p.then(
    () => new Error('resolved, but a redirect must be refused'),
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(AccountError)
  return e as AccountError
}

describe('AccountClient and redirects', () => {
  it.each([301, 302, 303, 307, 308])('refuses a %i with code redirected, naming only the Location host', async (status) => {
    const other = await elsewhere()
    const origin = await redirecting(status, `${other.url}/sessions?token=${PASSWORD}`)
    const client = new AccountClient({ baseUrl: origin.url, email: EMAIL, password: PASSWORD })
    const e = await rejection(client.verify())
    expect(e.code).toBe('redirected')
    expect(e.status).toBe(status)
    expect(e.message).toContain(other.host)
    expect(e.message).not.toContain('/sessions?')
    expect(e.message).not.toContain('token')
    expect(e.message).not.toContain(PASSWORD)
    // Not retried either: a redirect is an answer, not a failure to get one.
    expect(origin.requests).toHaveLength(1)
    // The password in verify()'s body never reached the other host (307/308 would re-send it).
    expect(other.requests).toEqual([])
  })

  it('refuses a redirect to a relative Location and one without a Location', async () => {
    const origin = await redirecting(302, '/login')
    const client = new AccountClient({ baseUrl: origin.url, email: EMAIL, password: PASSWORD })
    const e = await rejection(client.listBeacons())
    expect(e.code).toBe('redirected')
    expect(e.message).toContain(origin.host)
    expect(e.message).not.toContain('/login')
    expect(origin.requests).toHaveLength(1)
    const bare = await serve((_req, res) => {
      res.writeHead(307)
      res.end()
    })
    const e2 = await rejection(new AccountClient({ baseUrl: bare.url, email: EMAIL, password: PASSWORD }).getMap('demo'))
    expect(e2.code).toBe('redirected')
    expect(e2.message).toMatch(/no Location/)
  })

  it('refuses the answer of an injected fetch that follows redirects anyway', async () => {
    const other = await elsewhere()
    const origin = await redirecting(302, `${other.url}/login`)
    const following = (input: string, init: RequestInit): Promise<Response> => fetch(input, { ...init, redirect: 'follow' })
    const client = new AccountClient({ baseUrl: origin.url, email: EMAIL, password: PASSWORD, fetch: following })
    const r = { msgId: 'm-1', beaconMac: '0117C5456A36', updatedTime: 1_800_000_000_000, sensor: { temperature: 20 } }
    const e = await rejection(client.uploadLogs([r]))
    expect(e.code).toBe('redirected')
    expect(e.message).toContain(other.host)
    expect(e.message).toMatch(/injected fetch/)
  })
})

describe('Uploader and redirects', () => {
  it('keeps the records when the server redirects to a login page that answers 200, and delivers them later', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-redirect-'))
    try {
      const login = await elsewhere()
      let redirect = true
      const received: string[] = []
      const cloud = await serve((req, res) => {
        if (redirect) {
          res.writeHead(302, { location: `${login.url}/login?next=/users/me/beacons/logs` })
          res.end()
          return
        }
        for (const log of (JSON.parse(req.body) as { logs: { msgId: string }[] }).logs) received.push(log.msgId)
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
      })
      const client = new AccountClient({ baseUrl: cloud.url, email: EMAIL, password: PASSWORD })
      const uploader = new Uploader({ client, queueDir: dir, batchSize: 3, retry: { initialDelayMs: 1, maxDelayMs: 1 } })
      // Whichever comes first: an acknowledgement (the defect) or a retry.
      const first = new Promise<string>((resolve) => {
        uploader.once('retrying', (info: RetryInfo) => resolve(info.error.code))
        uploader.once('uploaded', () => resolve('acknowledged'))
      })
      const ids = await Promise.all([1, 2, 3].map((n) => uploader.push(reading(n, 1_800_000_000_000))))
      expect(await first).toBe('redirected')
      expect(uploader.stats.uploaded).toBe(0)
      expect(uploader.pending).toBe(3)
      expect(login.requests).toEqual([])
      // The records are still there: once the cloud answers for real, every one of them arrives.
      redirect = false
      await uploader.flush()
      expect(received.sort()).toEqual([...ids].sort())
      await uploader.close()
      const reopened = await FileQueue.open({ dir })
      expect(reopened.size).toBe(0)
      await reopened.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
