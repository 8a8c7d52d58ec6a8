import { inspect } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { Advertisement } from '../../../src/advertisement.js'
import type { EspHomeError } from '../../../src/inputs/esphome/errors.js'
import { MSG } from '../../../src/inputs/esphome/messages.js'
import { EspHomeProxy } from '../../../src/inputs/esphome/proxy.js'
import type { EspHomeProxyEvents, EspHomeProxyOptions } from '../../../src/inputs/esphome/proxy.js'
import { FakeEspHomeDevice } from '../../support/esphome-device.js'
import type { FakeDeviceOptions } from '../../support/esphome-device.js'

const KEY = Buffer.alloc(32, 7)
const OTHER_KEY = Buffer.alloc(32, 9)
/** An iBeacon (flags, Apple manufacturer data) and a name in the scan response. */
const IBEACON = Buffer.from(
  '020106' + '1aff4c000215' + 'e2c56db5dffb48d2b060d0f5a71096e0' + '0001' + '0002' + 'c5' + '05097461672d',
  'hex',
)
/** Eddystone UID service data. */
const EDDYSTONE = Buffer.from('0303aafe' + '1716aafe00e8' + '00112233445566778899' + 'aabbccddeeff' + '0000', 'hex')

const devices: FakeEspHomeDevice[] = []
const proxies: EspHomeProxy[] = []

afterEach(async () => {
  for (const p of proxies.splice(0)) p.stop()
  for (const d of devices.splice(0)) await d.close()
})

async function device(options: FakeDeviceOptions = {}): Promise<FakeEspHomeDevice> {
  const d = await FakeEspHomeDevice.start(options)
  devices.push(d)
  return d
}

function proxy(d: FakeEspHomeDevice, options: Partial<EspHomeProxyOptions> = {}): EspHomeProxy {
  const p = new EspHomeProxy({
    host: '127.0.0.1',
    port: d.port,
    reconnect: { initialDelayMs: 20, maxDelayMs: 50 },
    ...options,
  })
  proxies.push(p)
  p.start()
  return p
}

function next<K extends 'connected' | 'disconnected' | 'error' | 'quiet'>(
  p: EspHomeProxy,
  event: K,
): Promise<Parameters<EspHomeProxyEvents[K]>[0]> {
  return new Promise((resolve) => p.once(event, resolve as never))
}

function heard(p: EspHomeProxy, n: number): Promise<Array<{ adv: Advertisement; gateway: string }>> {
  const out: Array<{ adv: Advertisement; gateway: string }> = []
  return new Promise((resolve) => {
    const on = (adv: Advertisement, gateway: string): void => {
      out.push({ adv, gateway })
      if (out.length === n) {
        p.off('advertisement', on)
        resolve(out)
      }
    }
    p.on('advertisement', on)
  })
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5))
}

