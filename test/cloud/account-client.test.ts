import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { inspect } from 'node:util'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AccountClient } from '../../src/cloud/account-client.js'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { AccountError, InvalidOptionError } from '../../src/errors.js'

const EMAIL = 'ops@example.com'
const PASSWORD = 'S3cret-pa55word!'
let emu: Emulator
let client: AccountClient

beforeAll(async () => {
  emu = await startEmulator({ accounts: [{ email: EMAIL, password: PASSWORD }, { email: 'other@example.com', password: 'other-pass' }], seed: 7 })
  client = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD, retry: { initialDelayMs: 1, maxDelayMs: 5 } })
})
afterAll(async () => {
  await emu.close()
})

async function failure(p: Promise<unknown>): Promise<AccountError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(AccountError)
  return e as AccountError
}

describe('AccountClient against the emulator', () => {
  it('verifies good credentials and refuses bad ones with code unauthorized', async () => {
    await expect(client.verify()).resolves.toBeUndefined()
    const bad = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: 'wrong' })
    const e = await failure(bad.verify())
    expect(e.code).toBe('unauthorized')
    expect(e.status).toBe(401)
    const e2 = await failure(bad.listBeacons())
    expect(e2.code).toBe('unauthorized')
  })

  it('lists, adds, tags and removes beacons', async () => {
    const before = await client.listBeacons()
    expect(before).toHaveLength(3)
    expect(before.every((b) => /^[0-9A-F]{12}$/.test(b.mac))).toBe(true)
    const device = emu.store.catalogue[10]
    const added = await client.addBeacon({ mac: device.mac.toLowerCase(), token: device.token })
    expect(added.mac).toBe(device.mac)
    expect(added.UMM).toBe(device.UMM)
    expect(added.users?.[0].user).toBe(EMAIL)
    await client.setBeaconTags(device.mac, ['dock', 'north'])
    expect((await client.listBeacons()).find((b) => b.mac === device.mac)?.tags).toEqual(['dock', 'north'])
    await client.removeBeacon(device.mac)
    expect((await client.listBeacons()).map((b) => b.mac)).toEqual(before.map((b) => b.mac))
    expect((await failure(client.removeBeacon(device.mac))).code).toBe('not_found')
  })

  it('refuses a wrong token (bad_request) and an unknown device (not_found)', async () => {
    const device = emu.store.catalogue[11]
    const wrong = await failure(client.addBeacon({ mac: device.mac, token: 'nope' }))
    expect(wrong.code).toBe('bad_request')
    expect(wrong.status).toBe(400)
    expect(wrong.message).toMatch(/token/)
    expect((await failure(client.addBeacon({ mac: 'FFFFFFFFFFFF', token: 'x' }))).code).toBe('not_found')
  })

  it('validates inputs before sending, naming the option', () => {
    const req = emu.requests
    const calls: [() => Promise<unknown>, string][] = [
      [() => client.addBeacon({ mac: 'not-a-mac', token: 't' }), 'mac'],
      [() => client.addBeacon({ mac: '0117C5456A36', token: '' }), 'token'],
      [() => client.removeBeacon('12:34'), 'sn'],
      [() => client.setBeaconTags('0117C5456A36', ['ok', 3 as unknown as string]), 'tags'],
      [() => client.beaconLogs({ type: 3 as 0 }), 'type'],
      [() => client.beaconLogs({ count: 0 }), 'count'],
      [() => client.beaconLogs({ page: -1 }), 'page'],
      [() => client.getMap(''), 'key'],
      [() => client.uploadLogs([]), 'records'],
    ]
    return Promise.all(
      calls.map(async ([call, option]) => {
        const e = await call().catch((err: unknown) => err)
        expect(e).toBeInstanceOf(InvalidOptionError)
        expect((e as InvalidOptionError).option).toBe(option)
      }),
    ).then(() => expect(emu.requests).toBe(req))
  })

  it('uploads logs, de-duplicates msgIds and reads them back (type 1)', async () => {
    const records = Array.from({ length: 5 }, (_, i) => ({
      msgId: `acct-test-${i}`,
      beaconMac: emu.store.catalogue[0].mac,
      beaconUMM: emu.store.catalogue[0].UMM,
      updatedTime: 1_800_000_000_000 + i,
      location: { lat: 48.1, lon: 11.5 },
      sensor: { temperature: 21.5, power: 80 },
    }))
    expect(await client.uploadLogs(records)).toEqual({ sent: 5, stored: 5, duplicates: 0 })
    expect(await client.uploadLogs(records.slice(0, 2))).toEqual({ sent: 2, stored: 0, duplicates: 2 })
    const own = await client.beaconLogs({ type: 1 })
    expect(own.map((r) => r.msgId)).toEqual(records.map((r) => r.msgId))
    expect(own[0]).toMatchObject({ ...records[0], __v: 0 })
    const byMac = await client.beaconLogs({ type: 1, mac: emu.store.catalogue[1].mac })
    expect(byMac).toEqual([])
    const since = await client.beaconLogs({ type: 1, timestamp: 1_800_000_000_003 })
    expect(since.map((r) => r.msgId)).toEqual(['acct-test-3', 'acct-test-4'])
  })

  it('pages through logs with the async iterator', async () => {
    const all: string[] = []
    for await (const r of client.allBeaconLogs({ type: 0, count: 7 })) all.push(r.msgId ?? '')
    const direct = await client.beaconLogs({ type: 0, count: 1000 })
    expect(all).toEqual(direct.map((r) => r.msgId))
    expect(all.length).toBeGreaterThan(20)
    const inspectors = await client.beaconLogs({ type: 2 })
    expect(inspectors).toHaveLength(5)
  })

  it('reads a deployment map and reports an unknown one as not_found', async () => {
    const map = await client.getMap('demo')
    expect(map.key).toBe('demo')
    expect(map.beacons.length).toBeGreaterThan(0)
    expect(typeof map.beacons[0].PosX).toBe('number')
    expect((await failure(client.getMap('nowhere'))).code).toBe('not_found')
  })

  it('maps injected faults onto codes, honours Retry-After and retries idempotent calls', async () => {
    try {
      emu.setFaults({ force429: { retryAfterSeconds: 7 } })
      const noRetry = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD, retry: { retries: 0 } })
      const limited = await failure(noRetry.listBeacons())
      expect(limited.code).toBe('rate_limited')
      expect(limited.retryAfterSeconds).toBe(7)
      emu.setFaults({ failureRate: 1 })
      const server = await failure(noRetry.listBeacons())
      expect(server.code).toBe('server')
      expect(server.status).toBe(500)
      emu.setFaults({ resetRate: 1 })
      const reset = await failure(noRetry.listBeacons())
      expect(reset.code).toBe('network')
      expect(reset.status).toBe(0)
      emu.setFaults({ force401: true })
      expect((await failure(noRetry.listBeacons())).code).toBe('unauthorized')

      // Half the requests fail: the retries of an idempotent call get through.
      emu.setFaults({ failureRate: 0.5 })
      const patient = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD, retry: { retries: 20, initialDelayMs: 1, maxDelayMs: 2 } })
      for (let i = 0; i < 5; i++) expect(await patient.listBeacons()).toHaveLength(3)
    } finally {
      emu.setFaults({})
    }
  })

  it('times out and aborts', async () => {
    try {
      emu.setFaults({ latencyMs: 300 })
      const quick = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD, timeoutMs: 30, retry: { retries: 0 } })
      expect((await failure(quick.listBeacons())).code).toBe('timeout')
      const controller = new AbortController()
      const p = client.listBeacons({ signal: controller.signal })
      controller.abort()
      expect((await failure(p)).code).toBe('aborted')
      const pre = new AbortController()
      pre.abort()
      expect((await failure(client.getMap('demo', { signal: pre.signal }))).code).toBe('aborted')
    } finally {
      emu.setFaults({})
    }
  })

  it('reports a closed port as a network error', async () => {
    const srv = createServer()
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    const port = (srv.address() as AddressInfo).port
    await new Promise<void>((r) => srv.close(() => r()))
    const dead = new AccountClient({ baseUrl: `http://127.0.0.1:${port}`, email: EMAIL, password: PASSWORD, retry: { retries: 0 } })
    const e = await failure(dead.verify())
    expect(e.code).toBe('network')
    expect(e.message).toMatch(/ECONNREFUSED/)
  })
})

