// Every error code of spec part 7: the emulator answers each one where the spec raises it (raw
// requests, since the client refuses such requests itself), and the client turns each into a
// DeveloperApiError with its meaning. Plus retries (reads only), envelope variants, the sign
// hook and secrets.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { inspect } from 'node:util'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { DeveloperClient } from '../../src/developer/client.js'
import { ERROR_CODES } from '../../src/developer/envelope.js'
import { DeveloperApiError, InvalidOptionError } from '../../src/errors.js'
import { loopback } from '../cloud/loopback.js'
import type { Loopback } from '../cloud/loopback.js'

let emu: Emulator
const servers: Loopback[] = []
beforeEach(async () => {
  emu = await startEmulator({ developer: { taskDelayMs: 5 } })
})
afterEach(async () => {
  await emu.close()
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function raw(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${emu.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

const sn = (): string => emu.developer.store.ownDevices()[0].sn

describe('the emulator raises each code of part 7 where the spec does', () => {
  const cases: [string, string, string, () => unknown, number, string][] = [
    ['4.2 sns missing', 'POST', '/developers/device/interval', () => ({ cfg: { interval: 120 } }), 5020610, 'sns is required array of strings'],
    ['4.2 interval too small', 'POST', '/developers/device/interval', () => ({ sns: [sn()], cfg: { interval: 60 } }), 5020612, 'interval is a required integer greater than 60'],
    ['4.3 coAlarmHigh', 'POST', '/developers/device/threshold', () => ({ sns: [sn()], deviceType: 'co', cfg: { coAlarmHigh: -1 } }), 5020614, 'coAlarmHigh should be a positive integer'],
    ['4.3 co2AlarmHigh', 'POST', '/developers/device/threshold', () => ({ sns: [sn()], deviceType: 'co2', cfg: { co2AlarmHigh: 0.5 } }), 5020615, 'co2AlarmHigh should be a positive integer'],
    ['4.3 so2AlarmHigh', 'POST', '/developers/device/threshold', () => ({ sns: [sn()], deviceType: 'so2', cfg: { so2AlarmHigh: '3' } }), 5020616, 'so2AlarmHigh should be a positive integer'],
    ['4.3 no2AlarmHigh', 'POST', '/developers/device/threshold', () => ({ sns: [sn()], deviceType: 'no2', cfg: { no2AlarmHigh: 0 } }), 5020617, 'no2AlarmHigh should be a positive integer'],
    ['4.3 ch4AlarmHigh', 'POST', '/developers/device/threshold', () => ({ sns: [sn()], deviceType: 'ch4', cfg: { ch4AlarmHigh: 2.5 } }), 5020618, 'ch4AlarmHigh should be a positive integer'],
    ['4.3 pm2_5AlarmHigh', 'POST', '/developers/device/threshold', () => ({ sns: [sn()], deviceType: 'pm', cfg: { pm2_5AlarmHigh: -3 } }), 5020619, 'pm2_5AlarmHigh should be a positive integer'],
    ['4.3 pm10AlarmHigh', 'POST', '/developers/device/threshold', () => ({ sns: [sn()], deviceType: 'pm', cfg: { pm10AlarmHigh: null } }), 5020620, 'pm10AlarmHigh should be a positive integer'],
    ['4.4 data not hex', 'POST', '/developers/device/cdata', () => ({ sns: [sn()], data: 'xyz' }), 5020613, 'data is required hex string'],
    ['4.5 unknown parser', 'POST', '/developers/device/nosuchparser/data', () => ({ sns: [sn()], data: {} }), 704, 'Invalid Params'],
    ['4.5 parser refuses the data', 'POST', '/developers/device/tracker/data', () => ({ sns: [sn()], data: { emergencyTime: 5 } }), 704, 'Invalid Params'],
    ['4.6 no such device', 'GET', '/developers/device/NOSUCH', () => undefined, 5010107, 'device not found'],
    ['4.7 count 0', 'GET', '/developers/device/list?count=0', () => undefined, 5010108, 'count should be a positive integer and le 1000'],
    ['4.8 no such station', 'GET', '/developers/station/GWNOSUCH', () => undefined, 5010107, 'device not found'],
    ['4.8 malformed station serial', 'GET', '/developers/station/bad%20sn!', () => undefined, 5020601, 'invalid params'],
    ['4.9 count 1001', 'GET', '/developers/station/list?count=1001', () => undefined, 5010108, 'count should be a positive integer and le 1000'],
    ['4.10 count x', 'GET', '/developers/device/X/log?count=x', () => undefined, 5010108, 'count should be a positive integer and le 1000'],
    ['4.11 sns missing', 'POST', '/developers/device/relation', () => ({}), 5010101, 'sns is a required parameter'],
    ['4.12 sns empty', 'DELETE', '/developers/device/relation', () => ({ sns: [] }), 5010101, 'sns is a required parameter'],
    ['4.13 too many', 'PUT', '/developers/device/info', () => ({ data: Array.from({ length: 1001 }, (_, i) => ({ sn: `S${i}` })) }), 5020601, 'invalid params'],
    ['4.13 bad type', 'PUT', '/developers/gateway/info', () => ({ data: [{ sn: 'A' }] }), 5020601, 'invalid params'],
  ]
  for (const [what, method, path, body, code, message] of cases) {
    it(`${what}: err_code ${code}`, async () => {
      const { status, json } = await raw(method, path, body())
      expect(status).toBeGreaterThanOrEqual(400)
      expect(json.err_code).toBe(code)
      // The spec's example of 5020613 names its message errmsg.
      expect(String(json[code === 5020613 ? 'errmsg' : 'err_msg'])).toContain(message)
      if (code === 704) expect(typeof json.err_info).toBe('string')
    })
  }

  it('answers a developer body that is not JSON with 5020601 in the envelope', async () => {
    const { json } = await raw('POST', '/developers/device/interval', '{not json')
    expect(json.err_code).toBe(5020601)
  })
})

describe('DeveloperApiError', () => {
  for (const [errCode, known] of ERROR_CODES) {
    it(`err_code ${errCode} becomes code ${known.code} with the spec's meaning`, async () => {
      const client = new DeveloperClient({ baseUrl: emu.url, retry: { retries: 0 } })
      emu.developer.failNext(errCode)
      const error = await client.getDevice(sn()).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(DeveloperApiError)
      expect(error).toMatchObject({ code: known.code, errCode, meaning: known.meaning })
      expect((error as DeveloperApiError).status).toBeGreaterThanOrEqual(400)
      expect((error as Error).message).toContain(String(errCode))
    })
  }

  it('500 (server error) as 4.11–4.13 raise it, none of them retried', async () => {
    const client = new DeveloperClient({ baseUrl: emu.url, retry: { retries: 3, initialDelayMs: 1, maxDelayMs: 5 } })
    const before = emu.requests
    for (const call of [() => client.linkDevices([sn()]), () => client.unlinkDevices([sn()]), () => client.updateInfo('device', [{ sn: sn(), name: 'x' }])]) {
      emu.developer.failNext(500)
      await expect(call()).rejects.toMatchObject({ code: 'server_error', errCode: 500, meaning: 'server error' })
    }
    expect(emu.requests - before).toBe(3)
  })

  it('704 carries err_info from the parser', async () => {
    const client = new DeveloperClient({ baseUrl: emu.url })
    const error = await client.sendParserData('tracker', [sn()], { command: '' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'parser_rejected', errCode: 704, serverMessage: 'Invalid Params' })
    expect((error as DeveloperApiError).errInfo).toContain('command')
  })

  it('retries a read on -1 (system busy) and succeeds; never retries a downlink', async () => {
    const client = new DeveloperClient({ baseUrl: emu.url, retry: { retries: 2, initialDelayMs: 1, maxDelayMs: 5 } })
    emu.developer.failNext(-1, 2)
    const before = emu.requests
    expect(await client.deviceHistory(sn(), { count: 1 })).toHaveLength(1)
    expect(emu.requests - before).toBe(3)
    emu.developer.failNext(500)
    const mid = emu.requests
    await expect(client.setInterval([sn()], 120)).rejects.toMatchObject({ code: 'server_error', errCode: 500 })
    expect(emu.requests - mid).toBe(1)
    expect(emu.developer.store.tasks.size).toBe(0)
  })

  it('does not retry a downlink whose connection was reset', async () => {
    const server = await loopback((req, res) => res.socket?.destroy())
    servers.push(server)
    const client = new DeveloperClient({ baseUrl: server.url, retry: { retries: 3, initialDelayMs: 1, maxDelayMs: 5 } })
    await expect(client.setInterval(['A'], 120)).rejects.toMatchObject({ code: 'network', status: 0 })
    expect(server.requests).toHaveLength(1)
    await expect(client.getDevice('A')).rejects.toMatchObject({ code: 'network' })
    expect(server.requests).toHaveLength(5)
  })

  it('reads err_code from a 200 answer too, errmsg and err_info included; refuses an answer without the envelope', async () => {
    const answers = [
      { err_code: 5020613, errmsg: 'data is required hex string' },
      { err_code: 9999, err_msg: 'something new', err_info: { field: 'x' } },
      { items: [] },
    ]
    const server = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(answers.shift()))
    })
    servers.push(server)
    const client = new DeveloperClient({ baseUrl: server.url })
    await expect(client.sendRawData(['A'], '00')).rejects.toMatchObject({ code: 'invalid_hex', status: 200, errCode: 5020613, serverMessage: 'data is required hex string' })
    await expect(client.getDevice('A')).rejects.toMatchObject({ code: 'api_error', errCode: 9999, serverMessage: 'something new', errInfo: '{"field":"x"}' })
    await expect(client.getDevice('A')).rejects.toMatchObject({ code: 'invalid_response' })
  })
})

describe('transport and authentication', () => {
  const SECRET = 'AppSecret-7f3c9e1d2b'

  it('sends what the sign hook returns, over the exact body it signed, and re-signs each attempt', async () => {
    const seen: string[] = []
    const server = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ err_code: 0, data: { scheduleNo: 'S1', ok: [], unexistSns: ['A'] } }))
    })
    servers.push(server)
    let n = 0
    const client = new DeveloperClient({
      baseUrl: server.url,
      appId: 'app-42',
      sign: (r) => {
        seen.push(`${r.method} ${r.path} ${r.appId} ${r.body}`)
        return { 'x-signature': `sig-${++n}` }
      },
    })
    await client.setInterval(['A'], 120)
    expect(seen).toEqual(['POST /developers/device/interval app-42 {"sns":["A"],"cfg":{"interval":120}}'])
    expect(server.requests[0].headers['x-signature']).toBe('sig-1')
    expect(server.requests[0].body).toBe('{"sns":["A"],"cfg":{"interval":120}}')
  })

  it('keeps the AppSecret out of errors, inspect and JSON, even when the server or the hook quotes it', async () => {
    const server = await loopback((req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ err_code: 5020601, err_msg: `bad signature ${String(req.headers['x-signature'])}`, err_info: `secret was ${SECRET}` }))
    })
    servers.push(server)
    const client = new DeveloperClient({ baseUrl: server.url, secrets: [SECRET], sign: () => ({ 'x-signature': `hmac-of-${SECRET}` }) })
    const error = await client.getDevice('A').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'invalid_params', errCode: 5020601 })
    const shown = `${inspect(error)} ${JSON.stringify(error)} ${(error as Error).message} ${inspect(client)} ${JSON.stringify(client)} ${String(client)}`
    expect(shown).not.toContain(SECRET)
    expect(shown).not.toContain('hmac-of')
    const throwing = new DeveloperClient({
      baseUrl: server.url,
      sign: () => {
        throw new Error(`cannot sign with ${SECRET}`)
      },
    })
    const signError = await throwing.getDevice('A').catch((e: unknown) => e)
    expect(signError).toMatchObject({ code: 'sign_failed' })
    expect(inspect(signError)).not.toContain(SECRET)
  })

  it('refuses plain http off loopback, credentials in the URL, and redirects', async () => {
    expect(() => new DeveloperClient({ baseUrl: 'http://iot.example.com' })).toThrow(InvalidOptionError)
    expect(() => new DeveloperClient({ baseUrl: 'https://u:p@iot.example.com' })).toThrow(/not in baseUrl/)
    expect(() => new DeveloperClient({ baseUrl: 'http://iot.example.com', allowInsecureHttp: true })).not.toThrow()
    const elsewhere = await loopback((_req, res) => res.end('{"err_code":0,"data":{}}'))
    const redirecting = await loopback((_req, res) => {
      res.writeHead(302, { location: `${elsewhere.url}/developers/device/A` })
      res.end()
    })
    servers.push(elsewhere, redirecting)
    const client = new DeveloperClient({ baseUrl: redirecting.url })
    const error = await client.getDevice('A').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'redirected', status: 302 })
    expect((error as Error).message).toContain("the developer interface's own address")
    expect(elsewhere.requests).toHaveLength(0)
  })

  it('abandons an answer past maxResponseBytes, and honours an AbortSignal and timeoutMs', async () => {
    const server = await loopback((req, res) => {
      if (req.url.includes('slow')) return // never answers
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ err_code: 0, data: { filler: 'x'.repeat(5000) } }))
    })
    servers.push(server)
    const client = new DeveloperClient({ baseUrl: server.url, maxResponseBytes: 1000, retry: { retries: 0 } })
    await expect(client.getDevice('A')).rejects.toMatchObject({ code: 'response_too_large' })
    await expect(client.getDevice('slow', { timeoutMs: 50 })).rejects.toMatchObject({ code: 'timeout' })
    const controller = new AbortController()
    const pending = client.getDevice('slow', { signal: controller.signal })
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'aborted' })
  })
})
