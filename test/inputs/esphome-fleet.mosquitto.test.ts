// The fleet end to end with ESPHome proxies (#38 "Done when"), against a real Mosquitto: two fake
// proxies (test/support/esphome-device.ts, the wire protocol the firmware speaks) in two rooms —
// `hall` plaintext, `attic` Noise with its key in a 0600 keys file — fed to startFleet through
// the model (`fleet.inputs`, `fleet.esphomeKeys`). Every wait is for a state, with generous limits.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { beaconIdOf, encodeIBeacon } from '../../src/frames/ibeacon.js'
import { startFleet } from '../../src/gateway/start-fleet.js'
import type { RunningFleet } from '../../src/gateway/start-fleet.js'
import { forwardingLogger } from '../../src/log/logger.js'
import type { LogRecord } from '../../src/log/logger.js'
import { Keyring } from '../../src/secure/keyring.js'
import { waitFor } from '../integration/wait.js'
import { runCli } from '../cli/run-cli.js'
import { FakeEspHomeDevice } from '../support/esphome-device.js'
import type { FakeAdvertisement } from '../support/esphome-device.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { loadVectors } from '../support/vectors.js'

interface Vector {
  key: string
  advertisement: { address: string; rssi: number; serviceData: { uuid: string; data: string }[] }
  expect: { serialNumber: string }
}
const { encrypted } = loadVectors<{ encrypted: Vector[] }>('vendor-examples.json')
const TAG = encrypted[0]
const ATTIC_KEY = Buffer.alloc(32, 0x61)
const UUID = 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825'
const IBEACON_ID = beaconIdOf(UUID, 3, 9)
const IBEACON_MD = encodeIBeacon({ proximityUUID: UUID, major: 3, minor: 9, measuredPower: -59 })

/** The private broadcast on air: flags, then its 16-bit service data (uuid little-endian). */
function tagBytes(v: Vector): Buffer {
  const parts = [Buffer.from('020106', 'hex')]
  for (const s of v.advertisement.serviceData) {
    const uuid = parseInt(s.uuid, 16)
    const data = Buffer.from(s.data, 'hex')
    parts.push(Buffer.from([data.length + 3, 0x16, uuid & 0xff, uuid >> 8]), data)
  }
  return Buffer.concat(parts)
}

/** The iBeacon on air: flags, then its manufacturer data. */
const IBEACON_BYTES = Buffer.concat([
  Buffer.from('020106', 'hex'),
  Buffer.from([IBEACON_MD.length + 1, 0xff]),
  Buffer.from(IBEACON_MD),
])

