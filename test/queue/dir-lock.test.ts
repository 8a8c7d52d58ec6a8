import { describe, it, expect, afterEach } from 'vitest'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOCK_FILE, lockDir, processStartTime } from '../../src/queue/dir-lock.js'
import { FileQueue } from '../../src/queue/file-queue.js'
import { QueueError } from '../../src/errors.js'

const dirs: string[] = []
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'beaconkit-lock-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(r.stdout)
}

function writeLock(dir: string, owner: object): void {
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify(owner))
}

describe('queue directory lock', () => {
  it('refuses a second opener in the same process with queue_locked naming the holder, and is released on close', async () => {
    const dir = tempDir()
    const q = await FileQueue.open({ dir })
    const err = await FileQueue.open({ dir }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(QueueError)
    expect(err).toMatchObject({ code: 'queue_locked', dir, holder: { pid: process.pid, hostname: hostname() } })
    expect((err as Error).message).toContain(`process ${process.pid}`)
    expect((err as Error).message).toMatch(/own queueDir|stop that process/)
    await q.close()
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
    const again = await FileQueue.open({ dir })
    expect(again.takeOpenReport().warnings).toEqual([])
    await again.close()
    // Nothing but the queue's own files is left behind.
    expect(readdirSync(dir).sort()).toEqual(['ack', 'written'])
  })

  it('holds pid, host, a token and the start time, written in full before it appears', async () => {
    const dir = tempDir()
    const lock = await lockDir(dir)
    const content = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as Record<string, unknown>
    expect(content).toMatchObject({ pid: process.pid, hostname: hostname(), token: lock.owner.token })
    if (existsSync('/proc/self/stat')) expect(content.startTime).toBe(processStartTime(process.pid))
    await lock.release()
    expect(readdirSync(dir)).toEqual([])
  })

  it('takes over the lock of a dead process and says so', async () => {
    const dir = tempDir()
    const pid = deadPid()
    writeLock(dir, { pid, hostname: hostname(), token: 'old' })
    const q = await FileQueue.open({ dir })
    const warnings = q.takeOpenReport().warnings
    expect(warnings.map((w) => w.code)).toEqual(['stale_lock'])
    expect(warnings[0].message).toContain(`process ${pid}`)
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid })
    await q.close()
  })

  it('tells a reused pid apart by its start time', async () => {
    const dir = tempDir()
    const parentStart = processStartTime(process.ppid)
    // A live process (our parent) with the start time it really has: its lock holds.
    if (parentStart !== undefined) {
      writeLock(dir, { pid: process.ppid, hostname: hostname(), token: 't1', startTime: parentStart })
      await expect(FileQueue.open({ dir })).rejects.toMatchObject({ code: 'queue_locked', holder: { pid: process.ppid } })
      // The same pid with another start time: the writer died and the pid was reused.
      writeLock(dir, { pid: process.ppid, hostname: hostname(), token: 't2', startTime: String(Number(parentStart) + 1) })
      const q = await FileQueue.open({ dir })
      expect(q.takeOpenReport().warnings.map((w) => w.code)).toEqual(['stale_lock'])
      await q.close()
    }
    // Our own pid in a lock we do not hold (a container restarts as the same pid 1): stale.
    writeLock(dir, { pid: process.pid, hostname: hostname(), token: 'earlier-life', startTime: '1' })
    const q = await FileQueue.open({ dir })
    expect(q.takeOpenReport().warnings.map((w) => w.code)).toEqual(['stale_lock'])
    await q.close()
  })

  it('takes a lock with a pid of 0 or less for damage, not for a live process group', async () => {
    const dir = tempDir()
    writeLock(dir, { pid: 0, hostname: hostname(), token: 'zero' })
    const q = await FileQueue.open({ dir })
    expect(q.takeOpenReport().warnings.map((w) => w.code)).toEqual(['stale_lock'])
    await q.close()
  })

  it('never takes over a lock from another host (it cannot check that pid)', async () => {
    const dir = tempDir()
    writeLock(dir, { pid: deadPid(), hostname: `not-${hostname()}`, token: 'x' })
    const err = await FileQueue.open({ dir }).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'queue_locked' })
    expect((err as Error).message).toContain(`on host not-${hostname()}`)
    expect((err as Error).message).toContain(join(dir, LOCK_FILE))
  })
})
