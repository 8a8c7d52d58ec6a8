// The examples run in CI: bundled as a user's build would be, and run under a replay.
import { describe, it, expect, beforeAll } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'tsup'
import { startEmulator } from '../../src/emulator/emulator.js'
import { ROOT } from './run-cli.js'
import { SERIAL, writeRecording } from './recording.js'

let dir = ''
let recording = ''

function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: ROOT, env: { ...process.env, ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-examples-'))
  recording = join(dir, 'site.jsonl')
  await writeRecording(recording)
  await build({
    entry: { scan: join(ROOT, 'examples/scan.ts'), gateway: join(ROOT, 'examples/gateway.ts') },
    outDir: join(dir, 'out'),
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    external: ['@abandonware/noble'],
    // The bundle runs from a temporary folder without node_modules beside it.
    noExternal: ['eventemitter3', 'zod', 'yaml'],
    config: false,
    silent: true,
    dts: false,
    clean: false,
    splitting: false,
  })
})

describe('examples', () => {
  it('scan.ts prints found and gone for a replayed recording', async () => {
    const r = await run(join(dir, 'out/scan.js'), [recording])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines.filter((l) => l.startsWith('found ')).length).toBe(3)
    expect(lines.filter((l) => l.startsWith('gone  ')).length).toBe(3)
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^found ${SERIAL} at [\\d.]+ m \\(\\w+\\)$`)))
  })

  it('gateway.ts verifies keys, uploads to the account interface and shuts down cleanly', async () => {
    const emulator = await startEmulator({ accounts: [{ email: 'gw@site.test', password: 'gw-pass' }] })
    try {
      await writeFile(join(dir, 'password'), 'gw-pass\n', { mode: 0o600 })
      await writeFile(join(dir, 'keys'), '# site keys\n7b4b5ff594fdaf8f9fc7f2b494e400016f461205\n', { mode: 0o600 })
      const r = await run(join(dir, 'out/gateway.js'), [recording], {
        BEACONKIT_UPLOAD_CLOUD_URL: emulator.url,
        BEACONKIT_UPLOAD_EMAIL: 'gw@site.test',
        BEACONKIT_UPLOAD_PASSWORD_FILE: join(dir, 'password'),
        BEACONKIT_KEYS_FILE: join(dir, 'keys'),
        BEACONKIT_UPLOAD_QUEUE_DIR: join(dir, 'queue'),
      })
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`found ${SERIAL}`)
      expect(r.stdout).toMatch(/uploaded \d+ records/)
      // The queue is flushed during the shutdown, before "stopped".
      const lines = r.stdout.trim().split('\n')
      expect(lines.at(-1)).toBe('stopped')
      expect(lines.findIndex((l) => l.startsWith('uploaded'))).toBeGreaterThan(lines.indexOf('stopping (end of the recording)'))
      expect(emulator.store.uploads('gw@site.test').some((u) => u.beaconMac === SERIAL)).toBe(true)
    } finally {
      await emulator.close()
    }
  })

  it('gateway.ts says which setting is missing', async () => {
    const r = await run(join(dir, 'out/gateway.js'), [], { BEACONKIT_UPLOAD_PASSWORD_FILE: '' })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/BEACONKIT_UPLOAD_PASSWORD_FILE: is empty/)
  })
})
