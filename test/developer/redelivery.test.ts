// End to end over loopback: the emulator's developer interface pushes to a real receiver.
// Task events follow downlinks; a push answered non-2xx is pushed again, three pushes in all
// (spec 6.4); a re-push of a message already taken is de-duplicated by msgId; safe mode and
// signatures through the hooks.
import { afterEach, describe, expect, it } from 'vitest'
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator, EmulatorOptions } from '../../src/emulator/emulator.js'
import { DeveloperClient } from '../../src/developer/client.js'
import { createWebhookHandler } from '../../src/developer/webhook.js'
import type { WebhookHandlerOptions } from '../../src/developer/webhook-options.js'
import { startWebhookServer } from '../../src/developer/webhook-server.js'
import type { WebhookServer } from '../../src/developer/webhook-server.js'
import type { DataMessage, TaskEvent } from '../../src/developer/webhook-message.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function pair(handler: Omit<WebhookHandlerOptions, 'maxBodyBytes'>, developer: EmulatorOptions['developer'] = {}): Promise<{ emu: Emulator; receiver: WebhookServer }> {
  const receiver = await startWebhookServer({ port: 0, ...handler })
  closers.push(() => receiver.close())
  const emu = await startEmulator({ webhookUrl: receiver.url, developer: { taskDelayMs: 5, redeliveryDelayMs: 5, ...developer } })
  closers.push(() => emu.close())
  return { emu, receiver }
}

const firstNormal = (emu: Emulator, type = 'co'): string => {
  const d = emu.developer.store.ownDevices().find((x) => x.deviceType === type && x.normalStatus === 0)
  if (d === undefined) throw new Error('no device')
  return d.sn
}

