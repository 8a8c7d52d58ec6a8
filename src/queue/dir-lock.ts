/**
 * One process per queue directory. Two writers would interleave frames and reuse each other's
 * sequence numbers (acks of one delete the other's records), so the queue takes a lock file.
 *
 * The lock file holds its owner's pid, host name, a random token and, on Linux, the process's
 * start time (field 22 of /proc/<pid>/stat): a pid alone is not enough, since pids are reused
 * (in a container every start may well be pid 1). It is written in full under a private name
 * and then hard-linked to `lock`: link() fails if `lock` exists, so creation is atomic and
 * nobody ever reads a half-written lock. A lock whose owner is gone (a crash, SIGKILL) is
 * taken over, and the caller is told so.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { QueueError } from '../errors.js'
import type { QueueLockHolder } from '../errors.js'
import type { QueueWarning } from './queue.js'

/** What a lock file says about its owner. */
export interface LockOwner extends QueueLockHolder {
  token: string
  /** Clock ticks since boot when the process started (Linux); tells a reused pid apart. */
  startTime?: string
}

/** A held lock; `release()` removes the lock file if it is still ours. */
export interface DirLock {
  readonly owner: LockOwner
  /** The dead owner whose lock was taken over, when there was one. */
  readonly tookOverFrom?: LockOwner
  release(): Promise<void>
}

/** The lock file's name inside the queue directory. */
export const LOCK_FILE = 'lock'

// Tokens of the locks this process holds: a second FileQueue on the same directory in the
// same process is refused like another process would be.
const held = new Set<string>()

/** A process's start time from /proc (Linux); undefined where there is no /proc. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19]
  } catch {
    return undefined
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>
    // pid 0 or below would make kill(pid, 0) probe a whole process group: never "alive" that way.
    if (
      !Number.isSafeInteger(v.pid) ||
      (v.pid as number) <= 0 ||
      typeof v.hostname !== 'string' ||
      typeof v.token !== 'string'
    )
      return undefined
    return {
      pid: v.pid as number,
      hostname: v.hostname,
      token: v.token,
      ...(typeof v.startTime === 'string' ? { startTime: v.startTime } : {}),
    }
  } catch {
    return undefined
  }
}

/** Whether the owner of a lock may still be running. Errs on the side of "alive". */
function ownerAlive(owner: LockOwner): boolean {
  // Another machine's pid cannot be checked from here (a queue on a network share).
  if (owner.hostname !== hostname()) return true
  if (owner.pid === process.pid) {
    // Ours only if this process holds that very lock; otherwise it is an earlier life of this pid.
    return held.has(owner.token)
  }
  try {
    process.kill(owner.pid, 0)
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false
  }
  const now = processStartTime(owner.pid)
  // The pid runs, but it is another process than the one that wrote the lock.
  if (owner.startTime !== undefined && now !== undefined && now !== owner.startTime) return false
  return true
}

function lockedError(dir: string, holder: LockOwner): QueueError {
  const where =
    holder.hostname === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.hostname}`
  return new QueueError(
    'queue_locked',
    `queue directory ${dir} is in use by ${where}; give each uploader its own queueDir, or stop that ` +
      `process first (if it is certainly gone, delete ${join(dir, LOCK_FILE)})`,
    { dir, holder: { pid: holder.pid, hostname: holder.hostname } },
  )
}

async function readOwner(path: string): Promise<{ owner?: LockOwner } | undefined> {
  try {
    return { owner: parseOwner(await readFile(path, 'utf8')) }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
}

/**
 * Takes the lock of `dir` (which must exist). Throws `QueueError` `queue_locked` naming the
 * holder when a live process has it; takes over the lock of a dead one.
 */
export async function lockDir(dir: string): Promise<DirLock> {
  const startTime = processStartTime(process.pid)
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    token: randomUUID(),
    ...(startTime === undefined ? {} : { startTime }),
  }
  const path = join(dir, LOCK_FILE)
  const mine = join(dir, `${LOCK_FILE}.${owner.token}`)
  await writeFile(mine, JSON.stringify(owner), { flag: 'wx' })
  let tookOverFrom: LockOwner | undefined
  try {
    // A few rounds: each lost race means someone else moved; more than that is not a crash.
    for (let round = 0; round < 5; round++) {
      try {
        await link(mine, path)
        held.add(owner.token)
        return {
          owner,
          ...(tookOverFrom === undefined ? {} : { tookOverFrom }),
          release: () => release(path, owner.token),
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      }
      const found = await readOwner(path)
      if (found === undefined) continue // released between our link and our read
      // An unreadable lock cannot have come from this protocol (it writes before it links).
      const stale = found.owner ?? { pid: 0, hostname: hostname(), token: '' }
      if (found.owner !== undefined && ownerAlive(found.owner)) throw lockedError(dir, found.owner)
      // Move the stale lock aside under our own name, then check it is the one we judged:
      // another process may have taken it over in between, and its fresh lock must survive.
      const aside = join(dir, `${LOCK_FILE}.${owner.token}.stale`)
      try {
        await rename(path, aside)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw e
      }
      const moved = await readOwner(aside)
      if (moved !== undefined && moved.owner !== undefined && moved.owner.token !== stale.token) {
        // Not the stale lock: put it back (unless yet another one appeared) and give way.
        await link(aside, path).catch(() => undefined)
        await unlink(aside).catch(() => undefined)
        throw lockedError(dir, moved.owner)
      }
      await unlink(aside).catch(() => undefined)
      tookOverFrom = stale
    }
    const last = (await readOwner(path))?.owner
    throw lockedError(dir, last ?? { pid: 0, hostname: hostname(), token: '' })
  } finally {
    await unlink(mine).catch(() => undefined)
  }
}

async function release(path: string, token: string): Promise<void> {
  if (!held.delete(token)) return
  const found = await readOwner(path).catch(() => undefined)
  // Someone took over a lock they judged stale: it is theirs now.
  if (found?.owner?.token === token) await unlink(path).catch(() => undefined)
}

/** The warning for a lock taken over from `previous`, a process that died holding it. */
export function staleLockWarning(dir: string, previous: LockOwner): QueueWarning {
  const who = previous.pid > 0 ? `process ${previous.pid}, which is no longer running` : 'an unreadable lock file'
  return {
    code: 'stale_lock',
    message: `took over the lock of queue directory ${dir} from ${who} (it did not close the queue: a crash or kill?)`,
  }
}
