/**
 * One process per queue directory, checked with real processes: a second process is refused
 * with the holder's pid, and the lock of a SIGKILLed holder is taken over (with a warning).
 * Runs against the built package (CI builds first).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FileQueue } from '../../src/queue/file-queue.js'
import { QueueError } from '../../src/errors.js'

const here = dirname(fileURLToPath(import.meta.url))
const child = join(here, 'fixtures', 'queue-lock-child.mjs')
const dist = join(here, '..', '..', 'dist', 'index.js')

let dir: string
const children: ChildProcess[] = []
beforeAll(() => {
  if (!existsSync(dist) || !readFileSync(dist, 'utf8').includes('queue_locked')) {
    throw new Error('dist/index.js is missing or predates the queue lock: run npm run build first')
  }
  dir = mkdtempSync(join(tmpdir(), 'beaconkit-qlock-'))
})
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

/** Starts a child on `queueDir` and resolves with its first line and the process. */
function start(queueDir: string): Promise<{ line: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, queueDir], { stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(proc)
    let out = ''
    let err = ''
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()))
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      const nl = out.indexOf('\n')
      if (nl >= 0) resolve({ line: out.slice(0, nl), proc })
    })
    proc.on('error', reject)
    proc.on('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`lock child exited ${code} without a word: ${err}`))
    })
  })
}

function exited(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve()
    else proc.once('exit', () => resolve())
  })
}

describe('queue directory lock across processes', () => {
  it('refuses a second process, and takes over after the holder is SIGKILLed', async () => {
    const queueDir = join(dir, 'queue')
    const holder = await start(queueDir)
    expect(holder.line).toBe(`holding ${holder.proc.pid} `)

    // Another process: refused, told who holds it.
    const second = await start(queueDir)
    expect(second.line).toBe(`refused queue_locked ${holder.proc.pid}`)
    await exited(second.proc)
    expect(second.proc.exitCode).toBe(3)
    // And this (test) process too.
    const err = await FileQueue.open({ dir: queueDir }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(QueueError)
    expect((err as QueueError).holder?.pid).toBe(holder.proc.pid)

    // The holder dies without closing: its lock is stale and the next opener takes over.
    holder.proc.kill('SIGKILL')
    await exited(holder.proc)
    const third = await start(queueDir)
    expect(third.line).toBe(`holding ${third.proc.pid} stale_lock`)
    third.proc.kill('SIGKILL')
    await exited(third.proc)
  }, 60_000)
})
