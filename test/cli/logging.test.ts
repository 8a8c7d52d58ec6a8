// The command's logs as a service sees them (issue 26): spawned CLI runs against a broker port
// nothing listens on. Off a terminal they are JSON lines on stderr (stdout keeps the data); a
// broker that is down is one warn record over all its retries; --log-level and --log-format work.
import mqtt from 'mqtt'
import { describe, expect, it } from 'vitest'
import { freePort } from '../support/mosquitto.js'
import { jsonLines, logRecords, runCli, startCli } from './run-cli.js'

/** A replay of the demo recording publishing to a broker that is not there. */
async function replayToNowhere(...extra: string[]): Promise<Awaited<ReturnType<typeof runCli>>> {
  const port = await freePort()
  return runCli(['replay', 'fixtures/demo.jsonl', '--virtual', '--json', '--mqtt', `mqtt://127.0.0.1:${port}`, ...extra])
}

describe('logs of a running command', () => {
  it('a broker that is down is one JSON warn record, not one per retry; stdout keeps the data', async () => {
    const r = await replayToNowhere()
    const records = logRecords(r.stderr)
    const unreachable = records.filter((l) => l.condition === 'mqtt.unreachable')
    expect(unreachable).toHaveLength(1)
    expect(unreachable[0]).toMatchObject({ level: 'warn', state: 'on', component: 'mqtt' })
    expect(unreachable[0].msg).toMatch(/ECONNREFUSED/)
    // Every other line of the run's stderr is a record too, but for the command's last line.
    const other = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{'))
    expect(other).toEqual([expect.stringMatching(/^beaconkit: stopped; \d+ messages not acknowledged by the broker mqtt:\/\/127\.0\.0\.1:\d+$/)])
    // The data is on stdout, untouched by the logs.
    expect(jsonLines(r.stdout).some((e) => e.event === 'found')).toBe(true)
    expect(r.stdout).not.toContain('"level"')
  }, 60_000)

  it('--log-level error silences the warnings (the final line is the answer, and stays)', async () => {
    const r = await replayToNowhere('--log-level', 'error')
    expect(logRecords(r.stderr)).toEqual([])
    expect(r.stderr).toMatch(/^beaconkit: stopped; \d+ messages not acknowledged/m)
  }, 60_000)

  it('--log-format pretty gives a human line with the time and the level', async () => {
    const r = await replayToNowhere('--log-format', 'pretty')
    expect(logRecords(r.stderr)).toEqual([])
    const warned = r.stderr.split('\n').filter((l) => / WARN: .*ECONNREFUSED/.test(l))
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] WARN: MQTT broker: connect ECONNREFUSED/)
  }, 60_000)

  it('refuses a level or a format it does not know, naming them', async () => {
    const level = await runCli(['replay', '--demo', '--log-level', 'loud'])
    expect(level.code).toBe(2)
    expect(level.stderr).toMatch(/--log-level takes trace, debug, info, warn, error, fatal, silent, not 'loud'.*\[invalid_option\]/)
    const format = await runCli(['broker', '--log-format', 'xml'])
    expect(format.code).toBe(2)
    expect(format.stderr).toMatch(/--log-format takes auto, json, pretty, not 'xml'/)
  })

  it('fleet: a gateway that goes offline is one warn record, its return one info record', async () => {
    const port = await freePort()
    const fleet = startCli(['fleet', '--embedded-broker', String(port), '--json', '--duration', '5'])
    await fleet.waitFor('"event":"updated"')
    const gw = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: 'logging-test-gateway', reconnectPeriod: 0 })
    const status = (state: string): Promise<unknown> => gw.publishAsync('beaconkit/gateways/hall/status', JSON.stringify({ state, time: Date.now(), version: 'test' }), { qos: 1, retain: true })
    try {
      await status('online')
      await fleet.waitFor(/"event":"gateway","gateway":"hall","state":"online"/)
      await status('offline')
      await fleet.waitFor(/"state":"offline"/)
      await status('offline')
      await status('online')
      await fleet.waitFor(/"state":"offline"[\s\S]*"state":"online"/)
    } finally {
      await gw.endAsync()
    }
    const r = await fleet.done
    expect(r.code).toBe(0)
    const hall = logRecords(r.stderr).filter((l) => l.condition === 'gateway.offline:hall')
    expect(hall.map((l) => [l.level, l.state, l.msg])).toEqual([
      ['warn', 'on', expect.stringMatching(/^gateway hall is offline/)],
      ['info', 'off', 'gateway hall is online again'],
    ])
  }, 30_000)
})