describe('EspHomeProxy against a fake device', () => {
  for (const encrypted of [false, true]) {
    it(`streams raw advertisements as beaconkit advertisements (${encrypted ? 'Noise' : 'plaintext'})`, async () => {
      const d = await device({ name: 'hall-proxy', key: encrypted ? KEY : undefined })
      const p = proxy(d, { key: encrypted ? KEY : undefined })
      const info = await next(p, 'connected')
      expect(info.name).toBe('hall-proxy')
      expect(info.macAddress).toBe('AC:BC:32:89:0E:A9')
      await until(() => d.subscribed)
      const got = heard(p, 2)
      d.advertise([
        { address: 'c0:11:22:33:44:55', rssi: -61, addressType: 1, data: IBEACON },
        { address: '00:11:22:33:44:66', rssi: -70, data: EDDYSTONE },
      ])
      const [a, b] = await got
      expect(a.gateway).toBe('hall-proxy')
      expect(a.adv).toMatchObject({ address: 'c0:11:22:33:44:55', addressType: 'random', rssi: -61, localName: 'tag-' })
      expect(Buffer.from(a.adv.manufacturerData as Uint8Array).toString('hex')).toBe(
        IBEACON.subarray(5, 30).toString('hex'),
      )
      expect(b.adv.addressType).toBe('public')
      expect(b.adv.serviceData?.[0].uuid).toBe('feaa')
      expect(Buffer.from(b.adv.serviceData?.[0].data as Uint8Array).toString('hex')).toBe(
        '00e800112233445566778899aabbccddeeff0000',
      )
      // Hello, Connect (API 1.10 needs it), DeviceInfo, then the subscription.
      expect(d.received.slice(0, 4)).toEqual([MSG.HelloRequest, MSG.ConnectRequest, MSG.DeviceInfoRequest, 66])
    })
  }

  it('accepts the parsed advertisements of an older proxy in the same shape', async () => {
    const d = await device({ advertisements: 'parsed' })
    const p = proxy(d)
    await next(p, 'connected')
    await until(() => d.subscribed)
    const got = heard(p, 2)
    d.advertise([
      { address: 'c0:11:22:33:44:55', rssi: -61, addressType: 1, data: IBEACON },
      { address: '00:11:22:33:44:66', rssi: -70, data: EDDYSTONE },
    ])
    const [a, b] = await got
    expect(Buffer.from(a.adv.manufacturerData as Uint8Array).toString('hex')).toBe(
      IBEACON.subarray(5, 30).toString('hex'),
    )
    expect(a.adv.localName).toBe('tag-')
    expect(b.adv.serviceData?.[0].uuid).toBe('feaa')
  })

  it('sends no ConnectRequest to a device whose hello authenticates (API 1.12)', async () => {
    const d = await device({ apiMinor: 12 })
    const p = proxy(d)
    await next(p, 'connected')
    await until(() => d.subscribed)
    expect(d.received).not.toContain(MSG.ConnectRequest)
  })

  it('answers the device pings and time requests', async () => {
    const d = await device({ keepaliveMs: 40, askTime: true })
    const p = proxy(d)
    await next(p, 'connected')
    await until(() => d.received.includes(MSG.PingResponse) && d.received.includes(MSG.GetTimeResponse))
    expect(p.device?.name).toBe('proxy-test')
  })

  it('never shows the key: not in util.inspect of the proxy, mid-handshake or connected', async () => {
    const d = await device({ key: KEY })
    const p = proxy(d, { key: KEY })
    const shown = [inspect(p, { showHidden: true, depth: Infinity })]
    await next(p, 'connected')
    shown.push(inspect(p, { showHidden: true, depth: Infinity }))
    for (const text of shown) {
      expect(text).not.toContain(KEY.toString('hex').slice(0, 16))
      expect(text).not.toContain('7, 7, 7, 7')
      expect(text).not.toContain('07 07 07 07')
      expect(text).not.toContain(KEY.toString('base64').slice(0, 16))
    }
  })

  it('names the device and the wrong key, and keeps retrying', async () => {
    const d = await device({ name: 'attic', key: KEY })
    const p = proxy(d, { key: OTHER_KEY })
    const error = (await next(p, 'error')) as EspHomeError
    expect(error.code).toBe('wrong_key')
    expect(error.message).toContain(`127.0.0.1:${d.port} (attic)`)
    expect(error.message).not.toContain(OTHER_KEY.toString('base64'))
    await until(() => d.accepted >= 2)
  })

  it('tells an encryption mismatch either way', async () => {
    const plainDevice = await device()
    const noiseDevice = await device({ key: KEY })
    const a = proxy(plainDevice, { key: KEY })
    const b = proxy(noiseDevice)
    const [ea, eb] = await Promise.all([next(a, 'error'), next(b, 'error')])
    expect(ea.code).toBe('encryption_mismatch')
    expect(eb.code).toBe('encryption_mismatch')
  })

  it('drops a device sending garbage or a 16 MB frame and leaves another proxy streaming', async () => {
    const good = await device({ name: 'good' })
    const garbage = await device({ misbehave: 'garbage' })
    const huge = await device({ misbehave: 'huge-frame' })
    const g = proxy(good)
    await next(g, 'connected')
    const [e1, e2] = await Promise.all([next(proxy(garbage), 'error'), next(proxy(huge), 'error')])
    expect(e1.code).toBe('protocol')
    expect(e2.code).toBe('frame_too_large')
    expect(e2.message).toContain(`127.0.0.1:${huge.port} (proxy-test)`)
    await until(() => garbage.accepted >= 2 && huge.accepted >= 2)
    await until(() => good.subscribed)
    const got = heard(g, 1)
    good.advertise([{ address: 'c0:11:22:33:44:55', rssi: -50, data: IBEACON }])
    expect((await got)[0].gateway).toBe('good')
  })

  it('closes a stalled device as silent and reconnects once it answers again', async () => {
    const d = await device({ misbehave: 'stall' })
    const p = proxy(d, { pingIntervalMs: 30, silenceMs: 120 })
    await next(p, 'connected')
    await until(() => d.subscribed)
    d.advertise([{ address: 'c0:11:22:33:44:55', rssi: -50, data: IBEACON }])
    const lost = (await next(p, 'disconnected')) as EspHomeError
    expect(lost.code).toBe('silent')
    d.misbehave = undefined
    await next(p, 'connected')
  })

  it('tells a device that asks for an API password', async () => {
    const d = await device({ password: 'secret' })
    const p = proxy(d)
    const error = await next(p, 'error')
    expect(error.code).toBe('password_required')
    expect(error.message).toContain('api: encryption: key:')
  })

  it('goes offline when the device says goodbye, and comes back', async () => {
    const d = await device()
    const p = proxy(d)
    await next(p, 'connected')
    const lost = next(p, 'disconnected')
    d.goodbye()
    expect((await lost).code).toBe('closed')
    await until(() => d.received.includes(MSG.DisconnectResponse))
    await next(p, 'connected')
  })

  it('gives up on a device that never answers the hello', async () => {
    const d = await device({ misbehave: 'silent' })
    const p = proxy(d, { setupTimeoutMs: 100 })
    expect((await next(p, 'error')).code).toBe('timeout')
  })

  it('is offline when the device drops and online again by itself', async () => {
    const d = await device()
    const p = proxy(d)
    await next(p, 'connected')
    const lost = next(p, 'disconnected')
    d.drop()
    expect((await lost).code).toBe('unreachable')
    await next(p, 'connected')
    expect(p.stats.connects).toBe(2)
  })

  it('drops messages over the rate bound and counts them', async () => {
    const d = await device({ advertisements: 'parsed' })
    const p = proxy(d, { maxMessagesPerSecond: 2 })
    await next(p, 'connected')
    await until(() => d.subscribed)
    const got = heard(p, 2)
    const five = Array.from({ length: 5 }, (_, i) => ({ address: `c0:11:22:33:44:5${i}`, rssi: -50, data: IBEACON }))
    d.advertise(five)
    expect((await got).map((h) => h.adv.address)).toEqual(['c0:11:22:33:44:50', 'c0:11:22:33:44:51'])
    p.stop()
    expect(p.stats.dropped).toBeGreaterThanOrEqual(1)
  })
})

