// `beaconkit fleet --input …`: the flags, and the done-when run as a real process against a real
// Mosquitto — an OpenMQTTGateway node relays an encrypted 0x81E7 frame (decrypted with
// --keys-file), an ESPresense room reports an iBeacon, both become fleet beacons in their rooms.
import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { configuredOptions } from '../../src/cli/configured.js'
import { findCommand } from '../../src/cli/commands/registry.js'
import { startFleet } from '../../src/gateway/start-fleet.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { loadVectors } from '../support/vectors.js'
import { waitFor } from '../integration/wait.js'
import { refused } from './refused.js'
import { jsonLines, startCli } from './run-cli.js'

interface EncryptedVector {
  mode: string
  key: string
  advertisement: { address: string; serviceData: { uuid: string; data: string }[] }
  expect: { serialNumber: string }
}

describe('fleet --input and --keys-file flags', () => {
  it('parses repeated inputs, with bases and RSSI offsets', () => {
    expect(parseCommandLine(['fleet', '--mqtt', 'mqtt://b', '--input', 'omg:home', '--input', 'espresense@-3', '--keys-file', 'k.txt'])).toMatchObject({
      inputs: [
        { format: 'omg', base: 'home' },
        { format: 'espresense', base: 'espresense', rssiOffsetDb: -3 },
      ],
      keysFile: 'k.txt',
    })
    expect(parseCommandLine(['fleet', '--mqtt', 'mqtt://b'])).not.toHaveProperty('inputs')
  })

  it('takes fleet.inputs and keys.file from a config file, and BEACONKIT_FLEET_INPUTS', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-inputs-config-'))
    const path = join(dir, 'fleet.yaml')
    await writeFile(path, 'mqtt:\n  url: mqtt://b:1883\nkeys:\n  file: k.txt\nfleet:\n  inputs: [espresense, "omg:home@-4"]\n', { mode: 0o600 })
    const parse = async (env: Record<string, string>): Promise<unknown> => {
      const command = findCommand('fleet')
      if (command === undefined) throw new Error('no fleet command')
      const { parseInvocation } = await import('../../src/cli/args.js')
      return parseInvocation(['fleet', '--config', path], await configuredOptions(command, ['--config', path], env, () => undefined)).parsed
    }
    expect(await parse({})).toMatchObject({ inputs: [{ format: 'espresense' }, { format: 'omg', base: 'home', rssiOffsetDb: -4 }], keysFile: 'k.txt' })
    expect(await parse({ BEACONKIT_FLEET_INPUTS: 'theengs' })).toMatchObject({ inputs: [{ format: 'theengs', base: 'home' }] })
  })

  it('refuses an unknown format, a wildcard base and --keys-file without an input', () => {
    expect(refused(['fleet', '--mqtt', 'mqtt://b', '--input', 'zigbee2mqtt']).option).toBe('input')
    expect(refused(['fleet', '--mqtt', 'mqtt://b', '--input', 'omg:home/+']).option).toBe('input')
    expect(refused(['fleet', '--mqtt', 'mqtt://b', '--keys-file', 'k.txt']).option).toBe('keys-file')
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('beaconkit fleet --input omg:home --input espresense against Mosquitto'), () => {
  let broker: Mosquitto

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await broker?.close()
  })

  it('startFleet runs the bridge with the tracker: a room online becomes a gateway online, its last will offline', async () => {
    const fleet = await startFleet({ mqtt: { url: broker.url, clientId: 'order-fleet' }, fleet: { inputs: ['espresense:order-espr'] } }, { stderr: { write: () => true }, warn: () => undefined })
    const bridge = fleet.inputs
    if (bridge === undefined) throw new Error('no bridge')
    await fleet.start()
    const node = await mqtt.connectAsync(broker.url, { clientId: 'order-esp32', reconnectPeriod: 0 })
    // The bridge turns a room's status into a gateway the tracker sees.
    const seen: string[] = []
    fleet.tracker.on('gateway', (g) => seen.push(`${g.gateway}:${g.state}`))
    const timer = setInterval(() => node.publish('order-espr/rooms/den/status', 'online'), 100)
    try {
      await waitFor(() => seen.includes('den:online'), 'the tracker to see den online', 30_000)
    } finally {
      clearInterval(timer)
    }
    // The node's last will: its gateway goes offline too, and the bridge lets the node go.
    await node.publishAsync('order-espr/rooms/den/status', 'offline')
    await waitFor(() => seen.includes('den:offline'), 'the tracker to see den offline', 30_000)
    expect(bridge.nodes()).toEqual([])
    await fleet.stop()
    await node.endAsync()
  }, 60_000)

  it('decrypts a private broadcast an OpenMQTTGateway node relays and places an ESPresense iBeacon in its room', async () => {
    const vector = loadVectors<{ encrypted: EncryptedVector[] }>('vendor-examples.json').encrypted.find((v) => v.mode === '0x20')
    if (vector === undefined) throw new Error('vector 0x20 missing')
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-inputs-'))
    const keys = join(dir, 'keys.txt')
    await writeFile(keys, `${vector.key}\n`)
    await chmod(keys, 0o600)
    const site = join(dir, 'site.json')
    await writeFile(site, JSON.stringify({ gateways: { OpenMQTTGateway: {}, kitchen: {} }, rooms: { Hall: ['OpenMQTTGateway'], Kitchen: ['kitchen'] } }))
    const fleet = startCli(['fleet', '--mqtt', broker.url, '--site', site, '--input', 'omg:home', '--input', 'espresense', '--keys-file', keys, '--json'])
    const node = await mqtt.connectAsync(broker.url, { clientId: 'cli-esp32s', reconnectPeriod: 0 })
    const sd = vector.advertisement.serviceData[0]
    if (sd === undefined) throw new Error('vector without service data')
    const relay = JSON.stringify({ id: vector.advertisement.address.toUpperCase(), mac_type: 1, rssi: -58, servicedata: sd.data.toLowerCase(), servicedatauuid: '0x81e7' })
    const espresense = '{"mac":"df51fd4a4caf","id":"iBeacon:fda50693-a4e2-4fb1-afcf-c6eb07647825-100-65535","rssi@1m":-59,"rssi":-62.35,"rxAdj":0,"rssiVar":1.84,"distance":1.42,"var":0.21,"int":1032}'
    const timer = setInterval(() => {
      node.publish(`home/OpenMQTTGateway/BTtoMQTT/${vector.advertisement.address.replace(/:/g, '').toUpperCase()}`, relay)
      node.publish('espresense/devices/iBeacon:fda50693-a4e2-4fb1-afcf-c6eb07647825-100-65535/kitchen', espresense)
    }, 100)
    try {
      await fleet.waitFor(new RegExp(`"event":"room".*"id":"${vector.expect.serialNumber}"`))
      await fleet.waitFor(/"event":"room".*"id":"FDA50693-A4E2-4FB1-AFCF-C6EB07647825\|100\|65535"/)
    } finally {
      clearInterval(timer)
      fleet.child.kill('SIGTERM')
    }
    const result = await fleet.done
    await node.endAsync()
    expect(result.code).toBe(0)
    const rooms = jsonLines(result.stdout).filter((l) => l.event === 'room') as { beacon: { id: string }; to: string }[]
    expect(rooms.find((r) => r.beacon.id === vector.expect.serialNumber)?.to).toBe('Hall')
    expect(rooms.find((r) => r.beacon.id.startsWith('FDA50693'))?.to).toBe('Kitchen')
    // Both nodes are site gateways, and both carried what beaconkit needs: nothing to warn about.
    expect(result.stderr).not.toMatch(/inputs:/)
  }, 120_000)
})
