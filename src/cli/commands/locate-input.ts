/**
 * What `beaconkit locate` reads: every file beaconkit writes that holds RSSI, told apart by its
 * first line, each turned into the positioner's observations (anchor, beacon, rssi, time):
 *
 * - a fleet recording (`fleet --record`; header `{"format":"beaconkit-fleet"}`): each beacon's
 *   gateways and their RSSI, a reading once per change (a repeated `lastSeen` is the same one);
 * - an advertisement recording (`record`; header `{"format":"beaconkit-advertisements"}` or a
 *   first line `{"t","address","rssi"}`): one scanner, so one anchor (`--gateway`, or the site's
 *   only one); the beacon is the advertising address;
 * - a survey (`survey`; CSV header `x,y,anchor,rssi`, `x,y,sensor,rssi` or
 *   `x,y,anchor,count,mean,sd`): each surveyed point is a beacon named `x,y`, its rows 100 ms
 *   apart, so the output shows where the site and the engine put each point;
 * - locate's own observations (the tetam track CSV `timestamp,receiver,beacon,rssi`, JSON lines
 *   `{time, gateway, id, rssi}`).
 *
 * Anything else is not a recording (exit 2 `not_a_recording`, as `beaconkit replay` says).
 */
import { parseAdvertisementLine } from '../../advertisement.js'
import { InvalidOptionError } from '../../errors.js'
import { FLEET_RECORDING_FORMAT } from '../../fleet/fleet-recorder.js'
import type { Site } from '../../positioning/site.js'
import type { Observation } from '../../positioning/types.js'
import { pathForMessage } from '../../secure/secret-file.js'

/** The kinds of file `locate` reads. */
export type RecordingKind = 'fleet' | 'advertisements' | 'survey' | 'observations'

/**
 * One line in: its observations, `[]` for a line that holds none (a header, an event), undefined for an
 * unreadable one.
 */
export type LineReader = (line: string) => Observation[] | undefined

/** What `locate` says it expected, in the not-a-recording message. */
export const EXPECTED_RECORDINGS =
  'a fleet recording (beaconkit fleet --record), an advertisement recording (beaconkit record), a ' +
  'survey (beaconkit survey: x,y,anchor,rssi), a track CSV timestamp,receiver,beacon,rssi or JSON ' +
  'lines {"time","gateway","id","rssi"}'

/** Survey rows are this far apart in the synthetic time of a survey read as a recording. */
const SURVEY_ROW_MS = 100
/** Readings remembered to tell a fleet recording's repeated reading from a new one. */
const MAX_FLEET_READINGS = 100_000
/** Gateways read per beacon of a fleet recording line (a real one has a handful). */
const MAX_GATEWAYS = 256

function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const o: unknown = JSON.parse(line)
    return typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function csvFields(line: string): string[] {
  return line.split(',').map((s) => s.trim().toLowerCase())
}

function isSurveyHeader(f: readonly string[]): boolean {
  return (
    f.includes('x') &&
    f.includes('y') &&
    (f.includes('anchor') || f.includes('sensor')) &&
    (f.includes('rssi') || f.includes('mean'))
  )
}

/** The kind of a file from its first non-blank line; undefined when it is none of them. */
export function recordingKind(firstLine: string): RecordingKind | undefined {
  const s = firstLine.replace(/^\uFEFF/, '').trim()
  if (s.startsWith('{')) {
    const o = parseJson(s)
    if (o === undefined) return undefined
    if (o.format === FLEET_RECORDING_FORMAT) return 'fleet'
    if (o.format === 'beaconkit-advertisements' || parseAdvertisementLine(s).kind === 'advertisement')
      return 'advertisements'
    return typeof o.gateway === 'string' && typeof o.id === 'string' && typeof o.rssi === 'number'
      ? 'observations'
      : undefined
  }
  const f = csvFields(s)
  if (isSurveyHeader(f)) return 'survey'
  // A track CSV, with its header (naming rssi) or without (a number first).
  if (f.length >= 4 && (f.includes('rssi') || Number.isFinite(Number(f[0])))) return 'observations'
  return undefined
}