describe('developer emulator → webhook receiver', () => {
  it('pushes a task event for each downlink task once it completes; a task on an offline device fails', async () => {
    const events: TaskEvent[] = []
    const { emu } = await pair({ onTaskEvent: (e) => void events.push(e) })
    const client = new DeveloperClient({ baseUrl: emu.url })
    const offline = emu.developer.store.ownDevices().find((d) => d.normalStatus === 4)?.sn as string
    const sent = await client.setInterval([firstNormal(emu), offline], 900)
    await emu.developer.idle()
    const byTask = new Map(events.map((e) => [e.taskId, e.data.resultCode]))
    expect(byTask).toEqual(new Map(sent.ok.map((t) => [String(t.taskId), t.sn === offline ? 1 : 0])))
    expect(events.every((e) => e.type === 'event' && e.appId === 'emulator-app')).toBe(true)
  })

  it('pushes sensor data and keeps it in the history', async () => {
    const data: DataMessage[] = []
    const { emu } = await pair({ onData: (m) => void data.push(m) })
    const sn = firstNormal(emu, 'temp_humi')
    const delivery = await emu.developer.pushData(sn, { temperature: 19.5, humidity: 48 })
    expect(delivery).toMatchObject({ delivered: true, attempts: [200], type: 'text' })
    expect(data).toEqual([expect.objectContaining({ sn, deviceType: 'temp_humi', type: 'text', msgId: delivery?.msgId, data: { temperature: 19.5, humidity: 48 } })])
    const client = new DeveloperClient({ baseUrl: emu.url })
    expect((await client.deviceHistory(sn, { count: 1 }))[0]).toMatchObject({ msgId: String(delivery?.msgId), data: { temperature: 19.5 } })
  })

  it('pushes again after a non-2xx answer, three pushes in all, then gives up', async () => {
    let calls = 0
    const { emu, receiver } = await pair({
      onData: () => {
        calls++
        throw new Error('always down')
      },
    })
    const delivery = await emu.developer.pushData(firstNormal(emu))
    expect(delivery).toMatchObject({ delivered: false, attempts: [500, 500, 500] })
    expect(calls).toBe(3)
    expect(receiver.stats.refused.handler_failed).toBe(3)
  })

  it('a handler that recovers takes the message on a re-push, once', async () => {
    const seen: unknown[] = []
    const { emu } = await pair({
      onData: (m) => {
        seen.push(m.msgId)
        if (seen.length < 3) throw new Error('not yet')
      },
    })
    const delivery = await emu.developer.pushData(firstNormal(emu))
    expect(delivery).toMatchObject({ delivered: true, attempts: [500, 500, 200] })
    expect(seen).toEqual([delivery?.msgId, delivery?.msgId, delivery?.msgId])
  })

  it('a message taken but whose answer was lost is pushed again and de-duplicated by msgId', async () => {
    const seen: unknown[] = []
    const handler = createWebhookHandler({ onData: (m) => void seen.push(m.msgId) })
    let first = true
    // A proxy in between that turns the first answer into a 502 (the message was taken all the same).
    const server = createServer((req, res) => {
      if (first) {
        first = false
        const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string | number>) => typeof res
        res.writeHead = ((_status: number, headers?: Record<string, string | number>) => writeHead(502, headers)) as typeof res.writeHead
      }
      handler(req, res)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    closers.push(() => new Promise((r) => server.close(() => r())))
    const emu = await startEmulator({ webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, developer: { redeliveryDelayMs: 5 } })
    closers.push(() => emu.close())
    const delivery = await emu.developer.pushData(firstNormal(emu))
    expect(delivery).toMatchObject({ delivered: true, attempts: [502, 200] })
    expect(seen).toEqual([delivery?.msgId])
    expect(handler.stats).toMatchObject({ data: 1, duplicates: 1 })
  })

  it('a receiver that is not there costs three attempts and nothing else', async () => {
    const emu = await startEmulator({ webhookUrl: 'http://127.0.0.1:9/', developer: { redeliveryDelayMs: 5 } })
    closers.push(() => emu.close())
    const delivery = await emu.developer.pushData(firstNormal(emu))
    expect(delivery).toMatchObject({ delivered: false, attempts: [0, 0, 0] })
  })

  it('safe mode and signatures: encryptData opened by the decrypt hook, pushes checked by the verify hook', async () => {
    const appKey = randomBytes(32)
    const appSecret = randomBytes(32)
    // A stand-in cipher and signature: the platform's are not published (spec 5.3, 6.1).
    const encrypt = (plain: string): string => {
      const iv = randomBytes(12)
      const c = createCipheriv('aes-256-gcm', appKey, iv)
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()])
      return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64')
    }
    const decrypt = (text: string): string => {
      const raw = Buffer.from(text, 'base64')
      const d = createDecipheriv('aes-256-gcm', appKey, raw.subarray(0, 12))
      d.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8')
    }
    const sign = (body: string): Record<string, string> => ({ 'x-signature': createHmac('sha256', appSecret).update(body).digest('hex') })
    const data: DataMessage[] = []
    const events: TaskEvent[] = []
    const { emu, receiver } = await pair(
      {
        onData: (m) => void data.push(m),
        onTaskEvent: (e) => void events.push(e),
        decrypt,
        verify: ({ headers, body }) => {
          const want = Buffer.from(sign(body)['x-signature'])
          const got = Buffer.from(String(headers['x-signature']))
          return got.length === want.length && timingSafeEqual(got, want)
        },
      },
      { encrypt, sign },
    )
    const sn = firstNormal(emu)
    await emu.developer.pushData(sn, { battery: 80 })
    await new DeveloperClient({ baseUrl: emu.url }).setInterval([sn], 120)
    await emu.developer.idle()
    expect(data).toEqual([expect.objectContaining({ sn, data: { battery: 80 } })])
    expect(events).toHaveLength(1)
    expect(receiver.stats.refused).toMatchObject({ unverified: 0, decrypt_failed: 0 })
    expect(emu.developer.deliveries.every((d) => d.delivered)).toBe(true)
  })
})