describe('AccountClient response checks', () => {
  async function serve(status: number, body: string): Promise<{ url: string; close: () => Promise<void> }> {
    const srv = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(body)
    })
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    return {
      url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
      close: () => new Promise<void>((r) => srv.close(() => r())),
    }
  }

  it('names the bad field of a malformed response', async () => {
    const s = await serve(200, JSON.stringify([{ mac: '0117C5456A36' }, { mac: 5 }]))
    try {
      const c = new AccountClient({ baseUrl: s.url, email: EMAIL, password: PASSWORD })
      const e = await failure(c.listBeacons())
      expect(e.code).toBe('invalid_response')
      expect(e.message).toContain('[1].mac')
      const logs = await failure(c.beaconLogs())
      expect(logs.message).toContain('[0].beaconMac')
    } finally {
      await s.close()
    }
  })

  it('treats a non-JSON 2xx as invalid for reads but as accepted for uploads', async () => {
    const s = await serve(200, 'OK')
    try {
      const c = new AccountClient({ baseUrl: s.url, email: EMAIL, password: PASSWORD })
      expect((await failure(c.getMap('demo'))).code).toBe('invalid_response')
      const r = { msgId: 'a', beaconMac: '0117C5456A36', updatedTime: 1, sensor: {} }
      expect(await c.uploadLogs([r])).toEqual({ sent: 1 })
    } finally {
      await s.close()
    }
  })

  it('scrubs the password from a server message echoed back', async () => {
    const s = await serve(400, JSON.stringify({ message: `bad password ${PASSWORD} given` }))
    try {
      const c = new AccountClient({ baseUrl: s.url, email: EMAIL, password: PASSWORD })
      const e = await failure(c.verify())
      expect(e.code).toBe('bad_request')
      expect(e.message).toContain('bad password *** given')
      expect(e.message).not.toContain(PASSWORD)
    } finally {
      await s.close()
    }
  })
})

