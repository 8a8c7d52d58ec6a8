/**
 * kill -9 at any moment loses nothing accepted: real child processes push into a file queue
 * against a flaky emulator, are SIGKILLed mid-flight, and a restarted process delivers every
 * record whose push had resolved. Runs against the built package (CI builds first).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'

const here = dirname(fileURLToPath(import.meta.url))
const child = join(here, 'fixtures', 'upload-child.mjs')
const dist = join(here, '..', '..', 'dist', 'index.js')

let emu: Emulator
let dir: string

beforeAll(async () => {
  if (!existsSync(dist) || !readFileSync(dist, 'utf8').includes('FileQueue')) {
    throw new Error('dist/index.js is missing or predates the uploader: run npm run build first')
  }
  emu = await startEmulator({ accounts: [{ email: 'crash@example.com', password: 'crash-test-password' }], seed: 3 })
  dir = mkdtempSync(join(tmpdir(), 'beaconkit-crash-'))
})
afterAll(async () => {
  await emu?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

/** Runs a pushing child until it has printed `atLeast` accepted ids (plus a little), then SIGKILLs it. */
function pushThenKill(queueDir: string, start: number, atLeast: number): Promise<{ accepted: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, emu.url, queueDir, 'push', String(start)], { stdio: ['ignore', 'pipe', 'pipe'] })
    const accepted: string[] = []
    let buffer = ''
    let stderr = ''
    let killing = false
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    proc.stdout.on('data', (d: Buffer) => {
      buffer += d.toString()
      const lines = buffer.split('\n')
      buffer = lines.pop() ?? ''
      for (const line of lines) if (line.startsWith('accepted ')) accepted.push(line.slice(9))
      if (!killing && accepted.length >= atLeast) {
        killing = true
        // Let it run on for a moment so the kill lands in the middle of writes and uploads.
        setImmediate(() => proc.kill('SIGKILL'))
      }
    })
    proc.on('error', reject)
    proc.on('exit', (code, signal) => {
      // Whatever was printed completely before the kill counts as accepted.
      if (signal !== 'SIGKILL') reject(new Error(`push child exited ${code}: ${stderr}`))
      else resolve({ accepted, signal })
    })
  })
}

function drain(queueDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, emu.url, queueDir, 'drain', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()))
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()))
    proc.on('error', reject)
    proc.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`drain exited ${code}: ${err}`))))
  })
}

describe('durable upload queue under kill -9', () => {
  it('delivers every accepted record after two SIGKILLs mid-flight and a restart', async () => {
    const queueDir = join(dir, 'queue')
    // Slow and failing: some batches get through (and are acked) while the process is killed.
    emu.setFaults({ failureRate: 0.5, latencyMs: 3, resetRate: 0.1 })
    const first = await pushThenKill(queueDir, 0, 400)
    const storedAtFirstKill = new Set(emu.store.uploads('crash@example.com').map((r) => r.msgId))
    // The kill caught records that existed only in the queue on disk.
    expect(first.accepted.filter((id) => !storedAtFirstKill.has(id)).length).toBeGreaterThan(0)
    const second = await pushThenKill(queueDir, 1_000_000, 300)
    expect(first.signal).toBe('SIGKILL')
    expect(first.accepted.length).toBeGreaterThanOrEqual(400)
    expect(second.accepted.length).toBeGreaterThanOrEqual(300)

    emu.setFaults({ failureRate: 0.3, resetRate: 0.1 })
    const out = await drain(queueDir)
    expect(out).toMatch(/^drained \d+/)

    const stored = new Set(emu.store.uploads('crash@example.com').map((r) => r.msgId))
    const accepted = [...first.accepted, ...second.accepted]
    const missing = accepted.filter((id) => !stored.has(id))
    expect(missing).toEqual([])
    // Every stored record is one the children produced: nothing invented, nothing corrupted.
    for (const r of emu.store.uploads('crash@example.com')) expect(r.beaconMac).toMatch(/^0117C5[0-9A-F]{6}$/)
  }, 120_000)
})
