/**
 * The Pi service example under systemd: `systemctl stop` sends SIGTERM and waits (30 s in the
 * shipped unit) before SIGKILL; Ctrl-C sends SIGINT. The gateway runs as a real child process
 * with real noble over the fake HCI socket, which holds the event loop open while started as
 * the native socket's poll handle does, so a handle left behind shows up as a process that
 * does not exit.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'tsup'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { DRIVER_SERIAL } from './fixtures/driver-beacon.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** Far below the bug (a 30 s hang ending in SIGKILL), far above a loaded CI machine's exit time. */
const EXIT_BOUND_MS = 10_000

let out = ''
let dir = ''
let emulator: Emulator

beforeAll(async () => {
  // Inside node_modules so the bundle resolves @abandonware/noble as an installed app would.
  const cache = join(ROOT, 'node_modules', '.cache')
  await mkdir(cache, { recursive: true })
  out = await mkdtemp(join(cache, 'beaconkit-gateway-'))
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-gateway-'))
  await build({
    entry: { gateway: join(ROOT, 'test/integration/fixtures/gateway-over-fake-hci.ts') },
    outDir: out,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    external: ['@abandonware/noble'],
    config: false,
    silent: true,
    dts: false,
    clean: false,
    splitting: false,
    // package.json says "sideEffects": false; the entry's imports are nothing but side effects.
    esbuildOptions(options) {
      options.ignoreAnnotations = true
    },
  })
  emulator = await startEmulator({ accounts: [{ email: 'pi@site.test', password: 'pi-pass' }] })
  await writeFile(join(dir, 'password'), 'pi-pass\n', { mode: 0o600 })
})

afterAll(async () => {
  await emulator?.close()
  if (out !== '') await rm(out, { recursive: true, force: true })
  if (dir !== '') await rm(dir, { recursive: true, force: true })
})

interface Outcome {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** False when the child had to be killed after EXIT_BOUND_MS. */
  exitedByItself: boolean
}

/** Runs the gateway until it found the driver's beacon, sends `signal`, and waits for the exit. */
function runUntilFoundThenSignal(signal: NodeJS.Signals, queue: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(out, 'gateway.js')], {
      cwd: dir,
      env: {
        ...process.env,
        BEACONKIT_UPLOAD_CLOUD_URL: emulator.url,
        BEACONKIT_UPLOAD_EMAIL: 'pi@site.test',
        BEACONKIT_UPLOAD_PASSWORD_FILE: join(dir, 'password'),
        BEACONKIT_UPLOAD_QUEUE_DIR: join(dir, queue),
        BEACONKIT_ADAPTER_HCI: '0',
      },
    })
    let stdout = ''
    let stderr = ''
    let signalled = false
    let bound: NodeJS.Timeout | undefined
    let exitedByItself = true
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      if (!signalled && stdout.includes(`found ${DRIVER_SERIAL}`)) {
        signalled = true
        child.kill(signal)
        bound = setTimeout(() => {
          exitedByItself = false
          child.kill('SIGKILL')
        }, EXIT_BOUND_MS)
      }
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code, sig) => {
      clearTimeout(bound)
      if (!signalled) reject(new Error(`gateway exited before finding the beacon (code ${code}): ${stderr}${stdout}`))
      else resolve({ code, signal: sig, stdout, stderr, exitedByItself })
    })
  })
}

describe('examples/gateway.ts with real noble over the simulated HCI socket', () => {
  it('SIGTERM: stops scanning, flushes the queue and exits 0 by itself (no 30 s wait for SIGKILL)', async () => {
    const r = await runUntilFoundThenSignal('SIGTERM', 'queue-term')
    expect(r.exitedByItself, `still running ${EXIT_BOUND_MS} ms after SIGTERM; stdout:\n${r.stdout}`).toBe(true)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toContain('stopping (SIGTERM)')
    expect(lines.at(-1)).toBe('stopped')
    expect(emulator.store.uploads('pi@site.test').some((u) => u.beaconMac === DRIVER_SERIAL)).toBe(true)
  })
})

describe('Ctrl-C (SIGINT) with real noble loaded', () => {
  it("runs the application's clean shutdown and exits 0: noble's own SIGINT handler (process.exit(1)) is removed", async () => {
    const r = await runUntilFoundThenSignal('SIGINT', 'queue-int')
    expect(r.exitedByItself).toBe(true)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toContain('stopping (SIGINT)')
    expect(lines.at(-1)).toBe('stopped')
    expect(emulator.store.uploads('pi@site.test').filter((u) => u.beaconMac === DRIVER_SERIAL).length).toBeGreaterThan(0)
  })
})
