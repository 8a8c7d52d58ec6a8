// A gateway's `beacons:` names (a config file's list): a named beacon's Home Assistant device is
// called by its name, and with a list, only listed beacons are announced. Through a real
// Mosquitto, as Home Assistant would read the retained configs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { VirtualClock } from '../../src/clock.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { BeaconNames } from '../../src/positioning/beacon-names.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { PushSource } from '../support/push-source.js'
import { T0, vendorLine } from '../sources/helpers.js'

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('a gateway with named beacons, through Mosquitto'), () => {
  let broker: Mosquitto
  beforeAll(async () => {
    broker = await Mosquitto.start()
  })
  afterAll(async () => {
    await broker.stop()
  })

  it('calls the listed beacon by its name and announces no unlisted one', async () => {
    const clock = new VirtualClock(T0)
    const source = new PushSource(clock)
    const scanner = new BeaconScanner({ source })
    const names = new BeaconNames([{ serialNumber: '0117C5000041', name: 'Kettle' }])
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'kitchen', topicPrefix: 'named', homeAssistant: { prefix: 'ha-named', dwellMs: 0, names } })
    publisher.attach(scanner)
    await publisher.connect()
    await scanner.start()
    for (let ms = 0; ms <= 3000; ms += 1000) {
      clock.advanceTo(T0 + ms)
      source.emit('advertisement', adv(vendorLine(ms, 'aa:00:00:00:00:41', '0117C5000041', { temperature: 21 })))
      source.emit('advertisement', adv(vendorLine(ms, 'aa:00:00:00:00:42', '0117C5000042', { temperature: 22 })))
    }
    expect(await publisher.flush(10_000)).toBe(true)
    const configs = await retainedMessages(broker.url, 'ha-named/#')
    const beaconConfigs = [...configs].filter(([topic]) => /\/beaconkit_kitchen\/0117c50000\d\d_/.test(topic))
    expect(beaconConfigs.length).toBeGreaterThan(0)
    for (const [topic, payload] of beaconConfigs) {
      expect(topic).toContain('0117c5000041')
      expect((JSON.parse(payload) as { device: { name: string } }).device.name).toBe('Kettle')
    }
    await scanner.stop()
    await publisher.close()
  })
})
