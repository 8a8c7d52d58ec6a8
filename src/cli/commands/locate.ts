/**
 * `beaconkit locate`: offline positioning of a recording. Reads a site file, optionally a survey
 * and an occupancy grid, then the recording (any file beaconkit writes that holds RSSI, or the
 * tetam track CSV, or JSON lines `{time, gateway, id, rssi}`: locate-input.ts), and writes one
 * JSON line `{time, beacon, x, y, accuracy, room}` per beacon per step. Bad lines are skipped and
 * counted on stderr, never fatal; a file without a single reading is refused (exit 2).
 */
import { readFile } from 'node:fs/promises'
import { InvalidOptionError } from '../../errors.js'
import { Site } from '../../positioning/site.js'
import { Positioner } from '../../positioning/positioner.js'
import { MAX_TIME_MS } from '../../positioning/positioner-options.js'
import type { Observation, PositioningMethod } from '../../positioning/types.js'
import { EXIT } from '../exit.js'
import { lines, radioMapFromFiles } from './radio-map-files.js'
import { notARecording, readerFor, recordingKind } from './locate-input.js'
import type { LineReader } from './locate-input.js'
import { fail, number, positionals, positioningMethod, str } from '../arg-values.js'
import { defineCommand, optional } from './command.js'
import { POSITIONING_METHODS } from '../../positioning/types.js'

/** `beaconkit locate`: files in, the positioning method and the output's pace. */
export interface LocateFlags {
  /** The site file (anchor positions). */
  site: string
  /** The recording to position. */
  recording: string
  survey?: string
  occupancy?: string
  method: PositioningMethod
  /** One estimate per beacon this often, ms. */
  everyMs: number
  /** Metres; default the survey's, else 1.2. */
  tagHeight?: number
  /** The site anchor an advertisement recording was made at (default: the site's only one). */
  gateway?: string
}

/** One recording line as an observation, or undefined when it is not one. */
export function parseRecordingLine(line: string): Observation | undefined {
  const s = line.trim()
  if (s === '') return undefined
  if (s.startsWith('{')) {
    let o: unknown
    try {
      o = JSON.parse(s)
    } catch {
      return undefined
    }
    if (typeof o !== 'object' || o === null) return undefined
    const { time, gateway, id, rssi } = o as Record<string, unknown>
    const t = typeof time === 'number' ? time : typeof time === 'string' ? Date.parse(time) : Number.NaN
    if (typeof gateway !== 'string' || typeof id !== 'string' || typeof rssi !== 'number' || !Number.isFinite(t))
      return undefined
    return { time: t, anchor: gateway, beacon: id, rssi }
  }
  const f = s.split(',')
  const time = Number(f[0]) * 1000
  const rssi = Number(f[3])
  if (f.length < 4 || f[0] === '' || !Number.isFinite(time) || !Number.isFinite(rssi) || f[1] === '' || f[2] === '')
    return undefined
  return { time, anchor: f[1], beacon: f[2], rssi }
}

/** Steps a beacon is written out after it was last heard. */
const SILENT_STEPS = 10

/** Runs `beaconkit locate` (its flags parsed by the shared command-line parser). */
export async function runLocate(
  values: LocateFlags,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const { method, everyMs: every } = values
  let siteJson: unknown
  try {
    siteJson = JSON.parse(await readFile(values.site, 'utf8'))
  } catch (error) {
    throw new InvalidOptionError(
      'invalid_option',
      `locate: cannot read the site ${values.site} as JSON (${(error as Error).message}); see ` +
        `docs/fleet.md for the shape`,
      { option: 'site', cause: error },
    )
  }
  const site = Site.fromJSON(siteJson)
  const radioMap = await radioMapFromFiles(site, values)
  const positioner = new Positioner({ site, radioMap, method })

  const lastHeard = new Map<string, number>()
  let next = Number.NaN
  let skipped = 0
  let estimates = 0
  const emit = (time: number): void => {
    for (const [beacon, heard] of lastHeard) {
      // A beacon unheard for ten steps has left: stop writing it out.
      if (time - heard > SILENT_STEPS * every) continue
      const e = positioner.estimate(beacon, time)
      if (e === undefined) continue
      estimates++
      const line = { time, beacon, x: round(e.x), y: round(e.y), accuracy: round(e.accuracy), room: e.room ?? null }
      out.write(`${JSON.stringify(line)}\n`)
    }
  }
  let read: LineReader | undefined
  let readings = 0
  try {
    for await (const line of lines(values.recording)) {
      if (read === undefined) {
        if (line.trim() === '') continue
        const kind = recordingKind(line)
        if (kind === undefined) throw notARecording(values.recording, 'is none of the files locate reads')
        read = readerFor(kind, {
          site,
          file: values.recording,
          parseObservation: parseRecordingLine,
          ...(values.gateway === undefined ? {} : { gateway: values.gateway }),
        })
      }
      const got = read(line)
      if (got === undefined) {
        if (line.trim() !== '') skipped++
        continue
      }
      for (const o of got) {
        // Beyond a Date's range a step is below the time's resolution (−1e20 + 1000 is −1e20).
        if (!(Math.abs(o.time) <= MAX_TIME_MS)) {
          skipped++
          continue
        }
        readings++
        if (Number.isNaN(next)) next = Math.ceil(o.time / every) * every
        // Every beacon was heard at or before `next`, so none is written more than
        // SILENT_STEPS + 1 steps on: a gap (a day, or a wild time) is jumped, not stepped through.
        for (let n = 0; o.time > next && n <= SILENT_STEPS; n++) {
          emit(next)
          next += every
        }
        if (o.time > next) next = Math.ceil(o.time / every) * every
        positioner.observe(o)
        lastHeard.set(o.beacon, o.time)
      }
    }
  } catch (error) {
    if (error instanceof InvalidOptionError) throw error
    throw new InvalidOptionError(
      'invalid_option',
      `locate: cannot read the recording ${values.recording} (${(error as Error).message})`,
      { option: 'recording', cause: error },
    )
  }
  // Nothing to position is a wrong file, not an empty result (as \`beaconkit replay\` says).
  if (read === undefined) throw notARecording(values.recording, 'is empty')
  if (readings === 0) throw notARecording(values.recording, `holds no RSSI reading (${skipped} unreadable lines)`)
  if (!Number.isNaN(next)) emit(next)
  const s = positioner.stats
  err.write(
    `locate: ${s.observations} observations, ${estimates} estimates; skipped ${skipped} unreadable ` +
      `lines, ${s.unknownAnchor} from anchors the site does not place, ${s.invalid + s.late} invalid or late\n`,
  )
  return EXIT.ok
}

