import { afterEach, describe, expect, it } from 'vitest'
import { EspHomeInputs } from '../../../src/inputs/esphome/inputs.js'
import { EspHomeKeys } from '../../../src/inputs/esphome/keys.js'
import { FakeEspHomeDevice } from '../../support/esphome-device.js'

const KEY = Buffer.alloc(32, 3)
const IBEACON = Buffer.from('0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5', 'hex')
const open: Array<{ stop(): void } | FakeEspHomeDevice> = []

afterEach(async () => {
  for (const o of open.splice(0))
    if (o instanceof FakeEspHomeDevice) await o.close()
    else o.stop()
})

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5))
}

describe('EspHomeInputs', () => {
  it('runs a plaintext and an encrypted proxy side by side, each its own gateway', async () => {
    const plain = await FakeEspHomeDevice.start({ name: 'hall' })
    const noise = await FakeEspHomeDevice.start({ name: 'attic', key: KEY })
    open.push(plain, noise)
    const keys = EspHomeKeys.fromText(`127.0.0.1:${noise.port} ${KEY.toString('base64')}`)
    const inputs = new EspHomeInputs({
      targets: [
        { host: '127.0.0.1', port: plain.port },
        { host: '127.0.0.1', port: noise.port },
        { host: '127.0.0.1', port: plain.port },
      ],
      keys,
    })
    open.push(inputs)
    const online: string[] = []
    const heard: string[] = []
    inputs.on('online', (gateway) => online.push(gateway))
    inputs.on('advertisement', (adv, gateway) => heard.push(`${gateway} ${adv.address}`))
    inputs.start()
    expect(inputs.proxies.size).toBe(2)
    await until(() => plain.subscribed && noise.subscribed)
    plain.advertise([{ address: 'c0:11:22:33:44:55', rssi: -60, data: IBEACON }])
    noise.advertise([{ address: 'c0:11:22:33:44:66', rssi: -60, data: IBEACON }])
    await until(() => heard.length === 2)
    expect(online.sort()).toEqual(['attic', 'hall'])
    expect(heard.sort()).toEqual(['attic c0:11:22:33:44:66', 'hall c0:11:22:33:44:55'])
  })

  it('refuses a proxy named like a native gateway or another proxy, and a name that is not an id', async () => {
    const a = await FakeEspHomeDevice.start({ name: 'kitchen-pi' })
    const b = await FakeEspHomeDevice.start({ name: 'hall' })
    const c = await FakeEspHomeDevice.start({ name: 'hall' })
    const d = await FakeEspHomeDevice.start({ name: 'bad name' })
    open.push(a, b, c, d)
    const inputs = new EspHomeInputs({
      targets: [a, b, c, d].map((x) => ({ host: '127.0.0.1', port: x.port })),
      isNative: (id) => id === 'kitchen-pi',
    })
    open.push(inputs)
    const errors: string[] = []
    const online: string[] = []
    inputs.on('error', (e) => errors.push(e.message))
    inputs.on('online', (g) => online.push(g))
    inputs.start()
    await until(() => errors.length === 3)
    expect(online).toEqual(['hall'])
    expect(errors.join('\n')).toMatch(/kitchen-pi is a beaconkit gateway's/)
    expect(errors.join('\n')).toMatch(/hall is already the proxy 127\.0\.0\.1:\d+'s/)
    expect(errors.join('\n')).toMatch(/"bad name" cannot be a gateway id/)
  })

  it('goes offline and online again when a proxy drops', async () => {
    const d = await FakeEspHomeDevice.start({ name: 'hall' })
    open.push(d)
    const inputs = new EspHomeInputs({
      targets: [{ host: '127.0.0.1', port: d.port }],
      proxy: { reconnect: { initialDelayMs: 20, maxDelayMs: 40 } },
    })
    open.push(inputs)
    const changes: string[] = []
    inputs.on('online', (g) => changes.push(`online ${g}`))
    inputs.on('offline', (g, _t, e) => changes.push(`offline ${g} ${e.code}`))
    inputs.start()
    await until(() => changes.length === 1)
    d.drop()
    await until(() => changes.length === 3)
    expect(changes).toEqual(['online hall', 'offline hall unreachable', 'online hall'])
  })
})
