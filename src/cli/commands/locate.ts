/**
 * `beaconkit locate`: offline positioning of a recording. Reads a site file, optionally a survey
 * and an occupancy grid, then the recording (any file beaconkit writes that holds RSSI, or the
 * tetam track CSV, or JSON lines `{time, gateway, id, rssi}`: locate-input.ts), and writes one
 * JSON line `{time, beacon, x, y, accuracy, room}` per beacon per step. Bad lines are skipped and
 * counted on stderr, never fatal; a file without a single reading is refused (exit 2).
 */
import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { createGunzip } from 'node:zlib'
import { InvalidOptionError } from '../../errors.js'
import { Site } from '../../positioning/site.js'
import { WalkableGrid } from '../../positioning/grid.js'
import { Positioner } from '../../positioning/positioner.js'
import { RadioMap } from '../../positioning/radio-map.js'
import { SurveyPoints } from '../../positioning/survey.js'
import type { Observation } from '../../positioning/types.js'
import type { LocateFlags } from '../command-line.js'
import { EXIT } from '../exit.js'
import { notARecording, readerFor, recordingKind } from './locate-input.js'
import type { LineReader } from './locate-input.js'

function bad(message: string, option: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', message, { option })
}

function lines(path: string): AsyncIterable<string> {
  const raw = createReadStream(path)
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw
  return createInterface({ input, crlfDelay: Infinity })
}

/** A survey CSV (`x,y,anchor,rssi`, `x,y,sensor,rssi[,z]` or `x,y,anchor,count,mean,sd`); shared with `fleet --survey`. */
export async function readSurvey(path: string, command = 'locate'): Promise<{ survey: SurveyPoints; tagHeight?: number }> {
  const survey = new SurveyPoints()
  let header: string[] | undefined
  let zSum = 0
  let zCount = 0
  try {
    for await (const line of lines(path)) {
      const f = line.split(',').map((s) => s.trim())
      if (header === undefined) {
        header = f
        continue
      }
      const col = (name: string): string | undefined => f[(header as string[]).indexOf(name)]
      if (header.includes('sensor')) {
        survey.add({ x: Number(col('x')), y: Number(col('y')), anchor: col('sensor') ?? '', rssi: Number(col('rssi')) })
        const z = Number(col('z'))
        if (Number.isFinite(z)) {
          zSum += z
          zCount++
        }
      } else if (header.includes('mean')) {
        survey.addAggregate(Number(col('x')), Number(col('y')), col('anchor') ?? '', { count: Number(col('count')), mean: Number(col('mean')), sd: Number(col('sd')) })
      } else survey.add({ x: Number(col('x')), y: Number(col('y')), anchor: col('anchor') ?? '', rssi: Number(col('rssi')) })
    }
  } catch (error) {
    throw new InvalidOptionError('invalid_option', `${command}: cannot read the survey ${path} (${(error as Error).message}); give a CSV survey file (see --help)`, { option: 'survey', cause: error })
  }
  if (survey.size === 0) throw bad(`${command}: the survey ${path} has no usable rows; its header must name x, y, anchor (or sensor) and rssi (or count, mean, sd)`, 'survey')
  return zCount > 0 ? { survey, tagHeight: zSum / zCount } : { survey }
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
    if (typeof gateway !== 'string' || typeof id !== 'string' || typeof rssi !== 'number' || !Number.isFinite(t)) return undefined
    return { time: t, anchor: gateway, beacon: id, rssi }
  }
  const f = s.split(',')
  const time = Number(f[0]) * 1000
  const rssi = Number(f[3])
  if (f.length < 4 || f[0] === '' || !Number.isFinite(time) || !Number.isFinite(rssi) || f[1] === '' || f[2] === '') return undefined
  return { time, anchor: f[1], beacon: f[2], rssi }
}

/** Runs `beaconkit locate` (its flags parsed by the shared command-line parser). */
export async function runLocate(values: LocateFlags, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const { method, everyMs: every } = values
  let siteJson: unknown
  try {
    siteJson = JSON.parse(await readFile(values.site, 'utf8'))
  } catch (error) {
    throw new InvalidOptionError('invalid_option', `locate: cannot read the site ${values.site} as JSON (${(error as Error).message}); see docs/fleet.md for the shape`, { option: 'site', cause: error })
  }
  const site = Site.fromJSON(siteJson)
  let grid: WalkableGrid | undefined
  if (values.occupancy !== undefined) {
    try {
      grid = WalkableGrid.parseOccupancy(await readFile(values.occupancy, 'utf8')).grid
    } catch (error) {
      if (error instanceof InvalidOptionError) throw error
      throw new InvalidOptionError('invalid_option', `locate: cannot read the occupancy grid ${values.occupancy} (${(error as Error).message})`, { option: 'occupancy', cause: error })
    }
  }
  const survey = values.survey === undefined ? undefined : await readSurvey(values.survey)
  const tagHeight = values.tagHeight ?? survey?.tagHeight
  const mapOptions = { ...(grid === undefined ? {} : { grid }), ...(tagHeight === undefined ? {} : { tagHeight }) }
  const radioMap = survey === undefined ? RadioMap.defaultPhysics(site, mapOptions) : RadioMap.fromSurvey(site, survey.survey, mapOptions)
  const positioner = new Positioner({ site, radioMap, method })

  const lastHeard = new Map<string, number>()
  let next = Number.NaN
  let skipped = 0
  let estimates = 0
  const emit = (time: number): void => {
    for (const [beacon, heard] of lastHeard) {
      // A beacon unheard for ten steps has left: stop writing it out.
      if (time - heard > 10 * every) continue
      const e = positioner.estimate(beacon, time)
      if (e === undefined) continue
      estimates++
      out.write(`${JSON.stringify({ time, beacon, x: round(e.x), y: round(e.y), accuracy: round(e.accuracy), room: e.room ?? null })}\n`)
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
        read = readerFor(kind, { site, file: values.recording, parseObservation: parseRecordingLine, ...(values.gateway === undefined ? {} : { gateway: values.gateway }) })
      }
      const got = read(line)
      if (got === undefined) {
        if (line.trim() !== '') skipped++
        continue
      }
      for (const o of got) {
        readings++
        if (Number.isNaN(next)) next = Math.ceil(o.time / every) * every
        while (o.time > next) {
          emit(next)
          next += every
        }
        positioner.observe(o)
        lastHeard.set(o.beacon, o.time)
      }
    }
  } catch (error) {
    if (error instanceof InvalidOptionError) throw error
    throw new InvalidOptionError('invalid_option', `locate: cannot read the recording ${values.recording} (${(error as Error).message})`, { option: 'recording', cause: error })
  }
  // Nothing to position is a wrong file, not an empty result (as \`beaconkit replay\` says).
  if (read === undefined) throw notARecording(values.recording, 'is empty')
  if (readings === 0) throw notARecording(values.recording, `holds no RSSI reading (${skipped} unreadable lines)`)
  if (!Number.isNaN(next)) emit(next)
  const s = positioner.stats
  err.write(`locate: ${s.observations} observations, ${estimates} estimates; skipped ${skipped} unreadable lines, ${s.unknownAnchor} from anchors the site does not place, ${s.invalid + s.late} invalid or late\n`)
  return EXIT.ok
}

function round(v: number): number {
  return Math.round(v * 100) / 100
}
