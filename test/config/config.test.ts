import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { configuredOptions } from '../../src/cli/configured.js'
import { findCommand } from '../../src/cli/commands/registry.js'
import { readEnvironment } from '../../src/config/env.js'
import { FLEET_EXAMPLE, GATEWAY_EXAMPLE } from '../../src/config/example.js'
import { CONFIG_FIELDS, envName, inConfigTerms } from '../../src/config/fields.js'
import { loadConfigFile } from '../../src/config/load.js'
import { checkModel, configJsonSchema } from '../../src/config/schema.js'
import { InvalidOptionError } from '../../src/errors.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-config-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function file(name: string, text: string, mode = 0o600): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, text)
  await chmod(path, mode)
  return path
}

/** Parses a command line of `command` beneath a config file and an environment, as the CLI's entry point does. */
async function parseWith(args: string[], env: Record<string, string> = {}): Promise<ReturnType<typeof parseCommandLine>> {
  const command = findCommand(args[0])
  if (command === undefined) throw new Error(`no command ${args[0]}`)
  const configured = await configuredOptions(command, args.slice(1), env, () => undefined)
  const { parseInvocation } = await import('../../src/cli/args.js')
  return parseInvocation(args, configured).parsed
}

describe('the configuration model', () => {
  it('accepts both printed examples as they are', async () => {
    for (const [name, text] of [['g.yaml', GATEWAY_EXAMPLE], ['f.yaml', FLEET_EXAMPLE]] as const) {
      const loaded = await loadConfigFile(await file(name, text, 0o644))
      expect(loaded.problems).toEqual([])
      expect(loaded.model?.mqtt?.url).toBe('mqtt://127.0.0.1:1883')
    }
  })

  it('names every problem by its path, unknown keys and wrong types alike, and echoes no value', async () => {
    const path = await file('bad.yaml', 'mqtt:\n  url: 5\n  homeAssistant:\n    dwell: -3\nbeacons:\n  - name: Kettle\nlogging:\n  level: loud\nbogus: secret-looking-value\n')
    const { problems, model } = await loadConfigFile(path)
    expect(model).toBeUndefined()
    expect(problems.map((p) => p.path).sort()).toEqual(['beacons[0]', 'bogus', 'logging.level', 'mqtt.homeAssistant.dwell', 'mqtt.url'])
    expect(JSON.stringify(problems)).not.toContain('secret-looking-value')
    expect(JSON.stringify(problems)).not.toContain('loud')
  })

  it('refuses a secret in plain text in a file others can read, and takes it from a private one', async () => {
    const text = 'mqtt:\n  url: mqtt://127.0.0.1:1883\n  username: gw\n  password: hunter2-very-secret\n'
    const open = await loadConfigFile(await file('open.yaml', text, 0o644))
    expect(open.problems).toEqual([{ path: 'mqtt.password', message: expect.stringMatching(/mode 644.*chmod 600.*mqtt\.passwordFile.*BEACONKIT_MQTT_PASSWORD/) }])
    expect(JSON.stringify(open.problems)).not.toContain('hunter2')
    const parsed = await parseWith(['scan', '--config', await file('private.yaml', text, 0o600)])
    expect(parsed).toMatchObject({ command: 'scan', view: { mqtt: { url: 'mqtt://127.0.0.1:1883', username: 'gw', password: 'hunter2-very-secret' } } })
  })

  it('reads YAML and JSON, reports a syntax error by its line, and takes an empty file as no settings', async () => {
    expect((await loadConfigFile(await file('c.json', '{"mqtt": {"url": "mqtt://h:1883"}}'))).model).toEqual({ mqtt: { url: 'mqtt://h:1883' } })
    const broken = await loadConfigFile(await file('broken.yaml', 'mqtt:\n  url: [unclosed\n'))
    expect(broken.problems[0]?.path).toMatch(/^line \d+$/)
    expect((await loadConfigFile(await file('empty.yaml', ''))).problems).toEqual([])
  })

  it('lets flags win over the environment, and the environment over the file (lists whole)', async () => {
    const path = await file('p.yaml', 'mqtt:\n  url: mqtt://file:1883\n  prefix: fromfile\nfilters:\n  serialNumbers: ["aaaaaaaaaaaa", "bbbbbbbbbbbb"]\n')
    const env = { BEACONKIT_MQTT_URL: 'mqtt://env:1883', BEACONKIT_FILTERS_SERIAL_NUMBERS: 'cccccccccccc' }
    expect(await parseWith(['scan', '--config', path])).toMatchObject({ view: { mqtt: { url: 'mqtt://file:1883', topicPrefix: 'fromfile' }, filter: { serialNumbers: ['AAAAAAAAAAAA', 'BBBBBBBBBBBB'] } } })
    expect(await parseWith(['scan', '--config', path], env)).toMatchObject({ view: { mqtt: { url: 'mqtt://env:1883', topicPrefix: 'fromfile' }, filter: { serialNumbers: ['CCCCCCCCCCCC'] } } })
    expect(await parseWith(['scan', '--config', path, '--mqtt', 'mqtt://flag:1883', '--serial', 'dddddddddddd'], env)).toMatchObject({ view: { mqtt: { url: 'mqtt://flag:1883' }, filter: { serialNumbers: ['DDDDDDDDDDDD'] } } })
  })

  it('takes irk.file from the file, BEACONKIT_IRK_FILE over it, --irk-file over both; never a key in the model (#37)', async () => {
    const path = await file('irk.yaml', 'irk:\n  file: /from/file.irk\n')
    expect(await parseWith(['replay', '--config', path, 'x.jsonl'])).toMatchObject({ view: { irkFile: '/from/file.irk' } })
    expect(await parseWith(['replay', '--config', path, 'x.jsonl'], { BEACONKIT_IRK_FILE: '/from/env.irk' })).toMatchObject({ view: { irkFile: '/from/env.irk' } })
    expect(await parseWith(['replay', '--config', path, '--irk-file', '/from/flag.irk', 'x.jsonl'], { BEACONKIT_IRK_FILE: '/from/env.irk' })).toMatchObject({ view: { irkFile: '/from/flag.irk' } })
    const keyed = await loadConfigFile(await file('irk-key.yaml', 'irk:\n  keys: [ec0234a357c8ad05341010a60a397d9b]\n', 0o600))
    expect(keyed.problems.map((p) => p.path)).toEqual(['irk.keys'])
    expect(JSON.stringify(keyed.problems)).not.toContain('ec0234a357c8ad05341010a60a397d9b')
  })

  it('gives a config file the same result as the flags it stands for', async () => {
    const path = await file('same.yaml', 'gateway:\n  id: hall\nmqtt:\n  url: mqtt://127.0.0.1:1883\n  homeAssistant:\n    enabled: true\n    dwell: 5\n    beacons: "off"\nhttp:\n  listen: 8080\n')
    const byFlags = parseCommandLine(['replay', '--demo', '--mqtt', 'mqtt://127.0.0.1:1883', '--gateway-id', 'hall', '--ha', '--ha-dwell', '5', '--ha-beacons', 'off', '--http', '8080'])
    expect(await parseWith(['replay', '--demo', '--config', path])).toEqual(byFlags)
  })

  it('gives the beacon names to a gateway\'s Home Assistant and to a fleet\'s site', async () => {
    const text = 'mqtt:\n  url: mqtt://127.0.0.1:1883\n  homeAssistant:\n    enabled: true\nbeacons:\n  - serialNumber: 0117C5000041\n    name: Kettle\nsite:\n  gateways:\n    hall: {}\n  rooms:\n    Hall: [hall]\n'
    const path = await file('names.yaml', text)
    expect(await parseWith(['scan', '--config', path])).toMatchObject({ view: { mqtt: { beaconNames: [{ serialNumber: '0117C5000041', name: 'Kettle' }] } } })
    expect(await parseWith(['fleet', '--config', path])).toMatchObject({ command: 'fleet', siteJson: { rooms: { Hall: ['hall'] } }, beaconNames: [{ serialNumber: '0117C5000041', name: 'Kettle' }] })
  })

  it('reports a setting the command refuses with where it was set', async () => {
    const path = await file('sem.yaml', 'mqtt:\n  url: mqtt://127.0.0.1:1883\n  homeAssistant:\n    dwell: 10\n')
    await expect(parseWith(['scan', '--config', path])).rejects.toThrow(/sem\.yaml: mqtt\.homeAssistant\.dwell: --ha-dwell only takes effect with --ha/)
    await expect(parseWith(['scan'], { BEACONKIT_MQTT_URL: 'not a url' })).rejects.toThrow(/^BEACONKIT_MQTT_URL: --mqtt takes a broker URL/)
    expect(inConfigTerms('--ha-dwell only takes effect with --ha')).toBe('mqtt.homeAssistant.dwell only takes effect with mqtt.homeAssistant.enabled')
  })

  it('throws one invalid_config error listing every problem of the file and the environment', async () => {
    const path = await file('two.yaml', 'mqtt:\n  url: 5\nbogus: 1\n')
    const error = await parseWith(['fleet', '--config', path], { BEACONKIT_FILTERS_MIN_RSSI: 'loud' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect((error as InvalidOptionError).code).toBe('invalid_config')
    expect((error as Error).message).toMatch(/3 problems/)
    expect((error as Error).message).toMatch(/two\.yaml: mqtt\.url: /)
    expect((error as Error).message).toMatch(/two\.yaml: bogus: unknown key/)
    expect((error as Error).message).toMatch(/BEACONKIT_FILTERS_MIN_RSSI: expected a number/)
  })

  it('reads each setting from BEACONKIT_<PATH>, by kind, and lists variables that are no setting', () => {
    expect(envName('mqtt.homeAssistant.enabled')).toBe('BEACONKIT_MQTT_HOME_ASSISTANT_ENABLED')
    const env = readEnvironment({ BEACONKIT_MQTT_HOME_ASSISTANT_ENABLED: 'yes', BEACONKIT_ADAPTER_HCI: '0,1', BEACONKIT_FILTERS_MIN_RSSI: '-80', BEACONKIT_MQT_URL: 'x', BKDEV_TETAM: '/data', PATH: '/bin' })
    expect(env.data).toEqual({ mqtt: { homeAssistant: { enabled: true } }, adapter: { hci: [0, 1] }, filters: { minRssi: -80 } })
    expect(env.unknown).toEqual(['BEACONKIT_MQT_URL'])
    expect(checkModel(env.data).problems).toEqual([])
  })

  it('maps every setting of the schema, and every setting onto a schema path', () => {
    const schema = configJsonSchema() as { properties: Record<string, { properties?: Record<string, unknown> }> }
    const leaves = (props: Record<string, { properties?: Record<string, unknown> }>, at: string): string[] =>
      Object.entries(props).flatMap(([k, v]) => (v.properties !== undefined && k !== 'site' ? leaves(v.properties as Record<string, { properties?: Record<string, unknown> }>, `${at}${k}.`) : [`${at}${k}`]))
    const inSchema = leaves(schema.properties, '').filter((p) => p !== '$schema')
    expect(inSchema.sort()).toEqual(CONFIG_FIELDS.map((f) => f.path).sort())
  })

  it('ships the JSON Schema it generates', async () => {
    const shipped: unknown = JSON.parse(await readFile(new URL('../../schema/beaconkit-config.schema.json', import.meta.url), 'utf8'))
    expect(shipped).toEqual(configJsonSchema())
  })

  it('keeps a secret setting out of util.inspect and JSON of what the broker client keeps', async () => {
    const { resolvePublisherOptions } = await import('../../src/mqtt/publisher-options.js')
    const resolved = resolvePublisherOptions({ url: 'mqtt://127.0.0.1:1883', gatewayId: 'g', username: 'u', password: 'hunter2-very-secret' })
    expect(inspect(resolved, { depth: 5 })).not.toContain('hunter2')
    expect(JSON.stringify(resolved)).not.toContain('hunter2')
    expect((await resolved.readSecrets()).password).toBe('hunter2-very-secret')
  })
})

describe('docs/configuration.md', () => {
  it('lists every setting with its environment variable', async () => {
    const doc = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8')
    for (const field of CONFIG_FIELDS) expect(doc, field.path).toContain(`| \`${field.path}\` |`)
    for (const field of CONFIG_FIELDS) expect(doc, field.path).toContain(envName(field.path))
  })
})
