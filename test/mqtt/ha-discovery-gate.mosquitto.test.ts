// Issue #23 item 7: a spoofer cannot pollute Home Assistant through a gateway's discovery. 2,000
// spoofed iBeacons, one packet each, leave no discovery config on a real Mosquitto; a beacon
// heard past the dwell is announced (configs that pass HA's discovery rules); a device known
// only by its address never is; once gone past the expiry, its configs are removed. Through the
// publisher API on a virtual clock, and as the command: `replay … --virtual --mqtt … --ha`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VirtualClock } from '../../src/clock.js'
import { formatAdvertisementLine, parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { encodeEddystoneTlm } from '../../src/frames/eddystone.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { discoveryProblems } from '../support/ha-schema.js'
import { PushSource } from '../support/push-source.js'
import { waitFor } from '../integration/wait.js'
import { header, ibeaconLine, T0, vendorLine } from '../sources/helpers.js'
import { startCli } from '../cli/run-cli.js'

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

/** A random static address for spoofed device `i`. */
const spoofAddress = (i: number): string => `c${(i >> 16) & 15}:${[(i >> 8) & 255, i & 255, 1, 2, 3].map((n) => n.toString(16).padStart(2, '0')).join(':')}`

const TLM = encodeEddystoneTlm({ version: 0, batteryMilliVolts: 2950, temperature: 21.5, advertisingCount: 1000, secondsSinceBoot: 3600 })
/** A device that sends only Eddystone-TLM: no serial, beaconID or UID, so known by its address alone. */
const tlmLine = (ms: number): string => formatAdvertisementLine({ address: 'd1:22:33:44:55:66', rssi: -65, timestamp: T0 + ms, serviceData: [{ uuid: 'feaa', data: TLM }] })

const STEADY = '0117C5000007'
/** A beacon entity of gateway `hall`: `<ha>/<component>/beaconkit_hall/<obj>_<field>/config` → `<obj>`. */
const BEACON = /\/beaconkit_hall\/([a-z0-9_]+?)_(?:temperature|light|battery|rssi|distance|accelerometer_count|moving)\/config$/
const DEVICE = 2
const HA = 'ha-gate'
const EXPIRE_MS = 10 * 60_000

describe.skipIf(!MOSQUITTO)(needsMosquitto('Home Assistant discovery gate of a gateway, through Mosquitto'), () => {
  let broker: Mosquitto
  const clock = new VirtualClock(T0)
  const source = new PushSource(clock)
  const scanner = new BeaconScanner({ source })
  let publisher: MqttPublisher
  let t = 0

  /** Moves virtual time to T0 + `until`, the steady beacon (and the address-only device) sending once a second. */
  const run = (until: number, steady: boolean): void => {
    for (; t < until; t += 1000) {
      clock.advanceTo(T0 + t)
      if (!steady) continue
      source.emit('advertisement', adv(vendorLine(t, 'aa:00:00:00:00:07', STEADY, { temperature: 21 })))
      source.emit('advertisement', adv(tlmLine(t)))
    }
    clock.advanceTo(T0 + t)
  }

  beforeAll(async () => {
    broker = await Mosquitto.start()
    publisher = new MqttPublisher({ url: broker.url, gatewayId: 'hall', homeAssistant: { prefix: HA, expireMs: EXPIRE_MS } })
    publisher.attach(scanner)
    const connected = new Promise((resolve) => publisher.once('connected', resolve))
    await publisher.connect()
    await connected
    await scanner.start()
  }, 60_000)

  afterAll(async () => {
    await scanner.stop()
    await publisher?.close()
    await broker?.close()
  })

  it('announces nothing for 2,000 spoofed iBeacons of one packet each', async () => {
    // Every config as it is published (reading thousands back as retained would hit the broker's queue limit).
    const live = await Subscriber.connect(broker.url, [`${HA}/#`, 'beaconkit-test/marker/#'])
    // 2,000 spoofed iBeacons over 20 s, 100 per second, each heard once (distinct beaconIDs and addresses).
    for (let i = 0; i < 2000; i++) {
      if (i % 100 === 0) run(Math.floor(i / 100) * 1000, true)
      source.emit('advertisement', adv(ibeaconLine(t, spoofAddress(i), 1 + (i >> 8), i & 255)))
    }
    // Long enough for every spoof to have gone and for the steady beacon to pass its dwell.
    run(90_000, true)
    expect(await publisher.flush(30_000)).toBe(true)
    await live.sync()
    await live.close()
    // Beacon entities only (the gateway device's two configs are not a beacon's).
    const published = new Set(live.messages.filter((m) => m.topic.startsWith(`${HA}/`) && !m.topic.includes('/beaconkit_gw_hall/')).map((m) => BEACON.exec(m.topic)?.[1]))
    expect(published).toEqual(new Set([STEADY.toLowerCase()]))
    const configs = new Map([...(await retainedMessages(broker.url, `${HA}/#`))].filter(([topic]) => !topic.includes('/beaconkit_gw_hall/')))
    const ids = new Set([...configs.keys()].map((topic) => BEACON.exec(topic)?.[1]))
    // Only the steady beacon: no spoofed iBeacon, no device known by its address alone.
    expect([...ids].filter((id) => id?.startsWith('0117c5') !== true)).toEqual([])
    expect(ids).toEqual(new Set([STEADY.toLowerCase()]))
    for (const [topic, payload] of configs) expect(discoveryProblems(topic, payload), topic).toEqual([])
    expect(publisher.stats.homeAssistant).toEqual({ announced: 1, refused: 0, removed: 0, beacons: 'auto', mode: 'standalone', withdrawn: 0, legacyRemoved: 0 })
  }, 120_000)

  it('removes the configs of a beacon gone for longer than the expiry', async () => {
    const before = await retainedMessages(broker.url, `${HA}/#`)
    expect(before.size).toBeGreaterThan(DEVICE)
    // Silent: gone after the scanner's timeout, its configs kept until the expiry.
    run(t + EXPIRE_MS - 60_000, false)
    expect(await publisher.flush(30_000)).toBe(true)
    expect((await retainedMessages(broker.url, `${HA}/#`)).size).toBe(before.size)
    run(t + 120_000, false)
    await waitFor(() => publisher.stats.homeAssistant?.removed === 1, 'the expiry')
    expect(await publisher.flush(30_000)).toBe(true)
    // Only the gateway's own device is left.
    expect((await retainedMessages(broker.url, `${HA}/#`)).size).toBe(DEVICE)
  }, 120_000)
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('beaconkit replay --virtual --mqtt --ha with 2,000 spoofed iBeacons, against Mosquitto'), () => {
  let broker: Mosquitto
  let dir: string

  beforeAll(async () => {
    broker = await Mosquitto.start()
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-ha-spoof-'))
  })

  afterAll(async () => {
    await broker?.close()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('leaves discovery configs of the one beacon heard past the dwell, none of the spoofs', async () => {
    // 2,000 spoofed iBeacons over 50 s, one packet each, and one real beacon sending every second for 60 s.
    const lines = [header()]
    let spoofs = 0
    for (let ms = 0; ms < 60_000; ms += 50) {
      if (ms % 1000 === 0) lines.push(vendorLine(ms, 'aa:00:00:00:00:07', STEADY))
      for (let k = 0; k < 2 && spoofs < 2000; k++, spoofs++) lines.push(ibeaconLine(ms + 10 * k, spoofAddress(spoofs), 1 + (spoofs >> 8), spoofs & 255))
    }
    const file = join(dir, 'spoof.jsonl')
    await writeFile(file, `${lines.join('\n')}\n`)
    const live = await Subscriber.connect(broker.url, ['homeassistant/#', 'beaconkit-test/marker/#'])
    const run = startCli(['replay', file, '--virtual', '--mqtt', broker.url, '--gateway-id', 'hall', '--ha', '--json'])
    const result = await run.done
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    await live.sync()
    await live.close()
    const published = live.messages.filter((m) => m.topic.startsWith('homeassistant/') && !m.topic.includes(`/beaconkit_hall/${STEADY.toLowerCase()}_`) && !m.topic.includes('/beaconkit_gw_hall/'))
    expect(published.length, 'configs of other beacons than the real one').toBe(0)
    const found = result.stdout.split('\n').filter((l) => l.includes('"event":"found"')).length
    expect(found).toBe(2001)
    const configs = new Map([...(await retainedMessages(broker.url, 'homeassistant/#'))].filter(([topic]) => !topic.includes('/beaconkit_gw_hall/')))
    expect(configs.size).toBeGreaterThan(0)
    for (const [topic, payload] of configs) {
      expect(topic).toContain(`/beaconkit_hall/${STEADY.toLowerCase()}_`)
      expect(discoveryProblems(topic, payload), topic).toEqual([])
    }
  }, 120_000)
})
