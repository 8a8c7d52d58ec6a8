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
  // Issue #35 item 12: the dwell guards against made-up ids; a beacon the user named is vouched
  // for and announced when first heard, while an unnamed one (no list: every beacon is listed)
  // still waits out the default 30 s dwell.
  it('announces a named beacon when first heard, without the 30 s dwell', async () => {
    const clock = new VirtualClock(T0)
    const source = new PushSource(clock)
    const scanner = new BeaconScanner({ source })
    const names = new BeaconNames([{ serialNumber: '0117C5000051', name: 'Keys' }, { id: '0117C5000053', name: 'Bag' }])
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'porch', topicPrefix: 'vouched', homeAssistant: { prefix: 'ha-vouched', names } })
    publisher.attach(scanner)
    await publisher.connect()
    await scanner.start()
    // Two seconds of hearing, far below the dwell.
    for (let ms = 0; ms <= 2000; ms += 1000) {
      clock.advanceTo(T0 + ms)
      for (const n of ['51', '52', '53']) source.emit('advertisement', adv(vendorLine(ms, `aa:00:00:00:00:${n}`, `0117C50000${n}`, { temperature: 20 })))
    }
    expect(await publisher.flush(10_000)).toBe(true)
    const configs = await retainedMessages(broker.url, 'ha-vouched/#')
    const announced = (serial: string): string[] => [...configs.keys()].filter((topic) => topic.includes(`/beaconkit_porch/${serial.toLowerCase()}_`))
    expect(announced('0117C5000051')).toContain('ha-vouched/sensor/beaconkit_porch/0117c5000051_temperature/config')
    expect(announced('0117C5000053')).toContain('ha-vouched/sensor/beaconkit_porch/0117c5000053_temperature/config')
    expect((JSON.parse(configs.get('ha-vouched/sensor/beaconkit_porch/0117c5000051_temperature/config') ?? '{}') as { device: { name: string } }).device.name).toBe('Keys')
    // Unnamed (and so, with a list, not announced at all).
    expect(announced('0117C5000052')).toEqual([])
    await scanner.stop()
    await publisher.close()
  })
})