/** A fleet recording's beacons lines as readings, each (beacon, gateway) reading once. */
function fleetReader(): LineReader {
  const seen = new Map<string, number>()
  return (line) => {
    const o = parseJson(line)
    if (o === undefined) return undefined
    if (o.format !== undefined) return []
    const t = o.t
    if (typeof t !== 'number' || !Number.isFinite(t)) return undefined
    if (o.event !== 'keyframe' && o.event !== 'beacons') return typeof o.event === 'string' ? [] : undefined
    if (!Array.isArray(o.beacons)) return undefined
    const out: Observation[] = []
    for (const b of o.beacons as unknown[]) {
      const { id, gateways } = (typeof b === 'object' && b !== null ? b : {}) as { id?: unknown; gateways?: unknown }
      if (typeof id !== 'string' || id === '' || !Array.isArray(gateways)) continue
      for (const g of gateways.slice(0, MAX_GATEWAYS) as unknown[]) {
        const { gateway, rssi, lastSeen } = (typeof g === 'object' && g !== null ? g : {}) as {
          gateway?: unknown
          rssi?: unknown
          lastSeen?: unknown
        }
        if (typeof gateway !== 'string' || gateway === '' || typeof rssi !== 'number' || !Number.isFinite(rssi))
          continue
        const key = `${id}\u0000${gateway}`
        const heard = typeof lastSeen === 'number' ? lastSeen : t
        if (seen.get(key) === heard) continue
        if (seen.size >= MAX_FLEET_READINGS) seen.clear()
        seen.set(key, heard)
        // The recording's own clock: a reading heard before its line is positioned at the line.
        out.push({ time: t, anchor: gateway, beacon: id, rssi })
      }
    }
    return out
  }
}

function advertisementReader(anchor: string): LineReader {
  return (line) => {
    const parsed = parseAdvertisementLine(line)
    if (parsed.kind === 'header' || parsed.kind === 'blank') return []
    if (parsed.kind === 'malformed') return undefined
    const a = parsed.advertisement
    return [{ time: a.timestamp, anchor, beacon: a.address, rssi: a.rssi }]
  }
}

function surveyReader(): LineReader {
  let header: string[] | undefined
  let row = 0
  return (line) => {
    const f = line.split(',').map((s) => s.trim())
    if (header === undefined) {
      header = f.map((h) => h.toLowerCase())
      return []
    }
    const col = (name: string): string | undefined => f[(header as string[]).indexOf(name)]
    const x = Number(col('x'))
    const y = Number(col('y'))
    const anchor = col('anchor') ?? col('sensor') ?? ''
    const rssi = Number(col('rssi') ?? col('mean'))
    if (!Number.isFinite(x) || !Number.isFinite(y) || anchor === '' || !Number.isFinite(rssi)) return undefined
    return [{ time: row++ * SURVEY_ROW_MS, anchor, beacon: `${x},${y}`, rssi }]
  }
}

/**
 * The anchor of an advertisement recording: `--gateway`, or the site's only anchor. A site of
 * several without `--gateway` is refused: which one heard it is not in the file.
 */
function scannerAnchor(site: Site, gateway: string | undefined, file: string): string {
  const ids = site.anchorList().map((a) => a.id)
  if (gateway !== undefined) {
    if (!ids.includes(gateway))
      throw new InvalidOptionError(
        'invalid_option',
        `locate: --gateway ${gateway} is not in the site (its anchors: ${ids.slice(0, 20).join(', ')})`,
        { option: 'gateway' },
      )
    return gateway
  }
  if (ids.length === 1) return ids[0]
  throw new InvalidOptionError(
    'invalid_option',
    `locate: ${pathForMessage(file)} is an advertisement recording, made by one scanner: say which ` +
      `anchor of the site it is with --gateway <id> (one of ${ids.slice(0, 20).join(', ')})`,
    { option: 'gateway' },
  )
}

/** The line reader of a kind. `parseObservation` reads locate's own formats (one line, one reading). */
export function readerFor(
  kind: RecordingKind,
  context: { site: Site; gateway?: string; file: string; parseObservation: (line: string) => Observation | undefined },
): LineReader {
  switch (kind) {
    case 'fleet':
      return fleetReader()
    case 'advertisements':
      return advertisementReader(scannerAnchor(context.site, context.gateway, context.file))
    case 'survey':
      return surveyReader()
    case 'observations':
      return (line) => {
        const o = context.parseObservation(line)
        // A header of the track CSV (a name first) is not a reading, nor unreadable.
        if (o === undefined) return /^[a-z_]+,/i.test(line.trim()) ? [] : undefined
        return [o]
      }
  }
}

/** The error of a file that holds no reading of any kind `locate` reads. */
export function notARecording(file: string, what: string): InvalidOptionError {
  return new InvalidOptionError(
    'not_a_recording',
    `locate: ${pathForMessage(file)} ${what}: expected ${EXPECTED_RECORDINGS}`,
    { option: 'recording' },
  )
}
