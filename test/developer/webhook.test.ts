// The webhook receiver over real HTTP on loopback: the two message kinds, acknowledgement only
// after the handler, de-duplication, and pushes that are malformed, oversized, duplicated,
// encrypted without a key, unsigned or not POSTs — none of which stops it.
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { startWebhookServer } from '../../src/developer/webhook-server.js'
import type { WebhookServer, WebhookServerOptions } from '../../src/developer/webhook-server.js'
import type { DataMessage, TaskEvent } from '../../src/developer/webhook-message.js'
import { InvalidOptionError, WebhookError } from '../../src/errors.js'

const running: WebhookServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

async function start(options: Omit<WebhookServerOptions, 'port'>): Promise<WebhookServer> {
  const s = await startWebhookServer({ port: 0, ...options })
  running.push(s)
  return s
}

async function post(server: WebhookServer, body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; json: { messages?: string } }> {
  const res = await fetch(server.url, { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'GET' ? undefined : typeof body === 'string' ? body : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as { messages?: string }) }
}

const text = (msgId: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  appId: 'app-1',
  sn: '70B3D5000001',
  type: 'text',
  deviceType: 'temp_humi',
  createdTime: 1_767_225_600_000,
  msgId,
  data: { temperature: 21.5, humidity: 40, lonlat: [13.4, 52.5], accelerometer: { x: 0, y: 0.1, z: 9.8 }, leak: false, customer: 'hi', extra: 'kept' },
  ...extra,
})
const event = (msgId: number, taskId: unknown = 1001, resultCode = 0): Record<string, unknown> => ({ appId: 'app-1', taskId, type: 'event', createdTime: 1_767_225_600_000, msgId, data: { resultCode } })