function round(v: number): number {
  return Math.round(v * 100) / 100
}

/** What `beaconkit locate` parses to. */
export type LocateCommand = { command: 'locate' } & LocateFlags

/** `beaconkit locate`: its options, help, parser and runner (registered in registry.ts). */
export const locateCommand = defineCommand({
  name: 'locate',
  overview: [['locate <recording>', 'position the beacons of a recording on the site plan']],
  options: {
    site: { type: 'string' },
    survey: { type: 'string' },
    occupancy: { type: 'string' },
    method: { type: 'string' },
    every: { type: 'string' },
    'tag-height': { type: 'string' },
    gateway: { type: 'string' },
  },
  help: `Usage: beaconkit locate --site <site.json> [options] <recording>

Positions the beacons of a recording on the site's plan, offline, and writes one
JSON line per beacon per second: {"time","beacon","x","y","accuracy","room"}
(time in ms since the epoch, x/y/accuracy in metres). See docs/positioning.md.

Recording formats (told apart by the first line):
  fleet recording        beaconkit fleet --record: each beacon's gateways and RSSI
  advertisement recording
                         beaconkit record: one scanner, the site anchor --gateway
                         (default: the site's only one); beacons by address
  survey                 beaconkit survey (x,y,anchor,rssi): each point a beacon "x,y",
                         rows 100 ms apart: where the engine puts the surveyed points
  CSV   timestamp,receiver,beacon,rssi[,...]  (timestamp in seconds; the tetam tracks)
  JSONL {"time": ms or ISO 8601, "gateway": "...", "id": "...", "rssi": -70}
A file of none of these, or without a single reading, exits 2 (not_a_recording).
Options:
  --site <file>          the site: anchor positions (required)
  --survey <file>        calibration survey, CSV (.gz allowed): x,y,anchor,rssi
                         (what \`beaconkit survey\` writes); or x,y,anchor,count,mean,sd;
                         or the tetam fingerprints set,x,y,z,timestamp,sensor,beacon,rssi.
                         Without it the engine uses default physics (metres of error)
  --occupancy <file>     walkable grid (the tetam occupancy format)
  --method <name>        ${POSITIONING_METHODS.join(', ')} (default filter)
  --every <ms>           one estimate per beacon this often (default 1000)
  --tag-height <m>       height of the moving tag (default: the survey's, else 1.2)
  --gateway <id>         the site anchor an advertisement recording was made at
                         (default: the site's only anchor)
  -h, --help             this help
Exit codes: 0 done, 2 bad option or file.`,
  parse(values, pos): LocateCommand {
    const command = 'locate'
    const [recording] = positionals(pos, 1, 'beaconkit locate --site <site.json> [options] <recording>', command)
    const site = str(values, 'site')
    if (site === undefined) fail('site', '--site is required: give the site file with the anchor positions', command)
    return {
      command,
      site,
      recording,
      method: positioningMethod(values, command),
      everyMs:
        number(values, 'every', command, {
          min: 10,
          max: 86_400_000,
          what: 'a number of milliseconds of at least 10',
        }) ?? 1000,
      ...optional('survey', str(values, 'survey')),
      ...optional('occupancy', str(values, 'occupancy')),
      ...optional(
        'tagHeight',
        number(values, 'tag-height', command, { min: -10, max: 100, what: 'a height in metres' }),
      ),
      ...optional('gateway', str(values, 'gateway')),
    }
  },
  run: (parsed) => runLocate(parsed),
})
