/**
 * What a proxy relays decodes like what a local adapter hears: the vendor's encrypted 0x81E7
 * examples, sent by a fake proxy (Noise; raw batches and the parsed messages of older proxies),
 * come out of EspHomeProxy as advertisements that decodeAdvertisement decrypts and verifies with
 * the keyring, field for field as in test/secure/decode-encrypted.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Advertisement } from '../../../src/advertisement.js'
import { decodeAdvertisement } from '../../../src/decode/decode.js'
import { EspHomeProxy } from '../../../src/inputs/esphome/proxy.js'
import { Keyring } from '../../../src/secure/keyring.js'
import { FakeEspHomeDevice } from '../../support/esphome-device.js'
import { loadVectors } from '../../support/vectors.js'

interface Vector {
  mode: string
  key: string
  advertisement: { address: string; rssi: number; serviceData: { uuid: string; data: string }[] }
  expect: Record<string, unknown>
}
const { encrypted } = loadVectors<{ encrypted: Vector[] }>('vendor-examples.json')
const KEY = Buffer.alloc(32, 0x61)
const open: Array<EspHomeProxy | FakeEspHomeDevice> = []

afterEach(async () => {
  for (const o of open.splice(0))
    if (o instanceof EspHomeProxy) o.stop()
    else await o.close()
})

/** The AD bytes on air: flags, then each 16-bit service data element (uuid little-endian). */
function adBytes(v: Vector): Buffer {
  const parts = [Buffer.from('020106', 'hex')]
  for (const s of v.advertisement.serviceData) {
    const uuid = parseInt(s.uuid, 16)
    const data = Buffer.from(s.data, 'hex')
    parts.push(Buffer.from([data.length + 3, 0x16, uuid & 0xff, uuid >> 8]), data)
  }
  return Buffer.concat(parts)
}

describe('private broadcasts relayed by an ESPHome proxy', () => {
  for (const mode of ['raw', 'parsed'] as const) {
    it(`decrypt and verify with the keyring (${mode} advertisements)`, async () => {
      const device = await FakeEspHomeDevice.start({ name: 'attic', key: KEY, advertisements: mode })
      const proxy = new EspHomeProxy({ host: '127.0.0.1', port: device.port, key: KEY })
      open.push(proxy, device)
      const heard: Advertisement[] = []
      proxy.on('advertisement', (adv) => heard.push(adv))
      const connected = new Promise((resolve) => proxy.once('connected', resolve))
      proxy.start()
      await connected
      while (!device.subscribed) await new Promise((r) => setTimeout(r, 5))
      device.advertise(
        encrypted.map((v) => ({
          address: v.advertisement.address,
          rssi: v.advertisement.rssi,
          addressType: 1,
          data: adBytes(v),
        })),
      )
      while (heard.length < encrypted.length) await new Promise((r) => setTimeout(r, 5))
      const keyring = new Keyring(encrypted.map((v) => v.key))
      encrypted.forEach((v, i) => {
        const reading = decodeAdvertisement(heard[i], { keyring })
        expect(reading).toMatchObject(v.expect)
        expect(heard[i]).toMatchObject({ address: v.advertisement.address, rssi: v.advertisement.rssi })
      })
    })
  }
})
