import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { requireBuild, runCli } from './run-cli.js'

// The config file as a user meets it: printed, checked, and run, against a real broker.
describe('beaconkit config and --config', () => {
  let dir: string
  beforeAll(async () => {
    requireBuild()
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-config-cli-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('prints an example that passes its check, a fleet example too, and the JSON Schema', async () => {
    for (const [args, name, role] of [[['config', 'example'], 'g.yaml', 'gateway'], [['config', 'example', '--fleet'], 'f.yaml', 'fleet']] as const) {
      const example = await runCli([...args])
      expect(example.code).toBe(0)
      await writeFile(join(dir, name), example.stdout)
      const check = await runCli(['config', 'check', join(dir, name)])
      expect(check).toMatchObject({ code: 0, stdout: `${join(dir, name)}: ok (${role})\n` })
    }
    const schema = await runCli(['config', 'schema'])
    expect(JSON.parse(schema.stdout)).toEqual(JSON.parse(await readFile(new URL('../../schema/beaconkit-config.schema.json', import.meta.url), 'utf8')))
  })

  it('exits 2 on a broken config, naming every problem by its path and printing no secret', async () => {
    const path = join(dir, 'broken.yaml')
    await writeFile(path, 'mqtt:\n  url: 1883\n  username: gw\n  password: hunter2-very-secret\n  homeAssistant: { enabled: "yes" }\nlogging:\n  levle: debug\n')
    await chmod(path, 0o644)
    const check = await runCli(['config', 'check', path])
    expect(check.code).toBe(2)
    expect(check.stdout).toMatch(/^mqtt\.url: /m)
    expect(check.stdout).toMatch(/^mqtt\.homeAssistant\.enabled: /m)
    expect(check.stdout).toMatch(/^logging\.levle: unknown key/m)
    expect(check.stdout).toMatch(/^mqtt\.password: a secret in plain text in a file others can read \(mode 644\)/m)
    expect(check.stdout).toMatch(/broken\.yaml: 4 problems/)
    // The same file given to a command stops it before anything starts, with the same problems.
    const run = await runCli(['replay', '--demo', '--virtual', '--json', '--config', path])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/4 problems.*\[invalid_config\]/s)
    for (const out of [check.stdout, check.stderr, run.stdout, run.stderr]) expect(out).not.toContain('hunter2')
  })

  describe.skipIf(!MOSQUITTO)(needsMosquitto('against a real Mosquitto'), () => {
    let broker: Mosquitto
    beforeAll(async () => {
      broker = await Mosquitto.start()
    })
    afterAll(async () => {
      await broker.stop()
    })

    it('publishes from a config file what the same flags publish', async () => {
      const flags = await runCli(['replay', '--demo', '--virtual', '--json', '--mqtt', broker.url, '--mqtt-prefix', 'byflags', '--gateway-id', 'hall', '--ha'])
      expect(flags.code).toBe(0)
      const config = join(dir, 'run.yaml')
      await writeFile(config, `gateway:\n  id: hall\nmqtt:\n  url: mqtt://127.0.0.1:1\n  prefix: byconfig\n  homeAssistant:\n    enabled: true\n`)
      // The environment overrides the file's broker: the service's unit can point a shared file at its own broker.
      const byConfig = await runCli(['replay', '--demo', '--virtual', '--json', '--config', config], { env: { ...process.env, BEACONKIT_MQTT_URL: broker.url } })
      expect(byConfig.code).toBe(0)
      const retained = await retainedMessages(broker.url, ['byflags/#', 'byconfig/#'])
      const topics = (prefix: string): string[] => [...retained.keys()].filter((t) => t.startsWith(`${prefix}/`)).map((t) => t.slice(prefix.length)).sort()
      expect(topics('byflags').length).toBeGreaterThan(0)
      expect(topics('byconfig')).toEqual(topics('byflags'))
      expect(retained.get('byconfig/gateways/hall/status')).toMatch(/"offline"/)
    })
  })
})
