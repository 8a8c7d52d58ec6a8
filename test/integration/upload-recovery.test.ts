/**
 * The uploader recovers from a hostile disk: a segment deleted while it runs, a queue that
 * cannot be opened at first, damage found at start. Real files, a real emulator on loopback.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { AccountClient } from '../../src/cloud/account-client.js'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { FileQueue } from '../../src/queue/file-queue.js'
import { FRAME_HEADER } from '../../src/queue/journal.js'
import type { DropInfo, QueueWarning } from '../../src/queue/queue.js'
import { Uploader } from '../../src/cloud/uploader.js'
import type { UploaderOptions } from '../../src/cloud/uploader-options.js'
import { InvalidOptionError } from '../../src/errors.js'
import { reading } from '../cloud/reading-fixture.js'
import { waitFor } from './wait.js'

const EMAIL = 'disk@example.com'
const PASSWORD = 'disk-password'
let emu: Emulator
let client: AccountClient
let base: string
const open: Uploader[] = []

beforeAll(async () => {
  emu = await startEmulator({ accounts: [{ email: EMAIL, password: PASSWORD }] })
  client = new AccountClient({ baseUrl: emu.url, email: EMAIL, password: PASSWORD, retry: { retries: 0 } })
  base = mkdtempSync(join(tmpdir(), 'beaconkit-recovery-'))
})
afterEach(async () => {
  emu.setFaults({})
  for (const u of open.splice(0)) await u.close()
})
afterAll(async () => {
  await emu.close()
  rmSync(base, { recursive: true, force: true })
})

function uploader(options: Partial<UploaderOptions>): Uploader {
  const u = new Uploader({ client, batchSize: 100, flushIntervalMs: 5, minIntervalPerBeaconMs: 0, retry: { initialDelayMs: 1, maxDelayMs: 5 }, closeTimeoutMs: 2000, ...options })
  open.push(u)
  return u
}

function segments(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.seg')).sort()
}

function stored(): Set<string> {
  return new Set(emu.store.uploads(EMAIL).map((r) => r.msgId))
}

/** Resolves with 'settled' when `p` settles, or 'hung' after a generous `ms`. */
function settledWithin(p: Promise<unknown>, ms: number): Promise<'settled' | 'hung'> {
  return Promise.race([p.then(() => 'settled' as const, () => 'settled' as const), new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms))])
}

