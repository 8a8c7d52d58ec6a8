// Issue #23 item 12: a webhook handler that never finishes. Every push is answered 503 within
// handlerTimeoutMs (the platform pushes it again), the server keeps answering, and closes at once.
import { describe, expect, it } from 'vitest'
import { startWebhookServer } from '../../src/developer/webhook-server.js'
import { createWebhookHandler } from '../../src/developer/webhook.js'
import { DEFAULT_HANDLER_TIMEOUT_MS } from '../../src/developer/webhook-options.js'
import { InvalidOptionError, WebhookError } from '../../src/errors.js'

const text = (msgId: number): Record<string, unknown> => ({ appId: 'app-1', sn: '70B3D5000001', type: 'text', deviceType: 'temp_humi', createdTime: 1_767_225_600_000, msgId, data: { temperature: 21.5 } })

async function post(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await res.text()
  return res.status
}

describe('webhook handler timeout', () => {
  it('answers 503 to every push whose handler never resolves, stays responsive, and closes promptly', async () => {
    const refused: WebhookError[] = []
    const server = await startWebhookServer({ port: 0, handlerTimeoutMs: 300, onData: () => new Promise<void>(() => undefined), onError: (e) => refused.push(e) })
    try {
      const started = Date.now()
      const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => post(server.url, text(i + 1))))
      // Bound on a hang, not a speed: the handlers never finish, the answers must still come.
      expect(Date.now() - started).toBeLessThan(20_000)
      expect(statuses).toEqual(Array<number>(50).fill(503))
      expect(server.stats.refused.handler_timeout).toBe(50)
      expect(refused[0]).toMatchObject({ code: 'handler_timeout', status: 503 })
      // Still answering while 50 handlers hang.
      expect((await fetch(server.url)).status).toBe(405)
    } finally {
      const closing = Date.now()
      await server.close()
      expect(Date.now() - closing).toBeLessThan(5000)
    }
  }, 30_000)

  it('answers 503 when the handler rejects with a WebhookError "unavailable" (its downstream is full)', async () => {
    const server = await startWebhookServer({
      port: 0,
      onData: () => Promise.reject(new WebhookError('unavailable', 'the queue is full', { status: 503 })),
    })
    try {
      expect(await post(server.url, text(1))).toBe(503)
      expect(server.stats.refused.unavailable).toBe(1)
    } finally {
      await server.close()
    }
  })

  it('has a documented default and refuses a bad value', () => {
    expect(DEFAULT_HANDLER_TIMEOUT_MS).toBe(10_000)
    expect(() => createWebhookHandler({ onData: () => undefined, handlerTimeoutMs: 0 })).toThrow(InvalidOptionError)
  })
})
