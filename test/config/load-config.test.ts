import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, InvalidOptionError, loadConfig } from '../../src/index.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-load-config-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('loadConfig', () => {
  it('fills one model from a file, the environment and flags, flags winning over the environment over the file', async () => {
    const file = join(dir, 'gateway.yaml')
    await writeFile(file, 'gateway:\n  id: hall\nmqtt:\n  url: mqtt://file:1883\n  clientId: from-file\n')
    await chmod(file, 0o600)
    const config = await loadConfig({
      file,
      env: { BEACONKIT_MQTT_URL: 'mqtt://env:1883', BEACONKIT_MQTT_USERNAME: 'env-user', PATH: '/bin' },
      flags: { mqtt: { username: 'flag-user' } },
    })
    expect(config.gateway?.id).toBe('hall')
    expect(config.mqtt?.url).toBe('mqtt://env:1883')
    expect(config.mqtt?.clientId).toBe('from-file')
    expect(config.mqtt?.username).toBe('flag-user')
  })

  it('reads nothing that is not named: no file and no environment is an empty model', async () => {
    await expect(loadConfig()).resolves.toEqual({})
  })

  it('throws one ConfigError (invalid_config) naming every bad setting by where it is', async () => {
    const file = join(dir, 'bad.yaml')
    await writeFile(file, 'mqtt:\n  url: 5\n  colour: red\n')
    await chmod(file, 0o600)
    const error = await loadConfig({ file, env: { BEACONKIT_MQTT_RSSI_PARTITIONS: 'many' }, flags: { gateway: { id: 'a b' } } }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect(error).toBeInstanceOf(InvalidOptionError)
    const { code, problems } = error as ConfigError
    expect(code).toBe('invalid_config')
    const paths = problems.map((p) => p.path)
    expect(paths).toContain('BEACONKIT_MQTT_RSSI_PARTITIONS')
    expect(paths).toContain('bad.yaml: mqtt.url')
    expect(paths.some((p) => p.startsWith('bad.yaml: mqtt') && p !== 'bad.yaml: mqtt.url')).toBe(true)
    expect(paths).toContain('flags: gateway.id')
  })

  it('reports a BEACONKIT_ variable that is no setting where asked', async () => {
    const warnings: string[] = []
    await loadConfig({ env: { BEACONKIT_MQTT_UR: 'mqtt://x' }, warn: (text) => warnings.push(text) })
    expect(warnings).toEqual([expect.stringMatching(/^BEACONKIT_MQTT_UR is not a beaconkit setting.*did you mean BEACONKIT_MQTT_URL\?/)])
  })
})