/** Retries `f` until it resolves (generous deadline: CI is slow). */
async function eventually<T>(f: () => Promise<T>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await f()
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`, { cause: e })
      await new Promise((r) => setTimeout(r, 5))
    }
  }
}

/**
 * Open file descriptors of this process on files of this test's folder: a leak would be one of
 * the queue's files. (Counting every file would also count what the test runner happens to be
 * reading at that moment, and sockets and pipes come and go with HTTP.)
 */
function openFds(): number {
  let n = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(base)) n++
    } catch {
      // closed while we looked
    }
  }
  return n
}

/**
 * The fewest such descriptors over a short while: the uploader keeps retrying the open, and an
 * attempt under way holds a file for a moment. A leak stays; a moment's descriptor does not.
 */
async function settledFds(): Promise<number> {
  let least = openFds()
  for (let i = 0; i < 20 && least > 0; i++) {
    await new Promise((r) => setTimeout(r, 10))
    least = Math.min(least, openFds())
  }
  return least
}

describe('uploader on a hostile disk', () => {
  it('carries on when a segment is deleted while it runs: the loss is reported once and flush resolves', async () => {
    const dir = join(base, 'deleted')
    emu.setFaults({ failureRate: 1 })
    // A first run queues the records while the server is down, and stops.
    const first = uploader({ queueDir: dir, maxQueueBytes: 256 * 1024, closeTimeoutMs: 0 })
    const ids: string[] = []
    for (let i = 0; i < 700; i += 50) ids.push(...((await Promise.all(Array.from({ length: 50 }, (_, k) => first.push(reading(2000 + i + k, i + k))))) as string[]))
    await first.close()
    const names = segments(dir)
    expect(names.length).toBeGreaterThanOrEqual(3)
    // The next run reads segments from disk as it needs them: the second is not read yet
    // while the first batch (from the first segment) is being retried.
    const u = uploader({ queueDir: dir, maxQueueBytes: 256 * 1024 })
    const errors: Error[] = []
    const drops: DropInfo[] = []
    u.on('error', (e) => errors.push(e))
    u.on('dropped', (d) => drops.push(d))
    await waitFor(() => u.stats.retries > 0, 'a retry')
    const victim = names[1]
    const inVictim = Number(names[2].slice(0, 16)) - Number(victim.slice(0, 16))
    rmSync(join(dir, victim))
    emu.setFaults({})
    expect(await settledWithin(u.flush(), 30_000)).toBe('settled')
    await u.flush()
    expect(errors).toEqual([])
    expect(drops).toEqual([{ count: inVictim, reason: 'missing', segment: victim }])
    expect(u.stats).toMatchObject({ lost: inVictim, dropped: inVictim, uploaded: 700 - inVictim })
    const have = stored()
    expect(ids.filter((id) => !have.has(id)).length).toBe(inVictim)
  }, 60_000)

  it.each([
    ['a directory where a segment should be (EISDIR)', 'eisdir'],
    ['a path under a file (ENOTDIR)', 'enotdir'],
  ])('recovers from a queue that cannot be opened at first: %s, reported once, no file handle leaked', async (_name, kind) => {
    const root = join(base, kind)
    mkdirSync(root)
    let queueDir: string
    let heal: () => void
    if (kind === 'eisdir') {
      queueDir = join(root, 'queue')
      await (await FileQueue.open({ dir: queueDir })).close()
      mkdirSync(join(queueDir, '0000000000000001.seg'))
      heal = () => rmSync(join(queueDir, '0000000000000001.seg'), { recursive: true })
    } else {
      writeFileSync(join(root, 'file'), 'x')
      queueDir = join(root, 'file', 'queue')
      heal = () => rmSync(join(root, 'file'))
    }
    const fdsBefore = openFds()
    const u = uploader({ queueDir })
    const errors: Error[] = []
    u.on('error', (e) => errors.push(e))
    await expect(u.push(reading(3000, 1))).rejects.toBeInstanceOf(InvalidOptionError)
    await expect(u.flush()).rejects.toBeInstanceOf(InvalidOptionError)
    await waitFor(() => u.stats.queueOpenFailures >= 20, 'twenty failed opens')
    // Once per distinct failure, not once per attempt; and no handle left open by any attempt.
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(InvalidOptionError)
    expect(await settledFds()).toBeLessThanOrEqual(fdsBefore)

    heal()
    // The next attempt (within maxDelayMs) opens the queue: pushes are accepted again.
    const id = await eventually(() => u.push(reading(3001, 2)), 'a push after the queue opened')
    await u.flush()
    expect(stored().has(id as string)).toBe(true)
    expect(errors).toHaveLength(1)
    await u.close()
    expect(await settledFds()).toBeLessThanOrEqual(fdsBefore)
  }, 60_000)

  it('reports records lost to a corrupt segment, and the ones salvaged past the damage, through dropped and stats', async () => {
    const dir = join(base, 'corrupt')
    const q = await FileQueue.open({ dir })
    const first = uploader({ queue: q, closeTimeoutMs: 0 })
    emu.setFaults({ failureRate: 1 })
    const ids: string[] = []
    for (let i = 0; i < 10; i++) ids.push((await first.push(reading(4000 + i, i))) as string)
    await first.close()
    emu.setFaults({})
    const name = segments(dir)[0]
    const path = join(dir, name)
    const buf = readFileSync(path)
    const len0 = FRAME_HEADER + buf.readUInt32LE(0)
    buf.fill(0, len0 + 4, len0 + 30) // damage the second record
    writeFileSync(path, buf)

    const u = uploader({ queueDir: dir })
    const drops: DropInfo[] = []
    u.on('dropped', (d) => drops.push(d))
    await u.flush()
    expect(drops).toEqual([{ count: 1, reason: 'corrupt', segment: name, salvaged: 8 }])
    expect(u.stats).toMatchObject({ lost: 1, salvaged: 8, dropped: 1, uploaded: 9 })
    const have = stored()
    expect(ids.filter((id) => !have.has(id))).toEqual([ids[1]])
  })

  it('warns when it takes over the lock of a process that died', async () => {
    const dir = join(base, 'stale')
    mkdirSync(dir)
    // The lock of a process that has exited.
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout)
    writeFileSync(join(dir, 'lock'), JSON.stringify({ pid: dead, hostname: hostname(), token: 'dead' }))
    const u = uploader({ queueDir: dir })
    const warnings: QueueWarning[] = []
    u.on('warning', (w) => warnings.push(w))
    await u.push(reading(5000, 1))
    expect(warnings.map((w) => w.code)).toEqual(['stale_lock'])
  })
})