describe('AccountClient options and secrets', () => {
  it('requires https for a non-loopback host unless allowed', () => {
    const e = (() => {
      try {
        new AccountClient({ baseUrl: 'http://cloud.example.com', email: EMAIL, password: PASSWORD })
      } catch (err) {
        return err
      }
    })()
    expect(e).toBeInstanceOf(AccountError)
    expect((e as AccountError).code).toBe('insecure_url')
    expect(() => new AccountClient({ baseUrl: 'http://cloud.example.com', email: EMAIL, password: PASSWORD, allowInsecureHttp: true })).not.toThrow()
    expect(() => new AccountClient({ baseUrl: 'https://cloud.example.com/api/', email: EMAIL, password: PASSWORD })).not.toThrow()
    expect(() => new AccountClient({ baseUrl: 'http://127.0.0.5:80', email: EMAIL, password: PASSWORD })).not.toThrow()
    expect(() => new AccountClient({ baseUrl: 'http://[::1]:80', email: EMAIL, password: PASSWORD })).not.toThrow()
    expect(() => new AccountClient({ baseUrl: 'nope', email: EMAIL, password: PASSWORD })).toThrow(InvalidOptionError)
    expect(() => new AccountClient({ baseUrl: 'https://u:p@x.example', email: EMAIL, password: PASSWORD })).toThrow(/not in baseUrl/)
    expect(() => new AccountClient({ baseUrl: 'https://x.example', email: EMAIL, password: '' })).toThrow(InvalidOptionError)
    expect(() => new AccountClient({ baseUrl: 'https://x.example', email: EMAIL, password: 'p', timeoutMs: -1 })).toThrow(/timeoutMs/)
  })

  it('never shows the password in inspect, JSON, String or errors', async () => {
    const c = new AccountClient({ baseUrl: 'https://cloud.example.com/api/', email: EMAIL, password: PASSWORD })
    const basic = Buffer.from(`${EMAIL}:${PASSWORD}`).toString('base64')
    const shown = [inspect(c), inspect(c, { showHidden: true, depth: 10 }), JSON.stringify(c), String(c), `${c}`, JSON.stringify({ c })]
    for (const text of shown) {
      expect(text).not.toContain(PASSWORD)
      expect(text).not.toContain(basic)
    }
    expect(JSON.stringify(c)).toBe(JSON.stringify({ baseUrl: 'https://cloud.example.com/api', email: EMAIL }))
    expect(Object.keys(c)).not.toContain('password')
    const bad = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD, retry: { retries: 0 } })
    emu.setFaults({ resetRate: 1 })
    try {
      for (const call of [() => bad.verify(), () => bad.listBeacons()]) {
        const e = await failure(call())
        const text = `${e.message} ${inspect(e, { depth: 10 })} ${JSON.stringify(e)}`
        expect(text).not.toContain(PASSWORD)
        expect(text).not.toContain(basic)
      }
    } finally {
      emu.setFaults({})
    }
  })
})
