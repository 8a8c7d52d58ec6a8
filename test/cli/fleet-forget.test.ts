// `beaconkit fleet forget <id>` (contract v2, section 3) as a real process against a real
// Mosquitto: with no tracker running it empties the beacon's retained fleet state, presence and
// every Home Assistant config (read back from the broker); with one running, the tracker forgets
// it too. A bad id or a missing --mqtt is a usage error (2), a broker that is down exit 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { parseCommandLine } from '../../src/cli/args.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { fleetBeaconTopics } from '../../src/fleet/forget-command.js'
import { freePort, Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'
import { refused } from './refused.js'
import { runCli } from './run-cli.js'

const ID = '0117C50000C1'

describe('fleet forget on the command line', () => {
  it('is parsed with its broker flags', () => {
    expect(parseCommandLine(['fleet', 'forget', ID, '--mqtt', 'mqtt://b', '--mqtt-prefix', 'site', '--ha-prefix', 'ha', '--client-id', 'me'])).toEqual({ command: 'fleet-forget', id: ID, haPrefix: 'ha', mqtt: { url: 'mqtt://b', topicPrefix: 'site', clientId: 'me', homeAssistant: false } })
  })

  it('refuses a bad id, a missing --mqtt, the fleet\'s own flags and --ha-prefix without forget', () => {
    expect(refused(['fleet', 'forget', 'a/b', '--mqtt', 'mqtt://b']).option).toBe('id')
    expect(refused(['fleet', 'forget', '--mqtt', 'mqtt://b']).option).toBe('argument')
    expect(refused(['fleet', 'forget', ID]).option).toBe('mqtt')
    expect(refused(['fleet', 'forget', ID, '--mqtt', 'mqtt://b', '--site', 's.json']).option).toBe('site')
    expect(refused(['fleet', '--mqtt', 'mqtt://b', '--ha-prefix', 'ha']).option).toBe('ha-prefix')
  })

  it('exits 2 for a bad id, and `fleet --help` tells of it', async () => {
    const bad = await runCli(['fleet', 'forget', 'a+b', '--mqtt', 'mqtt://127.0.0.1:1'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('beacon id')
    const help = await runCli(['fleet', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('beaconkit fleet forget <id>')
  })

  it('exits 1 with the connection error when the broker is unreachable', async () => {
    const port = await freePort()
    const r = await runCli(['fleet', 'forget', ID, '--mqtt', `mqtt://127.0.0.1:${port}`])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/ECONNREFUSED/)
    expect(r.stderr).toContain('nothing was cleared')
    expect(r.stdout).toBe('')
  }, 30_000)
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('beaconkit fleet forget against Mosquitto'), () => {
  let broker: Mosquitto
  let raw: MqttClient

  beforeAll(async () => {
    broker = await Mosquitto.start()
    raw = await mqtt.connectAsync(broker.url, { clientId: 'forget-cli-raw', reconnectPeriod: 0 })
  })

  afterAll(async () => {
    await raw?.endAsync()
    await broker?.close()
  })

  it('empties every retained topic of the beacon with no tracker running, and leaves the others', async () => {
    const other = '0117C50000C2'
    const mine = fleetBeaconTopics('site', 'ha', ID)
    for (const topic of [...mine, ...fleetBeaconTopics('site', 'ha', other)]) await raw.publishAsync(topic, '{"left":"by an earlier run"}', { qos: 1, retain: true })
    const r = await runCli(['fleet', 'forget', ID, '--mqtt', broker.url, '--mqtt-prefix', 'site', '--ha-prefix', 'ha'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
    expect(r.stdout).toContain(ID)
    const left = await retainedMessages(broker.url, ['site/#', 'ha/#'])
    expect([...left.keys()].sort()).toEqual(fleetBeaconTopics('site', 'ha', other).sort())
  })

  it('a running tracker forgets the beacon too', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'forget-cli-tracker', topicPrefix: 'run', goneTimeoutMs: 5000, hearingMs: 1000, homeAssistant: { prefix: 'harun', dwellMs: 1000 } })
    await t.start()
    const timer = setInterval(() => {
      const at = Date.now()
      void raw.publishAsync('run/gateways/k/rssi', JSON.stringify({ gateway: 'k', time: at, readings: [{ id: ID, rssi: -60, lastSeen: at, count: 3 }] }), { qos: 1 })
    }, 300)
    try {
      await waitFor(() => t.stats.homeAssistant?.announced === 1, 'announced', 20_000)
      clearInterval(timer)
      expect(await t.flush()).toBe(true)
      const r = await runCli(['fleet', 'forget', ID, '--mqtt', broker.url, '--mqtt-prefix', 'run', '--ha-prefix', 'harun'])
      expect(r.code, r.stderr).toBe(0)
      await waitFor(() => t.stats.forgetCommands.done === 1, 'the tracker told', 20_000)
      expect(t.get(ID)).toBeUndefined()
      expect(t.stats.homeAssistant?.announced).toBe(0)
      expect(await t.flush()).toBe(true)
      const left = await retainedMessages(broker.url, ['run/fleet/#', 'harun/#'])
      expect([...left.keys()].filter((k) => k !== 'run/fleet/status')).toEqual([])
    } finally {
      clearInterval(timer)
      await t.stop()
    }
  }, 60_000)
})
