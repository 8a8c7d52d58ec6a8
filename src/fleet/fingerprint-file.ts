/**
 * The fingerprint file (`fleet --fingerprints <file>`, #39): the rooms taught in place and the
 * gateway offsets learnt, so both survive a restart. JSON, versioned:
 *
 * ```json
 * { "format": "beaconkit-fingerprints", "version": 1, "saved": 1764300000000,
 *   "samples": [{ "room": "Kitchen", "floor": "ground", "taught": 1764299000000, "readings": 20,
 *                 "gateways": { "kitchen-pi": { "mean": -61.5, "sd": 2.1, "n": 20 } } }],
 *   "offsets": [{ "gateway": "kitchen-pi", "offsetDb": 3.2 }] }
 * ```
 *
 * Saved atomically (a temporary file beside it, fsync, rename, fsync of the directory): a crash or
 * a full disk leaves the previous file whole. Read as hostile: bounded in size and counts, each
 * entry checked; a damaged file or entry is reported (`FingerprintFileError`, a count of skipped
 * entries), never thrown at a running fleet.
 */
import { readFile, stat } from 'node:fs/promises'
import { BeaconkitError } from '../errors.js'
import { GATEWAY_ID } from '../mqtt/topics.js'
import type { FingerprintGateway, FingerprintSample } from '../positioning/fingerprints.js'
import { FLOOR_ID } from '../positioning/site-floors.js'
import { writeFileAtomic } from '../util/atomic-file.js'

/** The `format` of a fingerprint file. */
export const FINGERPRINT_FORMAT = 'beaconkit-fingerprints'
/** The version this code writes, and the newest it reads. */
export const FINGERPRINT_VERSION = 1
/** Bytes a fingerprint file may have at most (256 rooms × 16 samples × 64 gateways fit well within). */
export const MAX_FINGERPRINT_FILE_BYTES = 16 * 1024 * 1024
/** Samples read at most; the rest are skipped. */
export const MAX_FILE_SAMPLES = 256 * 16
const MAX_GATEWAYS = 64
const MAX_OFFSETS = 1000

/** Why a fingerprint file could not be read or written. */
export type FingerprintFileErrorCode =
  'damaged' | 'not_fingerprints' | 'unsupported_version' | 'too_large' | 'unreadable' | 'write_failed'

/** A fingerprint file could not be read or written; the message says which file and what to do. */
export class FingerprintFileError extends BeaconkitError<FingerprintFileErrorCode> {}

