/**
 * What a {@link FileQueue} is opened with and what it reports, and the check of those options
 * (kept apart so the queue's file holds only its bookkeeping).
 */
import { InvalidOptionError } from '../errors.js'
import type { RecordCheck } from './journal.js'

/** Options of {@link FileQueue.open}. */
export interface FileQueueOptions {
  /** Directory holding the queue; created when missing. One process per directory (locked). */
  dir: string
  /** Bound on segment bytes on disk; the oldest records are dropped beyond it. Default 256 MiB. */
  maxBytes?: number
  /** Size at which a segment is closed and a new one started. Default 4 MiB (at most maxBytes / 4). */
  segmentBytes?: number
  /**
   * Checks each record read back from disk (default: any JSON object passes). A record that
   * fails is never handed out: it is reported as `dropped` (`corrupt`, with its segment) like
   * a damaged frame, and the records after it are delivered as usual.
   */
  accept?: RecordCheck
}

/** What recovery found and what the queue has done since. */
export interface FileQueueStats {
  /** Unacknowledged records found on disk at open. */
  recovered: number
  /** Bytes ignored at the end of segments (writes cut short by a crash). */
  tornBytes: number
  /** Bytes of damage stepped over (unreadable frames, zeroed stretches). */
  damagedBytes: number
  /** Records read back past damage (they would have been lost without resynchronising). */
  salvaged: number
  /** Records lost to damaged or missing segment files (also counted in `dropped`). */
  lost: number
  /** Records deleted unacknowledged: the disk bound, damage, or a segment deleted underneath. */
  dropped: number
  /** Segment files currently on disk. */
  segments: number
  /** Bytes of segment files currently on disk. */
  bytes: number
}

/** The counters of a queue just opened, before recovery fills them in. */
export function emptyFileQueueStats(): FileQueueStats {
  return {
    recovered: 0,
    tornBytes: 0,
    damagedBytes: 0,
    salvaged: 0,
    lost: 0,
    dropped: 0,
    segments: 0,
    bytes: 0,
  }
}

/** The options with their defaults filled in; what the queue's constructor takes. */
export type ResolvedFileQueueOptions = Required<Omit<FileQueueOptions, 'accept'>> & Pick<FileQueueOptions, 'accept'>

/** Checks {@link FileQueueOptions} and fills in the defaults. @throws InvalidOptionError */
export function resolveFileQueueOptions(options: FileQueueOptions): ResolvedFileQueueOptions {
  if (typeof options.dir !== 'string' || options.dir.length === 0) {
    throw new InvalidOptionError('invalid_option', 'queueDir must be a non-empty directory path', {
      option: 'queueDir',
    })
  }
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024
  if (!Number.isFinite(maxBytes) || maxBytes < 64 * 1024) {
    throw new InvalidOptionError(
      'invalid_option',
      'maxBytes (maxQueueBytes of the uploader or the MQTT publisher) must be at least 65536 bytes',
      { option: 'maxQueueBytes' },
    )
  }
  const segmentBytes = Math.max(4096, Math.min(options.segmentBytes ?? 4 * 1024 * 1024, Math.floor(maxBytes / 4)))
  if (options.accept !== undefined && typeof options.accept !== 'function')
    throw new InvalidOptionError('invalid_option', 'accept must be a function', { option: 'accept' })
  return { dir: options.dir, maxBytes, segmentBytes, accept: options.accept }
}
