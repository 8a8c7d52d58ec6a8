// Rough edges of the command line a new user hit (issue #24): flags that were ignored or
// unknown, a hint missing a flag, the help of the fleet and the broker ending with the
// scanner's text. Real processes of the built command, a real (embedded) broker.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { refused } from './refused.js'
import { runCli, startCli } from './run-cli.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-rough-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('simulate --site', () => {
  it('refuses --http (its gateways only publish) and says to run fleet --http, as --json is refused', async () => {
    const e = refused(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', 'mqtt://127.0.0.1:1883', '--http', '28841'])
    expect(e.code).toBe('invalid_option')
    expect(e.message).toMatch(/--http does not go with --site.*beaconkit fleet --mqtt <url> --site <site.json> --http/)
    const run = await runCli(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', 'mqtt://127.0.0.1:1', '--http', '28841'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/run beaconkit fleet .*--http/)
  })

  describe('against a broker', () => {
    let broker: RunningBroker
    beforeAll(async () => {
      broker = await startBroker({ port: 0 })
    })
    afterAll(async () => {
      await broker?.close()
    })

    it('prints a "watch it:" line with the same --mqtt-prefix (a fleet on another prefix hears nothing)', async () => {
      const sim = startCli(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', broker.url, '--mqtt-prefix', 'office', '--duration', '60'])
      try {
        await sim.waitFor(/watch it: .*\n/)
        expect(sim.output()).toContain(`watch it: beaconkit fleet --mqtt ${broker.url} --mqtt-prefix office --site fixtures/site-demo.json\n`)
      } finally {
        sim.child.kill('SIGTERM')
      }
      expect((await sim.done).code).toBe(0)
    }, 30_000)
  })
})

describe('fleet --record over an existing file', () => {
  it('is refused with exit 2 saying to add --force, and --force replaces it', async () => {
    const file = join(dir, 'existing.jsonl')
    await writeFile(file, 'old\n')
    const refusedRun = await runCli(['fleet', '--embedded-broker', '0', '--record', file, '--duration', '0.2'])
    expect(refusedRun.code).toBe(2)
    expect(refusedRun.stderr).toMatch(/exists already; give another file name, or add --force to replace it/)
    const forced = await runCli(['fleet', '--embedded-broker', '0', '--record', file, '--force', '--duration', '1', '--json'])
    expect(forced.stderr).not.toMatch(/unknown option/)
    expect(forced.code, forced.stderr).toBe(0)
    expect(parseCommandLine(['fleet', '--mqtt', 'mqtt://h', '--record', file, '--force'])).toMatchObject({ record: file, force: true })
    expect(refused(['fleet', '--mqtt', 'mqtt://h', '--force']).message).toMatch(/--force goes with --record/)
  }, 30_000)
})

describe('fleet --help and broker --help', () => {
  it('end with their own stop and exit codes, not the scanner upload and Bluetooth text', async () => {
    for (const command of ['fleet', 'broker']) {
      const { code, stdout } = await runCli([command, '--help'])
      expect(code).toBe(0)
      expect(stdout).not.toMatch(/Bluetooth|upload|the scanner stops|cloud account|--queue-dir/i)
      expect(stdout).toMatch(/Exit codes: 0 done/)
    }
    expect((await runCli(['fleet', '--help'])).stdout).toMatch(/--force\s+let --record replace an existing file/)
  })
})