/** What a fingerprint file held. */
export interface FingerprintFile {
  samples: FingerprintSample[]
  offsets: { gateway: string; offsetDb: number }[]
  /** Entries left out for being wrong (or past the bounds). */
  skipped: number
  /** Set when the file as a whole could not be used: the fleet starts untaught and says so. */
  error?: FingerprintFileError
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const isName = (v: unknown): v is string =>
  typeof v === 'string' && v.trim() !== '' && v.length <= 64 && !/\p{Cc}/u.test(v)
const within = (v: unknown, lo: number, hi: number): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi

function readGateway(v: unknown): FingerprintGateway | undefined {
  if (!isRecord(v) || !within(v.mean, -127, 20) || !within(v.sd, 0, 60)) return undefined
  if (!Number.isSafeInteger(v.n) || (v.n as number) < 1) return undefined
  return { mean: v.mean, sd: v.sd, n: v.n as number }
}

function readSample(v: unknown): FingerprintSample | undefined {
  if (!isRecord(v) || !isName(v.room) || !within(v.taught, 0, 8.64e15)) return undefined
  if (!Number.isSafeInteger(v.readings) || (v.readings as number) < 0) return undefined
  if (v.floor !== undefined && (typeof v.floor !== 'string' || !FLOOR_ID.test(v.floor))) return undefined
  if (!isRecord(v.gateways)) return undefined
  const entries = Object.entries(v.gateways)
  if (entries.length === 0 || entries.length > MAX_GATEWAYS) return undefined
  // Ids from a file: no prototype for "__proto__" to reach.
  const gateways = Object.create(null) as Record<string, FingerprintGateway>
  for (const [id, g] of entries) {
    const read = readGateway(g)
    if (!GATEWAY_ID.test(id) || read === undefined) return undefined
    gateways[id] = read
  }
  const s: FingerprintSample = { room: v.room, taught: v.taught, readings: v.readings as number, gateways }
  if (v.floor !== undefined) s.floor = v.floor as string
  return s
}

/**
 * Reads a fingerprint file. A missing file is an untaught site (no error); anything else that
 * is wrong comes back in `error` (the whole file) or `skipped` (entries), never thrown.
 */
export async function readFingerprintFile(path: string): Promise<FingerprintFile> {
  const empty = (error?: FingerprintFileError): FingerprintFile => ({
    samples: [],
    offsets: [],
    skipped: 0,
    ...(error === undefined ? {} : { error }),
  })
  let text: string
  try {
    const info = await stat(path)
    if (info.size > MAX_FINGERPRINT_FILE_BYTES)
      return empty(
        new FingerprintFileError(
          'too_large',
          `fingerprints: ${path} has ${info.size} bytes, more than ${MAX_FINGERPRINT_FILE_BYTES}: ` +
            'it is not a file the fleet wrote; move it away and teach the rooms again',
        ),
      )
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty()
    return empty(
      new FingerprintFileError('unreadable', `fingerprints: cannot read ${path}; check its permissions`, {
        cause: error,
      }),
    )
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return empty(
      new FingerprintFileError(
        'damaged',
        `fingerprints: ${path} is not valid JSON (damaged?); the fleet runs untaught: ` +
          'restore a backup, or move it away and teach the rooms again',
      ),
    )
  }
  if (!isRecord(json) || json.format !== FINGERPRINT_FORMAT)
    return empty(
      new FingerprintFileError(
        'not_fingerprints',
        `fingerprints: ${path} is not a fingerprint file (no "format": "${FINGERPRINT_FORMAT}"); give another path`,
      ),
    )
  if (!Number.isSafeInteger(json.version) || (json.version as number) > FINGERPRINT_VERSION)
    return empty(
      new FingerprintFileError(
        'unsupported_version',
        `fingerprints: ${path} is version ${JSON.stringify(json.version)}, this beaconkit reads ` +
          `up to ${FINGERPRINT_VERSION}; upgrade beaconkit`,
      ),
    )
  const out = empty()
  const samples = Array.isArray(json.samples) ? json.samples : []
  samples.forEach((v, i) => {
    const s = i < MAX_FILE_SAMPLES ? readSample(v) : undefined
    if (s === undefined) out.skipped++
    else out.samples.push(s)
  })
  const offsets = Array.isArray(json.offsets) ? json.offsets : []
  offsets.forEach((v, i) => {
    const ok =
      i < MAX_OFFSETS && isRecord(v) && typeof v.gateway === 'string' && GATEWAY_ID.test(v.gateway)
        ? within(v.offsetDb, -60, 60)
        : false
    if (ok) out.offsets.push({ gateway: (v as { gateway: string }).gateway, offsetDb: v.offsetDb as number })
    else out.skipped++
  })
  return out
}

/**
 * Writes the fingerprint file atomically (see the file comment), mode 600 for a new file. Throws
 * `FingerprintFileError` (`write_failed`) when it cannot; the previous file is then untouched.
 */
export async function writeFingerprintFile(
  path: string,
  content: { samples: readonly FingerprintSample[]; offsets?: readonly { gateway: string; offsetDb: number }[] },
  now: number,
): Promise<void> {
  const body = JSON.stringify({
    format: FINGERPRINT_FORMAT,
    version: FINGERPRINT_VERSION,
    saved: now,
    samples: content.samples.slice(0, MAX_FILE_SAMPLES),
    offsets: (content.offsets ?? []).slice(0, MAX_OFFSETS),
  })
  try {
    await writeFileAtomic(path, body, { mode: 0o600 })
  } catch (error) {
    throw new FingerprintFileError(
      'write_failed',
      `fingerprints: cannot save ${path}; check that its directory exists and is writable, and the disk has room`,
      { cause: error },
    )
  }
}