describe('two clients subscribed to one proxy (bluetooth_proxy.cpp subscribe_api_connection)', () => {
  it('serves the first subscriber only; the second hears nothing until the first leaves', async () => {
    const d = await device()
    const first = proxy(d, { clientInfo: 'Home Assistant' })
    await next(first, 'connected')
    await until(() => d.subscribed)
    const second = proxy(d, { clientInfo: 'beaconkit' })
    await next(second, 'connected')
    await until(() => d.received.filter((t) => t === 66).length === 2)
    let secondHeard = 0
    second.on('advertisement', () => secondHeard++)
    const got = heard(first, 1)
    d.advertise([{ address: 'c0:11:22:33:44:55', rssi: -50, data: IBEACON }])
    await got
    expect(secondHeard).toBe(0)
    expect(d.hellos).toEqual(['Home Assistant', 'beaconkit'])
  })

  it('tells when a connected proxy stays quiet, and takes it over once the other subscriber leaves', async () => {
    const d = await device()
    const first = proxy(d)
    await next(first, 'connected')
    await until(() => d.subscribed)
    const second = proxy(d, { quietMs: 50 })
    const info = await new Promise((resolve) => second.once('quiet', resolve))
    expect(info).toMatchObject({ name: 'proxy-test' })
    expect(first.stats.connects).toBe(1)
    // Home Assistant lets go: the quiet client's next subscription takes the proxy over.
    first.stop()
    await until(() => d.subscribed && d.connections === 1)
    const got = heard(second, 1)
    d.advertise([{ address: 'c0:11:22:33:44:55', rssi: -50, data: IBEACON }])
    expect((await got)[0].gateway).toBe('proxy-test')
  })
})
