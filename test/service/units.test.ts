import { spawn } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { parse, stringify } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { CLI, requireBuild, ROOT, runCli } from '../cli/run-cli.js'
import { CONFIG_DIR, environment, execStart, INSTALLED_BINARY, readUnit, serviceValues, SYSTEMD_DIR, withOptionalSettings } from './unit-file.js'

const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p))
const ANALYZE_SKIP = 'systemd-analyze is not installed (apt-get install -y systemd); skipping the unit verification'

const UNITS = [
  { unit: 'beaconkit-gateway.service', command: 'scan', role: 'gateway', statusTopic: 'beaconkit/gateways/hall/status', maxExposure: 2.5 },
  { unit: 'beaconkit-fleet.service', command: 'fleet', role: 'fleet', statusTopic: 'beaconkit/fleet/status', maxExposure: 2.0 },
] as const

/** Runs a program to its end; no shell. */
function run(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-units-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the units as shipped', () => {
  it.each(UNITS)('$unit runs the installed command with the config it names, and that config passes the check', async ({ unit, command, role }) => {
    const text = readUnit(unit)
    expect(execStart(text)).toEqual([INSTALLED_BINARY, command, '--config', `${CONFIG_DIR}/${role}.yaml`])
    // Exit 2 is a bad config or option: a restart loop would only repeat the message.
    expect(serviceValues(text, 'RestartPreventExitStatus').join(' ').split(/\s+/)).toContain('2')
    expect(serviceValues(text, 'Restart')).toEqual(['on-failure'])
    for (const breaking of ['PrivateNetwork', 'PrivateUsers', 'MemoryDenyWriteExecute']) expect(serviceValues(text, breaking)).toEqual([])
    requireBuild()
    const check = await runCli(['config', 'check', join(SYSTEMD_DIR, `${role}.yaml`)])
    expect(check).toMatchObject({ code: 0, stdout: `${join(SYSTEMD_DIR, `${role}.yaml`)}: ok (${role})\n` })
  })

  it('gives the gateway the capabilities noble needs and the fleet none', () => {
    const gateway = readUnit('beaconkit-gateway.service')
    expect(serviceValues(gateway, 'AmbientCapabilities')).toEqual(['CAP_NET_RAW CAP_NET_ADMIN'])
    expect(serviceValues(gateway, 'CapabilityBoundingSet')).toEqual(['CAP_NET_RAW CAP_NET_ADMIN'])
    expect(serviceValues(gateway, 'RestrictAddressFamilies').join(' ')).toContain('AF_BLUETOOTH')
    const fleet = readUnit('beaconkit-fleet.service')
    expect(serviceValues(fleet, 'AmbientCapabilities')).toEqual([''])
    expect(serviceValues(fleet, 'CapabilityBoundingSet')).toEqual([''])
    expect(serviceValues(fleet, 'RestrictAddressFamilies').join(' ')).not.toContain('AF_BLUETOOTH')
  })
})

