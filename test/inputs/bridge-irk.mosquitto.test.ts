// The foreign-input bridge with the fleet's IRK file (issue 37): an OpenMQTTGateway node relays
// a phone's raw resolvable private address (no frame, no address type), and the node's beacon
// is published as irk:<name>; an address of a key the fleet does not hold stays an address.
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ForeignBridge } from '../../src/inputs/bridge.js'
import { parseIdentityKey, rpaFor } from '../../src/secure/identity-key.js'
import { IdentityKeyring } from '../../src/secure/identity-keyring.js'
import { IdentityResolver } from '../../src/secure/identity-resolver.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { Subscriber } from '../support/mqtt-subscriber.js'

const PHONE = parseIdentityKey('alice-phone', 'ec0234a357c8ad05341010a60a397d9b')
const STRANGER = parseIdentityKey('stranger', 'ffeeddccbbaa99887766554433221100')

describe.skipIf(!MOSQUITTO)(
  needsMosquitto('the foreign-input bridge resolves relayed addresses with the IRK file'),
  () => {
    let broker: Mosquitto
    let bridge: ForeignBridge | undefined
    let omg: MqttClient | undefined
    let sub: Subscriber | undefined

    beforeAll(async () => {
      broker = await Mosquitto.start()
    })

    afterAll(async () => {
      await sub?.close()
      omg?.end(true)
      await bridge?.close(1000)
      await broker?.close()
    })

    it('an OMG node’s phone address becomes irk:alice-phone; a stranger’s stays its address', async () => {
      const identities = new IdentityResolver(new IdentityKeyring([PHONE]))
      bridge = new ForeignBridge({
        url: broker.url,
        clientId: 'irk-bridge',
        inputs: [{ format: 'omg', base: 'home' }],
        identities,
      })
      await bridge.start()
      sub = await Subscriber.connect(broker.url, 'beaconkit/gateways/omg-a/#')
      omg = await mqtt.connectAsync(broker.url, { clientId: 'omg-a-esp32', reconnectPeriod: 0 })
      await omg.publishAsync('home/omg-a/LWT', 'online', { retain: true })
      const phone = rpaFor(PHONE, 0x1234).toUpperCase()
      const stranger = rpaFor(STRANGER, 0x4321).toUpperCase()
      const send = (): void => {
        for (const id of [phone, stranger])
          omg?.publish(`home/omg-a/BTtoMQTT/${id.replace(/:/g, '')}`, JSON.stringify({ id, rssi: -60 }))
      }
      const timer = setInterval(send, 100)
      try {
        const seen = (text: string) => (ms: { topic: string; payload: string }[]) =>
          ms.some((m) => m.topic.includes(text) || m.payload.includes(text))
        await sub.until(seen('beacons/irk:alice-phone'), 'the phone published as irk:alice-phone')
        await sub.until(seen(stranger.toLowerCase()), 'the stranger published under its address')
      } finally {
        clearInterval(timer)
      }
      const all = sub.messages.map((m) => `${m.topic} ${m.payload}`).join('\n')
      expect(all).not.toContain('irk:stranger')
      // The phone is one device under its name, never also a device under its private address.
      expect(sub.messages.some((m) => m.topic.endsWith(`/beacons/${phone.toLowerCase()}`))).toBe(false)
      expect(all.toLowerCase()).not.toContain('ec0234a357c8ad05341010a60a397d9b')
      expect(identities.stats.resolved).toBeGreaterThan(0)
    }, 30_000)

    it('an ESPresense report with its own irk:<hex> id is the same irk:alice-phone; the hex is never published', async () => {
      const identities = new IdentityResolver(new IdentityKeyring([PHONE]))
      const espBridge = new ForeignBridge({
        url: broker.url,
        clientId: 'irk-espr-bridge',
        inputs: [{ format: 'espresense', base: 'espresense' }],
        identities,
      })
      await espBridge.start()
      const watch = await Subscriber.connect(broker.url, 'beaconkit/#')
      const espr = await mqtt.connectAsync(broker.url, { clientId: 'esp-b-esp32', reconnectPeriod: 0 })
      try {
        await espr.publishAsync('espresense/rooms/esp_b/status', 'online', { retain: true })
        const hexId = 'irk:ec0234a357c8ad05341010a60a397d9b'
        const mac = rpaFor(PHONE, 0x2222).replace(/:/g, '')
        const report = JSON.stringify({ id: hexId, mac, rssi: -61.5, 'rssi@1m': -59 })
        const timer = setInterval(() => espr.publish(`espresense/devices/${hexId}/esp_b`, report), 100)
        try {
          await watch.until(
            (ms) => ms.some((m) => m.topic === 'beaconkit/gateways/esp_b/beacons/irk:alice-phone'),
            'the ESPresense phone as irk:alice-phone',
          )
        } finally {
          clearInterval(timer)
        }
        const all = watch.messages
          .map((m) => `${m.topic} ${m.payload}`)
          .join('\n')
          .toLowerCase()
        expect(all).not.toContain('ec0234a357c8ad05341010a60a397d9b')
      } finally {
        espr.end(true)
        await watch.close()
        await espBridge.close(1000)
      }
    }, 30_000)
  },
)
