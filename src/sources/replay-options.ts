/**
 * What a {@link ReplaySource} replays and how, what it counts, and the check of both before
 * anything is opened.
 */
import { statSync } from 'node:fs'
import type { Readable } from 'node:stream'
import type { Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import { pathForMessage } from '../secure/secret-file.js'

/** Options of {@link ReplaySource}. */
export interface ReplayOptions {
  /**
   * Run in virtual time: the source exposes a VirtualClock moved to each line's `t`. Default
   * false.
   */
  virtual?: boolean
  /** Real-time mode: playback speed factor (2 = twice as fast). Default 1. */
  speed?: number
  /** Real-time mode: the clock to pace playback with. Default real time. */
  clock?: Clock
  /**
   * Real-time mode: move the recording's time line to the present, so its first advertisement
   * is stamped with the pacing clock's now and the rest keep their spacing. For a replay others
   * consume live (published to a fleet, which refuses batches stamped a month away from their
   * arrival). Default false: event times are recording times.
   */
  presentTime?: boolean
  /**
   * Longest line kept, in bytes (default 64 KiB; a real advertisement line is under 1 KiB).
   * A longer line is skipped and counted as malformed as it streams by, so a corrupt file or
   * an endless stream without line breaks cannot exhaust memory.
   */
  maxLineBytes?: number
}

/** Counters of a replay. */
export interface ReplayStats {
  /** Lines read, including header, blank and malformed lines. */
  lines: number
  advertisements: number
  /** Lines skipped as malformed. */
  malformed: number
  /** Line numbers (1-based) of the first 100 malformed lines, with the reason. */
  malformedLines: { line: number; reason: string }[]
  /** Advertisements whose `t` went backwards (emitted, but time did not move back). */
  outOfOrder: number
}

/**
 * A recording: a file path (a regular file or a FIFO), the lines themselves, or a readable
 * stream of JSONL text.
 */
export type ReplayInput = string | Iterable<string> | Readable

/** Default bound on a line's length (see ReplayOptions.maxLineBytes). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024

/** A stream (anything pipeable), as opposed to a path or an iterable of lines. */
export function isReadable(x: unknown): x is Readable {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as Readable).pipe === 'function' &&
    typeof (x as Readable).on === 'function'
  )
}

/** The checked options the source keeps. */
export interface CheckedReplayOptions {
  speed: number
  maxLineBytes: number
}

/** Checks the input and the options. @throws InvalidOptionError naming the bad one */
export function checkReplayOptions(input: ReplayInput, options: ReplayOptions): CheckedReplayOptions {
  if (typeof options !== 'object' || options === null)
    throw new InvalidOptionError('invalid_option', 'ReplaySource options must be an object.', { option: 'options' })
  const speed = options.speed ?? 1
  if (typeof speed !== 'number' || !Number.isFinite(speed) || speed <= 0) {
    throw new InvalidOptionError(
      'invalid_option',
      `speed must be a positive number (1 = real time, 10 = ten times faster); got ${String(speed)}.`,
      { option: 'speed' },
    )
  }
  if (options.virtual !== undefined && typeof options.virtual !== 'boolean')
    throw new InvalidOptionError('invalid_option', 'virtual must be true or false.', { option: 'virtual' })
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  if (typeof maxLineBytes !== 'number' || !Number.isInteger(maxLineBytes) || maxLineBytes < 1) {
    throw new InvalidOptionError(
      'invalid_option',
      `maxLineBytes must be a whole number of bytes of at least 1 (default ${DEFAULT_MAX_LINE_BYTES}); ` +
        `got ${String(maxLineBytes)}.`,
      { option: 'maxLineBytes' },
    )
  }
  if (typeof input === 'string') {
    const shown = pathForMessage(input)
    let stats
    try {
      stats = statSync(input)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ENOENT')
        throw new InvalidOptionError('file_not_found', `Recording ${shown} does not exist; check the path.`, {
          option: 'path',
          cause: err,
        })
      throw new InvalidOptionError(
        'unreadable_file',
        `Recording ${shown} cannot be read (${code ?? 'error'}); pass a JSONL file.`,
        { option: 'path', cause: err },
      )
    }
    // A FIFO (or a device such as /dev/stdin) streams a recording as well as a file does.
    if (stats.isDirectory())
      throw new InvalidOptionError(
        'unreadable_file',
        `Recording ${shown} cannot be read: it is a directory; pass a JSONL file.`,
        { option: 'path' },
      )
  } else if (
    !isReadable(input) &&
    (input === null || typeof (input as Iterable<string>)[Symbol.iterator] !== 'function')
  ) {
    throw new InvalidOptionError(
      'invalid_option',
      'ReplaySource needs a file path, an array of JSONL lines or a readable stream.',
      { option: 'input' },
    )
  }
  if (options.presentTime !== undefined && typeof options.presentTime !== 'boolean')
    throw new InvalidOptionError('invalid_option', 'presentTime must be true or false.', { option: 'presentTime' })
  if (options.presentTime === true && options.virtual === true) {
    throw new InvalidOptionError(
      'invalid_option',
      "presentTime is for a replay in real time; a virtual replay runs on the recording's clock. Drop one of them.",
      { option: 'presentTime' },
    )
  }
  return { speed, maxLineBytes }
}