function ibeacon(rssi: number): FakeAdvertisement {
  return { address: 'c3:00:00:00:03:09', rssi, addressType: 1, data: IBEACON_BYTES }
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('a fleet with ESPHome proxies (plaintext and Noise) in two rooms'), () => {
  let broker: Mosquitto
  let dir: string
  let keysFile: string
  let fleet: RunningFleet | undefined
  let hall: FakeEspHomeDevice
  let attic: FakeEspHomeDevice
  const bad: FakeEspHomeDevice[] = []
  const logs: LogRecord[] = []
  let pusher: NodeJS.Timeout | undefined
  let statuses: Subscriber

  beforeAll(async () => {
    broker = await Mosquitto.start()
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-esphome-'))
    hall = await FakeEspHomeDevice.start({ name: 'hall' })
    attic = await FakeEspHomeDevice.start({ name: 'attic', key: ATTIC_KEY })
    // Three devices that must not stop the fleet: a wrong key, garbage, a frame claiming 16 MB.
    bad.push(await FakeEspHomeDevice.start({ name: 'wrongkey', key: Buffer.alloc(32, 0x62) }))
    bad.push(await FakeEspHomeDevice.start({ name: 'garbage', misbehave: 'garbage' }))
    bad.push(await FakeEspHomeDevice.start({ name: 'huge', misbehave: 'huge-frame' }))
    // And one named like a beaconkit gateway of the site: it never takes that gateway's id.
    bad.push(await FakeEspHomeDevice.start({ name: 'pi-1' }))
    keysFile = join(dir, 'esphome-keys')
    await writeFile(
      keysFile,
      `# the attic proxy's api: encryption: key:\n127.0.0.1:${attic.port} ${ATTIC_KEY.toString('base64')}\n` +
        `127.0.0.1:${bad[0].port} ${ATTIC_KEY.toString('base64')}\n` +
        `10.9.9.9:6053 ${ATTIC_KEY.toString('base64')}\n`,
      { mode: 0o600 },
    )
    statuses = await Subscriber.connect(broker.url, 'beaconkit/gateways/+/status')
    fleet = await startFleet(
      {
        mqtt: { url: broker.url },
        site: {
          gateways: { hall: { foreign: true }, attic: { foreign: true }, 'pi-1': {} },
          rooms: { Hall: ['hall'], Attic: ['attic'] },
        },
        fleet: {
          inputs: [hall, attic, ...bad].map((d) => `esphome:127.0.0.1:${d.port}`),
          esphomeKeys: keysFile,
        },
        keyring: new Keyring([TAG.key]),
      },
      { stderr: { write: () => true }, log: forwardingLogger((r) => logs.push(r)) },
    )
    await fleet.start()
    await waitFor(() => hall.subscribed && attic.subscribed, 'both proxies subscribed', 20_000)
    // The radio: the tag only in the attic; the iBeacon in both rooms, stronger in the hall.
    pusher = setInterval(() => {
      hall.advertise([ibeacon(-55)])
      attic.advertise([ibeacon(-80), { address: TAG.advertisement.address, rssi: -60, addressType: 1, data: tagBytes(TAG) }])
    }, 100)
  }, 60_000)

  afterAll(async () => {
    if (pusher !== undefined) clearInterval(pusher)
    await fleet?.stop()
    await statuses?.close()
    for (const d of [hall, attic, ...bad]) await d?.close()
    await broker?.close()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  const warnings = (): string[] => logs.filter((r) => r.level === 'warn').map((r) => r.msg)

  it('finds the private broadcast relayed only by the encrypted proxy under its serial number, in the attic', async () => {
    const serial = TAG.expect.serialNumber
    await waitFor(() => fleet?.tracker.get(serial)?.room === 'Attic', 'the tag in the attic', 30_000)
    const tag = fleet?.tracker.get(serial)
    expect(tag?.gateways.map((g) => g.gateway)).toEqual(['attic'])
    expect(logs.some((r) => r.level === 'info' && /esphome: attic \(127\.0\.0\.1:\d+, ESPHome .*\) online/.test(r.msg))).toBe(true)
  })

  it('an iBeacon heard by both proxies is one beacon, in the stronger one’s room', async () => {
    await waitFor(() => (fleet?.tracker.get(IBEACON_ID)?.gateways.length ?? 0) === 2, 'the iBeacon at both proxies', 30_000)
    await waitFor(() => fleet?.tracker.get(IBEACON_ID)?.room === 'Hall', 'the iBeacon in the hall', 30_000)
    expect(fleet?.tracker.beacons().filter((b) => b.id === IBEACON_ID)).toHaveLength(1)
  })

  it('a wrong key, garbage, a 16 MB frame and a native gateway’s name are warnings naming the device; the fleet runs on', async () => {
    const ports = bad.map((d) => d.port)
    await waitFor(
      () => ports.every((p) => warnings().some((w) => w.includes(`127.0.0.1:${p}`))),
      'a warning for each bad device',
      30_000,
    )
    const text = warnings().join('\n')
    expect(text).toContain(`127.0.0.1:${ports[0]} (wrongkey): the key is not the device's`)
    expect(text).toMatch(new RegExp(`127\\.0\\.0\\.1:${ports[1]}: not the ESPHome native API`))
    expect(text).toMatch(new RegExp(`127\\.0\\.0\\.1:${ports[2]} \\(huge\\): a frame of 16777216 bytes`))
    expect(text).toContain(`127.0.0.1:${ports[3]} (pi-1): its name pi-1 is a beaconkit gateway's`)
    // A key for a proxy that is not an input: said, by its target only.
    expect(text).toContain('esphome keys: 10.9.9.9:6053 is not an --input esphome:')
    expect(text).not.toContain(ATTIC_KEY.toString('base64'))
    expect(fleet?.tracker.get(TAG.expect.serialNumber)?.room).toBe('Attic')
    expect(fleet?.inputs?.nodes().sort()).toEqual(['attic', 'hall'])
    const status = await retainedMessages(broker.url, 'beaconkit/fleet/status')
    expect(JSON.parse(status.get('beaconkit/fleet/status') ?? '{}')).toMatchObject({ state: 'online' })
  })

  it('a proxy that drops its connection is offline, then online again by itself, one log line each', async () => {
    const last = (): string | undefined => {
      const got = statuses.on('beaconkit/gateways/hall/status')
      return got.length === 0 ? undefined : (JSON.parse(got[got.length - 1].payload) as { state: string }).state
    }
    await waitFor(() => last() === 'online', 'hall online on the broker', 20_000)
    const before = logs.length
    hall.drop()
    // A closed socket ends the connection at once; a hung one after 45 s of silence (client tests).
    await waitFor(() => last() === 'offline', 'hall offline on the broker', 60_000)
    await waitFor(() => last() === 'online', 'hall online again', 60_000)
    const lines = logs.slice(before).map((r) => r.msg).filter((m) => m.startsWith('esphome: hall '))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^esphome: hall \(127\.0\.0\.1:\d+\) offline: /)
    expect(lines[1]).toMatch(/^esphome: hall \(127\.0\.0\.1:\d+, ESPHome .*\) online$/)
  }, 90_000)
})

describe('beaconkit fleet --esphome-keys', () => {
  it('refuses a keys file others can read: exit 2, chmod 600 said, no key printed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-esphome-cli-'))
    try {
      const file = join(dir, 'keys')
      const key = ATTIC_KEY.toString('base64')
      await writeFile(file, `hall.local:6053 ${key}\n`)
      await chmod(file, 0o644)
      const result = await runCli(['fleet', '--mqtt', 'mqtt://127.0.0.1:1', '--input', 'esphome:hall.local', '--esphome-keys', file])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('chmod 600')
      expect(result.stdout + result.stderr).not.toContain(key)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