describe.skipIf(ANALYZE === undefined)(ANALYZE === undefined ? `systemd-analyze [skipped: ${ANALYZE_SKIP}]` : 'systemd-analyze', () => {
  // verify insists that ExecStart's binary exists on this machine: point it at a script that does.
  let binary: string
  beforeAll(async () => {
    binary = join(dir, 'beaconkit')
    await writeFile(binary, '#!/bin/sh\nexit 0\n')
    await chmod(binary, 0o755)
  })

  async function unitCopy(name: string, text: string): Promise<string> {
    const sub = await mkdtemp(join(dir, 'unit-'))
    const path = join(sub, name)
    await writeFile(path, text.replaceAll(INSTALLED_BINARY, binary))
    return path
  }

  async function verify(path: string): Promise<void> {
    const result = await run(ANALYZE as string, ['verify', '--man=no', '--generators=no', path])
    // An unknown key or a bad value is only a warning (exit 0): the check is an empty stderr.
    expect(result).toMatchObject({ code: 0, stderr: '' })
  }

  it.each(UNITS)('verifies $unit with no warning, and with its optional settings switched on', async ({ unit }) => {
    const text = readUnit(unit)
    await verify(await unitCopy(unit, text))
    expect(withOptionalSettings(text)).not.toEqual(text)
    await verify(await unitCopy(unit, withOptionalSettings(text)))
  })

  it('verifies the gateway with the BlueZ drop-in applied', async () => {
    const text = `${readUnit('beaconkit-gateway.service')}\n${readUnit('bluez.conf')}`
    await verify(await unitCopy('beaconkit-gateway.service', text))
  })

  it.each(UNITS)('scores $unit at most $maxExposure in systemd-analyze security', async ({ unit, maxExposure }) => {
    const result = await run(ANALYZE as string, ['security', '--offline=true', '--no-pager', await unitCopy(unit, readUnit(unit))])
    expect(result.code).toBe(0)
    const score = /Overall exposure level for \S+: (\d+\.\d+)/.exec(result.stdout)
    expect(score).not.toBeNull()
    expect(Number(score?.[1])).toBeLessThanOrEqual(maxExposure)
  })
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('each unit’s command line, adapted to a temp directory, against a real Mosquitto'), () => {
  let broker: Mosquitto
  beforeAll(async () => {
    requireBuild()
    broker = await Mosquitto.start()
  })
  afterAll(async () => {
    await broker.stop()
  })

  it.each(UNITS)('$unit becomes healthy, and on SIGTERM exits 0 leaving its status offline', { timeout: 90_000 }, async ({ unit, role, statusTopic }) => {
    const root = await mkdtemp(join(dir, `${role}-`))
    const dirs = { state: join(root, 'var-lib'), credentials: join(root, 'credentials') }
    const etc = join(root, 'etc')
    // What systemd does before ExecStart: StateDirectory= and ConfigurationDirectory= exist.
    await mkdir(join(dirs.state, 'beaconkit'), { recursive: true, mode: 0o700 })
    await mkdir(etc, { recursive: true })
    const text = readUnit(unit)
    const argv = execStart(text).map((word) => (word.startsWith(`${CONFIG_DIR}/`) ? join(etc, word.slice(CONFIG_DIR.length + 1)) : word))
    expect(argv[0]).toBe(INSTALLED_BINARY)
    const configPath = argv[argv.indexOf('--config') + 1] as string

    // The config the unit names, as shipped, with only what this machine must differ in changed.
    const config = parse(await readFile(join(SYSTEMD_DIR, basename(configPath)), 'utf8')) as Record<string, Record<string, unknown>>
    const port = await freePort()
    config.mqtt = { ...config.mqtt, url: broker.url }
    config.metrics = { ...config.metrics, listen: `127.0.0.1:${port}` }
    // No Bluetooth here: scan says so and replays the demo recording instead.
    if (role === 'gateway') config.adapter = { ...config.adapter, fallbackReplay: join(ROOT, 'fixtures/demo.jsonl') }
    await writeFile(configPath, stringify(config))

    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BEACONKIT_')))
    const child = spawn(process.execPath, [CLI, ...argv.slice(1)], { cwd: root, env: { ...env, ...environment(text, dirs) }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
    let ended = false
    void exited.then(() => (ended = true))

    try {
      // Polled until healthy; the test's own timeout bounds it. A process that ends first fails here.
      let status: number | undefined
      while (status !== 200) {
        if (ended) throw new Error(`${unit}'s command ended before /healthz said 200; stderr:\n${stderr}`)
        status = await fetch(`http://127.0.0.1:${port}/healthz`).then(async (r) => (await r.arrayBuffer(), r.status), () => undefined)
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      // Healthy means the broker is connected; the retained `online` said on that connection may
      // reach a new subscriber a moment later on a loaded machine: read until it is there.
      let retained: string | undefined
      while (retained === undefined) retained = (await retainedMessages(broker.url, statusTopic)).get(statusTopic)
      expect(retained).toMatch(/"state":\s*"online"/)
      child.kill('SIGTERM')
      expect(await exited, stderr).toEqual({ code: 0, signal: null })
    } finally {
      // A failed or timed-out run must not leave the command behind.
      if (!ended) child.kill('SIGKILL')
    }
    expect((await retainedMessages(broker.url, statusTopic)).get(statusTopic)).toMatch(/"state":\s*"offline"/)
    // The unit's Environment= reached the command: the MQTT queue lives in the state directory.
    if (role === 'gateway') expect(existsSync(join(dirs.state, 'beaconkit', 'mqtt-queue'))).toBe(true)
  })
})
