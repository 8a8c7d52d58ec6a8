// `beaconkit fleet --mqtt` and its broker connection (issue 24), as real processes against a real
// Mosquitto: two fleets on one host coexist (they shared one fixed client id and threw each other
// off, silently); two given one --client-id are each told once; a broker that is down is one
// warning over all the retries, and its return one "connected again" line. Also --client-id on
// the command line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { parseCommandLine } from '../../src/cli/args.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { waitFor } from '../integration/wait.js'
import { refused } from './refused.js'
import { jsonLines, logMessages, startCli } from './run-cli.js'

describe('--client-id', () => {
  it('is parsed on fleet and on the gateway commands, used as given', () => {
    expect(parseCommandLine(['fleet', '--mqtt', 'mqtt://b', '--client-id', 'fleet-main'])).toMatchObject({ mqtt: { url: 'mqtt://b', clientId: 'fleet-main' } })
    expect(parseCommandLine(['scan', '--mqtt', 'mqtt://b', '--client-id', 'gw/hall é'])).toMatchObject({ view: { mqtt: { clientId: 'gw/hall é' } } })
    expect(parseCommandLine(['replay', 'x.jsonl', '--mqtt', 'mqtt://b'])).not.toHaveProperty('view.mqtt.clientId')
  })

  it('is refused empty, with control characters, without --mqtt and with simulate --site', () => {
    for (const args of [
      ['fleet', '--mqtt', 'mqtt://b', '--client-id', ''],
      ['replay', 'x.jsonl', '--mqtt', 'mqtt://b', '--client-id', 'a\u0000b'],
      ['scan', '--client-id', 'gw'],
      ['simulate', '--site', 's.json', '--mqtt', 'mqtt://b', '--client-id', 'gw'],
    ]) {
      const error = refused(args)
      expect(error.option, args.join(' ')).toBe('client-id')
      expect(error.message).not.toContain('\u0000')
    }
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('beaconkit fleet --mqtt against Mosquitto: client ids and connection warnings'), () => {
  let broker: Mosquitto
  let gateway: MqttClient

  beforeAll(async () => {
    broker = await Mosquitto.start()
    gateway = await mqtt.connectAsync(broker.url, { clientId: 'fleet-mqtt-gateway', reconnectPeriod: 0 })
  })

  afterAll(async () => {
    await gateway?.endAsync()
    await broker?.close()
  })

  it('two fleets on one host coexist: both track, no session taken over', async () => {
    const fleets = [0, 1].map(() => startCli(['fleet', '--mqtt', broker.url, '--mqtt-prefix', 'co', '--json', '--duration', '6']))
    const feed = setInterval(() => {
      const now = Date.now()
      void gateway.publishAsync('co/gateways/hall/rssi', JSON.stringify({ gateway: 'hall', time: now, readings: [{ id: 'tag-1', rssi: -60, lastSeen: now, count: 1 }] }), { qos: 1 }).catch(() => undefined)
    }, 200)
    try {
      const results = await Promise.all(fleets.map((f) => f.done))
      for (const r of results) {
        expect(r.code).toBe(0)
        expect(jsonLines(r.stdout).some((e) => e.event === 'found' && (e.beacon as { id: string }).id === 'tag-1')).toBe(true)
        expect(logMessages(r.stderr, 'warn')).toEqual([])
      }
      expect(broker.takeovers()).toBe(0)
    } finally {
      clearInterval(feed)
      for (const f of fleets) f.child.kill('SIGKILL')
    }
  }, 60_000)

  it('two fleets given one --client-id are each told once, naming the cause', async () => {
    const fleets = [0, 1].map(() => startCli(['fleet', '--mqtt', broker.url, '--mqtt-prefix', 'twin', '--client-id', 'fleet-twin', '--json', '--duration', '10']))
    try {
      const results = await Promise.all(fleets.map((f) => f.done))
      // Each is thrown off about every 2 s (the other's 1 s reconnect, in turn).
      expect(broker.takeovers('fleet-twin')).toBeGreaterThanOrEqual(6)
      for (const r of results) {
        expect(r.code).toBe(0)
        // Once per takeover episode, not once per reconnect. Other conditions have warnings of
        // their own (a publish in flight across the drops can make acknowledgements look stalled).
        const said = logMessages(r.stderr, 'warn').filter((l) => l.includes('client id (fleet-twin)'))
        expect(said).toHaveLength(1)
        expect(said[0]).toMatch(/^MQTT broker: the broker closed this connection right after accepting it, 3 times in a row: most likely another client connected with this client id \(fleet-twin\)/)
        expect(said[0]).toContain('--client-id')
      }
    } finally {
      for (const f of fleets) f.child.kill('SIGKILL')
    }
  }, 60_000)

  it('a broker that is down is one warning over its retries, its return one "connected again"', async () => {
    await broker.stop()
    const fleet = startCli(['fleet', '--mqtt', broker.url, '--json', '--duration', '12'])
    let stderr = ''
    fleet.child.stderr.on('data', (d: string) => {
      stderr += d
    })
    try {
      await waitFor(() => stderr.includes('ECONNREFUSED'), 'the first refused connection', 20_000)
      // Retries at 1 s and 3 s after the first attempt (the delay doubles), refused alike.
      await new Promise((resolve) => setTimeout(resolve, 4000))
      await broker.restart()
      const r = await fleet.done
      expect(r.code).toBe(0)
      // One warn record when it starts, one info record when it clears.
      const warned = logMessages(r.stderr, 'warn')
      expect(warned.filter((m) => m.includes('ECONNREFUSED'))).toHaveLength(1)
      expect(warned).toEqual([warned.find((m) => m.includes('ECONNREFUSED'))])
      expect(logMessages(r.stderr, 'info').filter((m) => m === 'mqtt: connected again')).toHaveLength(1)
    } finally {
      fleet.child.kill('SIGKILL')
      await broker.restart()
    }
  }, 60_000)
})
