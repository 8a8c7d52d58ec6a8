/**
 * Writing a file so that a crash, a kill or a full disk at any moment leaves either the previous
 * file or the new one whole, never a torn one: a temporary file in the same folder (a rename is
 * atomic only within one file system), fsync, rename over the file, fsync of the folder (the
 * rename itself is durable only once the folder is on disk). Optionally the previous file is kept
 * as `<file>.bak` first (a hard link, so the file is never absent for a moment).
 */
import { randomBytes } from 'node:crypto'
import { copyFile, link, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode of a new file (default 0o644); a file that exists keeps its own mode. */
  mode?: number
  /** Keep the file being replaced as `<file>.bak` (replacing an older `.bak`). */
  backup?: boolean
}

/** Syncs a folder so a rename in it survives a power loss; a file system that cannot is let be. */
async function syncFolder(folder: string): Promise<void> {
  const dir = await open(folder, 'r').catch(() => undefined)
  if (dir === undefined) return
  await dir.sync().catch(() => undefined)
  await dir.close()
}

/** Makes `<path>.bak` the current content of `path` (nothing when there is no file yet). */
async function keepBackup(path: string): Promise<void> {
  const bak = `${path}.bak`
  const tmp = `${bak}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    // A hard link costs no copy; where links are refused (some mounts), a copy.
    await link(path, tmp).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw error
      await copyFile(path, tmp)
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  await rename(tmp, bak)
}

/**
 * Writes `data` to `path` atomically (see the file comment).
 * @throws the file system's error (ENOENT for a missing folder, EACCES, ENOSPC); the file is then untouched
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  // A user who made the file private keeps it private after a save.
  const mode = await stat(path).then(
    (s) => s.mode & 0o777,
    () => options.mode ?? 0o644,
  )
  try {
    const f = await open(tmp, 'wx', mode)
    try {
      await f.writeFile(data)
      await f.sync()
    } finally {
      await f.close()
    }
    if (options.backup === true) await keepBackup(path)
    await rename(tmp, path)
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined)
    throw error
  }
  await syncFolder(dirname(path))
}

/** Whether process `pid` runs on this machine (a signal 0 reaches it, or it is someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temporary files {@link writeFileAtomic} left beside `path` (and its `.bak`) when a
 * process writing them was killed (their name holds its pid); those of a running one are left alone.
 * @returns how many were removed
 */
export async function removeStaleTemps(path: string): Promise<number> {
  const name = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const pattern = new RegExp(`^${name}(?:\\.bak)?\\.(\\d+)\\.[0-9a-f]{8}\\.tmp$`)
  let removed = 0
  for (const entry of await readdir(dirname(path)).catch(() => [] as string[])) {
    const pid = pattern.exec(entry)?.[1]
    if (pid === undefined || alive(Number(pid))) continue
    await rm(join(dirname(path), entry), { force: true })
    removed++
  }
  return removed
}
