// `beaconkit replay --demo --mqtt` into a running `beaconkit fleet`: the demo recording is of
// 2026-01-01, and a fleet refuses batches stamped further than 30 days from their arrival. A
// replay in real time stamps what it publishes with the current clock, so its beacons show; and
// the fleet says once per gateway when it refuses a gateway's batches for their clock. Real
// processes, a real (embedded) broker.
import mqtt from 'mqtt'
import { describe, expect, it } from 'vitest'
import { freePort } from '../support/mosquitto.js'
import { logMessages, startCli } from './run-cli.js'

/** The demo recording's first advertisement (fixtures/demo.jsonl). */
const RECORDED = 1_767_254_400_000

describe('replay into a fleet', () => {
  it('a real-time replay of the demo publishes on the current clock: the fleet shows its beacons', async () => {
    const port = await freePort()
    const fleet = startCli(['fleet', '--embedded-broker', String(port), '--json', '--duration', '12'])
    await fleet.waitFor('"event":"updated"')
    const replay = startCli(['replay', '--demo', '--mqtt', `mqtt://127.0.0.1:${port}`, '--gateway-id', 'demo-pi', '--json'])
    const found = await Promise.race([
      fleet.waitFor('"event":"found"').then(() => true, () => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 9000)),
    ])
    replay.child.kill('SIGTERM')
    const [r, rp] = await Promise.all([fleet.done, replay.done])
    expect(found).toBe(true)
    expect(r.code).toBe(0)
    // Its own --json events are on the same (current) clock as what it publishes.
    const first = JSON.parse(rp.stdout.split('\n')[0]) as { time: number }
    expect(Math.abs(first.time - Date.now())).toBeLessThan(60_000)
    expect(r.stderr).not.toMatch(/stamps its RSSI batches/)
  }, 40_000)

  it('a fleet says once per gateway that it refuses its batches for their clock', async () => {
    const port = await freePort()
    const fleet = startCli(['fleet', '--embedded-broker', String(port), '--json', '--duration', '6'])
    await fleet.waitFor('"event":"updated"')
    const gw = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: 'replay-fleet-test', reconnectPeriod: 0 })
    try {
      for (let i = 0; i < 3; i++) {
        for (const gateway of ['demo-pi', 'hall-pi']) {
          const time = RECORDED + i * 1000
          await gw.publishAsync(`beaconkit/gateways/${gateway}/rssi`, JSON.stringify({ gateway, time, readings: [{ id: 'tag-1', rssi: -60, lastSeen: time, count: 1 }] }), { qos: 1 })
        }
      }
    } finally {
      await gw.endAsync()
    }
    const r = await fleet.done
    expect(r.code).toBe(0)
    const warned = logMessages(r.stderr, 'warn')
    for (const gateway of ['demo-pi', 'hall-pi']) expect(warned.filter((m) => m.startsWith(`gateway ${gateway} stamps its RSSI batches`))).toHaveLength(1)
    expect(r.stdout).not.toMatch(/"event":"found"/)
  }, 30_000)
})