describe('createWebhookHandler / startWebhookServer', () => {
  it('hands sensor data and task events to their handlers and answers 2xx with messages: success', async () => {
    const data: DataMessage[] = []
    const events: TaskEvent[] = []
    const server = await start({ onData: (m) => void data.push(m), onTaskEvent: (e) => void events.push(e) })
    expect(await post(server, text(1))).toEqual({ status: 200, json: { messages: 'success' } })
    expect(await post(server, event(2, 1001))).toMatchObject({ status: 200 })
    // The spec's sample shows taskId as a Number, its table as a String: always text here.
    expect(await post(server, event(3, '1002', 1))).toMatchObject({ status: 200 })
    expect(data[0]).toMatchObject({ sn: '70B3D5000001', deviceType: 'temp_humi', msgId: 1, data: { temperature: 21.5, extra: 'kept' } })
    expect(events.map((e) => [e.taskId, e.data.resultCode])).toEqual([['1001', 0], ['1002', 1]])
    expect(server.stats).toMatchObject({ requests: 3, data: 1, events: 2, duplicates: 0 })
  })

  it('acknowledges only after the handler resolves; a rejection answers 500 and the re-push is handled again', async () => {
    let fail = true
    const seen: number[] = []
    const errors: WebhookError[] = []
    let release = (): void => undefined
    const gate = new Promise<void>((r) => (release = r))
    const server = await start({
      onData: async (m) => {
        seen.push(m.msgId as number)
        if (m.msgId === 9) await gate
        if (fail) throw new Error('database down')
      },
      onError: (e) => errors.push(e),
    })
    expect((await post(server, text(1))).status).toBe(500)
    expect(errors[0]).toMatchObject({ code: 'handler_failed', status: 500, msgId: '1' })
    fail = false
    expect((await post(server, text(1))).status).toBe(200)
    expect(seen).toEqual([1, 1])
    // Not answered while the handler is still working.
    let answered = false
    const pending = post(server, text(9)).then((r) => {
      answered = true
      return r
    })
    await new Promise((r) => setTimeout(r, 50))
    expect(answered).toBe(false)
    release()
    expect((await pending).status).toBe(200)
    expect(server.stats.refused.handler_failed).toBe(1)
  })

  it('drops re-pushes of a message already taken, also when they arrive while it is being handled', async () => {
    const seen: unknown[] = []
    let release = (): void => undefined
    const gate = new Promise<void>((r) => (release = r))
    const server = await start({
      onData: async (m) => {
        seen.push(m.msgId)
        await gate
      },
      onTaskEvent: (e) => void seen.push(`event ${String(e.msgId)}`),
    })
    const first = post(server, text(7))
    const second = post(server, text(7))
    await new Promise((r) => setTimeout(r, 50))
    release()
    expect((await first).status).toBe(200)
    expect((await second).status).toBe(200)
    expect((await post(server, text(7))).status).toBe(200)
    // Same msgId, other kind of message: not a duplicate.
    expect((await post(server, event(7))).status).toBe(200)
    expect(seen).toEqual([7, 'event 7'])
    expect(server.stats.duplicates).toBe(2)
  })

  it('refuses an appId, sn, msgId or taskId longer than 128 characters with 400 (counted): a 1 MB appId never reaches the handler', async () => {
    const seen: unknown[] = []
    const server = await start({ onData: (m) => void seen.push(m.appId.length), onTaskEvent: () => undefined, maxBodyBytes: 4 * 1024 * 1024 })
    const long = 'a'.repeat(1024 * 1024)
    for (const bad of [text(1, { appId: long }), text(2, { appId: 'x'.repeat(129) }), text(3, { sn: 'S'.repeat(129) }), text(4, { msgId: 'm'.repeat(129) }), text(5, { deviceType: 'd'.repeat(129) }), event(6, 't'.repeat(129))]) {
      const res = await post(server, bad)
      expect(res.status).toBe(400)
      expect(res.json.messages).toMatch(/at most 128 characters/)
    }
    expect(server.stats.refused.malformed).toBe(6)
    expect((await post(server, text(7, { appId: 'x'.repeat(128) }))).status).toBe(200)
    expect(seen).toEqual([128])
  })

  it('remembers a bounded window of msgIds', async () => {
    const seen: unknown[] = []
    const server = await start({ onData: (m) => void seen.push(m.msgId), dedupWindow: 2 })
    for (const id of [1, 2, 3, 1]) await post(server, text(id))
    expect(seen).toEqual([1, 2, 3, 1])
  })

  it('survives malformed pushes, each refused with 400 and counted', async () => {
    const seen: unknown[] = []
    const server = await start({ onData: (m) => void seen.push(m.msgId), onTaskEvent: () => undefined })
    const bad: unknown[] = [
      '{not json',
      '',
      '[]',
      'null',
      { ...text(1), type: 'alarm' },
      { ...text(1), appId: 5 },
      { ...text(1), msgId: -1 },
      { ...text(1), sn: '' },
      { ...text(1), data: { temperature: 'hot' } },
      { ...text(1), data: { magnetic: { x: 1 } } },
      { ...text(1), data: { lonlat: [1] } },
      { ...text(1), data: { leak: 'no' } },
      { ...event(1), data: { resultCode: 2 } },
      { ...event(1), taskId: {} },
      '{"__proto__": {"polluted": true}, "type": "text"}',
    ]
    for (const body of bad) {
      const { status, json } = await post(server, body)
      expect(status, JSON.stringify(body)).toBe(400)
      expect(json.messages).toMatch(/JSON|valid message|object/)
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(server.stats.refused.malformed).toBe(bad.length)
    expect((await post(server, text(2))).status).toBe(200)
    expect(seen).toEqual([2])
  })

  it('refuses an oversized push with 413 (declared or streamed) and keeps working', async () => {
    const seen: unknown[] = []
    const server = await start({ onData: (m) => void seen.push(m.msgId), maxBodyBytes: 2048 })
    const big = JSON.stringify(text(1, { data: { customer: 'x'.repeat(5000) } }))
    expect((await post(server, big)).status).toBe(413)
    // Chunked, without a Content-Length: the cap holds while streaming.
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(server.url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      for (let i = 0; i < 10; i++) req.write('x'.repeat(1000))
      req.end()
    })
    expect(streamed).toBe(413)
    expect(server.stats.refused.too_large).toBe(2)
    expect((await post(server, text(2))).status).toBe(200)
    expect(seen).toEqual([2])
  })

  it('refuses an encrypted push without a decrypt hook, with a message that says what to do', async () => {
    const errors: WebhookError[] = []
    const seen: unknown[] = []
    const server = await start({ onData: (m) => void seen.push(m), onError: (e) => errors.push(e) })
    const { status, json } = await post(server, { appId: 'app-1', type: 'text', msgId: 5, createdTime: 1, encryptData: 'q83vEjRWeJA=' })
    expect(status).toBe(501)
    expect(json.messages).toMatch(/decrypt hook/)
    expect(errors[0]).toBeInstanceOf(WebhookError)
    expect(errors[0]).toMatchObject({ code: 'encrypted', msgId: '5' })
    expect(seen).toEqual([])
  })

  it('opens encryptData with the decrypt hook; a throwing hook refuses the push', async () => {
    const seen: DataMessage[] = []
    const server = await start({
      onData: (m) => void seen.push(m),
      decrypt: (cipher) => {
        if (cipher === 'broken') throw new Error('bad tag')
        return Buffer.from(cipher, 'base64').toString('utf8')
      },
    })
    const inner = JSON.stringify(text(11))
    expect((await post(server, { appId: 'app-1', type: 'text', msgId: 11, createdTime: 1, encryptData: Buffer.from(inner).toString('base64') })).status).toBe(200)
    expect(seen[0]).toMatchObject({ sn: '70B3D5000001', data: { temperature: 21.5 } })
    expect(seen[0]).not.toHaveProperty('encryptData')
    expect((await post(server, { appId: 'app-1', type: 'text', msgId: 12, createdTime: 1, encryptData: 'broken' })).status).toBe(400)
    expect(server.stats.refused.decrypt_failed).toBe(1)
  })

  it('refuses a push the verify hook rejects (or throws on) with 401, without calling the handler', async () => {
    const seen: unknown[] = []
    const server = await start({
      onData: (m) => void seen.push(m.msgId),
      verify: ({ headers, body }) => {
        if (headers['x-sig'] === 'boom') throw new Error('verifier crashed')
        return headers['x-sig'] === `len-${body.length}`
      },
    })
    const body = JSON.stringify(text(1))
    expect((await post(server, body, { 'x-sig': 'wrong' })).status).toBe(401)
    expect((await post(server, body, { 'x-sig': 'boom' })).status).toBe(401)
    expect((await post(server, body, { 'x-sig': `len-${body.length}` })).status).toBe(200)
    expect(seen).toEqual([1])
    expect(server.stats.refused.unverified).toBe(2)
  })

  it('answers 405 to anything but POST; acknowledges a message of a kind it has no handler for', async () => {
    const server = await start({ onData: () => undefined })
    expect((await post(server, undefined, {}, 'GET')).status).toBe(405)
    expect((await post(server, event(1))).status).toBe(200)
    expect(server.stats).toMatchObject({ unhandled: 1, refused: { method_not_allowed: 1 } })
  })

  it('refuses options it cannot work with', async () => {
    await expect(startWebhookServer({ port: 0 })).rejects.toThrow(InvalidOptionError)
    await expect(startWebhookServer({ port: -1, onData: () => undefined })).rejects.toMatchObject({ option: 'port' })
    await expect(startWebhookServer({ port: 0, onData: () => undefined, maxBodyBytes: 0 })).rejects.toMatchObject({ option: 'maxBodyBytes' })
  })
})
