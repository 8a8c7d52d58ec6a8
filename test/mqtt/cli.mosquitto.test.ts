// The issue's done-when check, automated: `beaconkit replay fixtures/demo.jsonl --virtual
// --mqtt <url> --gateway-id hall --ha` against a real Mosquitto; a subscriber sees the states,
// events and one RSSI batch per replay second, and the broker keeps the retained status and the
// Home Assistant configs. Also the CLI's MQTT flags and the SIGKILL last will.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gateAnnounced } from '../support/ha-schema.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages, Subscriber } from '../support/mqtt-subscriber.js'
import { startCli } from '../cli/run-cli.js'
import type { RssiBatch } from '../../src/mqtt/payloads.js'
import { parseCommandLine } from '../../src/cli/args.js'
import { refused } from '../cli/refused.js'

const P = 'beaconkit/gateways/hall'

describe('MQTT flags', () => {
  it('parses --mqtt and its companions on scan, replay and simulate', () => {
    const parsed = parseCommandLine(['replay', 'x.jsonl', '--mqtt', 'mqtt://127.0.0.1:1883', '--gateway-id', 'hall', '--mqtt-prefix', 'site/bk', '--ha', '--mqtt-user', 'gw', '--mqtt-password-file', 'pw.txt'])
    expect(parsed).toMatchObject({ command: 'replay', view: { mqtt: { url: 'mqtt://127.0.0.1:1883', gatewayId: 'hall', topicPrefix: 'site/bk', homeAssistant: true, username: 'gw', passwordFile: 'pw.txt' } } })
    expect(parseCommandLine(['simulate', '--mqtt', 'mqtts://broker:8883'])).toMatchObject({ view: { mqtt: { url: 'mqtts://broker:8883', homeAssistant: false } } })
    expect(parseCommandLine(['scan', '--mqtt', 'mqtt://b'])).toMatchObject({ view: { mqtt: { url: 'mqtt://b' } } })
    expect(parseCommandLine(['replay', 'x.jsonl'])).not.toHaveProperty('view.mqtt')
    expect(parseCommandLine(['scan', '--mqtt', 'mqtt://b', '--mqtt-queue-dir', '/var/q'])).toMatchObject({ view: { mqtt: { url: 'mqtt://b', queueDir: '/var/q' } } })
    expect(parseCommandLine(['scan', '--mqtt', 'mqtt://b', '--ha', '--ha-dwell', '0', '--ha-expire', '3600'])).toMatchObject({ view: { mqtt: { homeAssistant: true, haDwellMs: 0, haExpireMs: 3_600_000 } } })
    for (const [text, beacons] of [['auto', 'auto'], ['on', true], ['off', false]] as const) {
      expect(parseCommandLine(['simulate', '--mqtt', 'mqtt://b', '--ha', '--ha-beacons', text])).toMatchObject({ view: { mqtt: { homeAssistant: true, haBeacons: beacons } } })
    }
    expect(parseCommandLine(['scan', '--mqtt', 'mqtt://b', '--ha'])).not.toHaveProperty('view.mqtt.haBeacons')
  })

  it('refuses bad MQTT flags with a message naming the option', () => {
    const bad: [string[], string][] = [
      [['--mqtt', 'http://x'], 'mqtt'],
      [['--mqtt', 'mqtt://u:secret@b'], 'mqtt'],
      [['--mqtt', 'mqtt://b', '--gateway-id', 'a/b'], 'gateway-id'],
      [['--mqtt', 'mqtt://b', '--gateway-id', 'g'.repeat(129)], 'gateway-id'],
      [['--mqtt', 'mqtt://b', '--mqtt-prefix', 'a/#'], 'mqtt-prefix'],
      [['--ha'], 'ha'],
      [['--ha-dwell', '10'], 'ha-dwell'],
      [['--mqtt', 'mqtt://b', '--ha-expire', '10'], 'ha-expire'],
      [['--mqtt', 'mqtt://b', '--ha', '--ha-dwell', '-1'], 'ha-dwell'],
      [['--mqtt', 'mqtt://b', '--ha', '--ha-expire', '0'], 'ha-expire'],
      [['--mqtt', 'mqtt://b', '--ha-beacons', 'on'], 'ha-beacons'],
      [['--mqtt', 'mqtt://b', '--ha', '--ha-beacons', 'yes'], 'ha-beacons'],
      [['--mqtt', 'mqtt://b', '--ha', '--ha-beacons', 'true'], 'ha-beacons'],
      [['--gateway-id', 'hall'], 'gateway-id'],
      [['--mqtt', 'mqtt://b', '--mqtt-password-file', 'f'], 'mqtt-password-file'],
      [['--mqtt-queue-dir', '/var/q'], 'mqtt-queue-dir'],
      [['--mqtt', 'mqtt://b', '--mqtt-queue-dir', ''], 'mqtt-queue-dir'],
      [['--mqtt', 'mqtt://b', '--mqtt-queue-dir', '/var/q', '--upload', '--cloud-url', 'http://127.0.0.1:1', '--email', 'a@b.c', '--password-file', 'p', '--queue-dir', '/var/q'], 'mqtt-queue-dir'],
    ]
    for (const [args, option] of bad) {
      const error = refused(['replay', 'x.jsonl', ...args])
      expect(error.option, args.join(' ')).toBe(option)
      expect(error.message).not.toContain('secret')
    }
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('beaconkit replay --virtual --mqtt against Mosquitto'), () => {
  let broker: Mosquitto

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    await broker?.close()
  })

  it('with --ha-beacons off announces only the gateway device; a bad value is a usage error (exit 2)', async () => {
    const result = await startCli(['replay', 'fixtures/demo.jsonl', '--virtual', '--mqtt', broker.url, '--mqtt-prefix', 'off-test', '--gateway-id', 'hall', '--ha', '--ha-beacons', 'off', '--json']).done
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const configs = [...(await retainedMessages(broker.url, 'homeassistant/#')).entries()].filter(([, payload]) => payload.includes('"off-test/'))
    expect(configs.map(([topic]) => topic).sort()).toEqual(['homeassistant/binary_sensor/beaconkit_gw_hall/connectivity/config', 'homeassistant/sensor/beaconkit_gw_hall/beacons/config'])
    const bad = await startCli(['replay', 'fixtures/demo.jsonl', '--virtual', '--mqtt', broker.url, '--ha', '--ha-beacons', 'maybe']).done
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--ha-beacons takes auto, on or off')
  })

  it('leaves the retained status and HA configs; a subscriber sees states, events and one RSSI batch per replay second', async () => {
    const sub = await Subscriber.connect(broker.url, ['beaconkit/#', 'homeassistant/#', 'beaconkit-test/marker/#'], { protocolVersion: 5 })
    const run = startCli(['replay', 'fixtures/demo.jsonl', '--virtual', '--mqtt', broker.url, '--gateway-id', 'hall', '--ha', '--json'])
    const result = await run.done
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    await sub.sync()
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string; time: number; beacon?: { id: string } })
    const ticks = lines.filter((l) => l.event === 'updated').map((l) => l.time)

    const retained = await retainedMessages(broker.url, ['beaconkit/#', 'homeassistant/#'])
    expect(JSON.parse(retained.get(`${P}/status`) as string)).toMatchObject({ state: 'offline' })
    const found = new Set(lines.filter((l) => l.event === 'found').map((l) => l.beacon?.id as string))
    const announced = gateAnnounced(sub.messages.filter((m) => m.topic.startsWith(`${P}/beacons/`)).map((m) => m.payload))
    expect(announced.size).toBeGreaterThan(0)
    for (const id of found) {
      const obj = id.toLowerCase().replace(/[^a-z0-9]/g, '_')
      expect(retained.has(`homeassistant/sensor/beaconkit_hall/${obj}_rssi/config`), id).toBe(announced.has(id))
      const states = sub.on(`${P}/beacons/${id}`)
      expect(states.length, id).toBeGreaterThan(1)
      expect(states.every((m) => m.retain)).toBe(true)
      expect(states[states.length - 1].payload).toBe('')
    }

    // The events are the --json found / gone lines, the same objects.
    const events = sub.on(`${P}/events`).map((m) => JSON.parse(m.payload) as { event: string; time: number; beacon: { id: string } })
    const summary = (list: { event: string; time: number; beacon?: { id: string } }[]): string[] =>
      list.filter((e) => e.event === 'found' || e.event === 'gone').map((e) => `${e.time} ${e.event} ${e.beacon?.id}`)
    expect(summary(events)).toEqual(summary(lines))

    // One batch per replay second while beacons are heard: at tick times, never two for a tick.
    const batches = sub.on(`${P}/rssi`).map((m) => JSON.parse(m.payload) as RssiBatch)
    const times = batches.map((b) => b.time)
    expect(new Set(times).size).toBe(times.length)
    for (const t of times) expect(ticks).toContain(t)
    // The demo recording has packets in each of its 90 seconds.
    expect(batches.length).toBeGreaterThanOrEqual(89)
    expect(batches.length).toBeLessThanOrEqual(92)
    await sub.close()
  })

  it('publishes the offline last will when the gateway process is killed (SIGKILL)', async () => {
    const sub = await Subscriber.connect(broker.url, ['beaconkit/gateways/killed/status', 'beaconkit-test/marker/#'])
    // A simulator in real time runs until stopped: a gateway that stays up until it is killed.
    const run = startCli(['simulate', '--beacons', '3', '--mqtt', broker.url, '--gateway-id', 'killed', '--json'])
    await sub.until((ms) => ms.some((m) => m.payload.includes('"online"')), 'status online')
    await run.waitFor('"found"')
    run.child.kill('SIGKILL')
    const result = await run.done
    expect(result.signal).toBe('SIGKILL')
    await sub.until((ms) => ms.some((m) => m.payload.includes('"offline"')), 'the last will', 60_000)
    const retained = await retainedMessages(broker.url, 'beaconkit/gateways/killed/status')
    expect(JSON.parse(retained.get('beaconkit/gateways/killed/status') as string)).toMatchObject({ state: 'offline', version: expect.any(String) })
    await sub.close()
  })
})
