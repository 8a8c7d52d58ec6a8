// In the JSON log format every line on standard error is a JSON object (issue #35 item 10): the
// servers' addresses, the fallback notice, the early configuration warnings and, when JSON is
// asked for by name, the final answer too, so `journalctl -o cat | jq` reads all of a service's
// lines. And the metrics address is said once, not once per start (scan --fallback-replay).
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/mosquitto.js'
import { runCli, startCli } from './run-cli.js'

/** Every non-empty line of `stderr` as a JSON log record; throws (failing the test) on a line that is not one. */
function records(stderr: string): { level: string; time: number; msg: string; [field: string]: unknown }[] {
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      let record: unknown
      try {
        record = JSON.parse(line)
      } catch {
        throw new Error(`not a JSON line on stderr: ${line}`)
      }
      expect(record, line).toMatchObject({ level: expect.any(String), time: expect.any(Number), msg: expect.any(String) })
      return record as { level: string; time: number; msg: string }
    })
}

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-json-logs-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('--log-format json: every stderr line is a JSON object', () => {
  it.runIf(process.platform === 'linux' && !existsSync('/sys/class/bluetooth'))('scan --fallback-replay --metrics: the warning, the fallback and the metrics address (once)', async () => {
    const run = startCli(['scan', '--fallback-replay', 'fixtures/demo.jsonl', '--json', '--log-format', 'json', '--metrics', '0'], { env: { BEACONKIT_MQTT_URLL: 'mqtt://127.0.0.1:1' } })
    await run.waitFor(/"event":"found"/)
    run.child.kill('SIGINT')
    const r = await run.done
    expect(r.code).toBe(0)
    const lines = records(r.stderr)
    expect(lines.filter((l) => /BEACONKIT_MQTT_URLL is not a beaconkit setting.*did you mean BEACONKIT_MQTT_URL\?/.test(l.msg))).toMatchObject([{ level: 'warn' }])
    expect(lines.filter((l) => /no Bluetooth adapter here .*replaying fixtures\/demo\.jsonl instead/.test(l.msg))).toMatchObject([{ level: 'warn' }])
    expect(lines.filter((l) => /^metrics at http:\/\/127\.0\.0\.1:\d+\/metrics and \/healthz/.test(l.msg))).toMatchObject([{ level: 'info' }])
  }, 30_000)

  it.runIf(process.platform === 'linux' && !existsSync('/sys/class/bluetooth'))('scan --fallback-replay --metrics says the metrics address once, in the pretty format too', async () => {
    const run = startCli(['scan', '--fallback-replay', 'fixtures/demo.jsonl', '--json', '--log-format', 'pretty', '--metrics', '0'])
    await run.waitFor(/"event":"found"/)
    run.child.kill('SIGINT')
    const r = await run.done
    expect(r.code).toBe(0)
    expect(r.stderr.split('\n').filter((l) => /^beaconkit: metrics at http:/.test(l))).toHaveLength(1)
  }, 30_000)

  it('fleet with an embedded broker, --metrics and --http: the broker, metrics and map addresses', async () => {
    const r = await runCli(['fleet', '--embedded-broker', '0', '--metrics', '0', '--http', '0', '--json', '--duration', '2', '--log-format', 'json'])
    expect(r.code).toBe(0)
    const msgs = records(r.stderr).map((l) => l.msg)
    for (const pattern of [/^MQTT broker \(aedes\) listening on mqtt:/, /^metrics at http:/, /^live map at http:/]) expect(msgs.filter((m) => pattern.test(m))).toHaveLength(1)
  }, 30_000)

  it('the final answer is a JSON error record with its code: a broken config, messages a broker never took', async () => {
    const config = join(dir, 'bad.yaml')
    await writeFile(config, 'mqtt:\n  url: 5\n')
    await chmod(config, 0o600)
    const bad = await runCli(['replay', '--demo', '--virtual', '--json', '--log-format', 'json', '--config', config])
    expect(bad.code).toBe(2)
    expect(records(bad.stderr)).toMatchObject([{ level: 'error', code: 'invalid_config', msg: expect.stringMatching(/mqtt\.url/) }])
    const port = await freePort()
    const nowhere = await runCli(['replay', 'fixtures/demo.jsonl', '--virtual', '--json', '--mqtt', `mqtt://127.0.0.1:${port}`, '--log-format', 'json'])
    expect(nowhere.code).toBe(1)
    expect(records(nowhere.stderr).at(-1)).toMatchObject({ level: 'error', msg: expect.stringMatching(/^stopped; \d+ messages not acknowledged/) })
  }, 60_000)
})
