/**
 * The files a radio map is built from, as `locate` and `fleet` both read them: a survey CSV and
 * an occupancy grid; and the line reader of a (possibly gzipped) text file.
 */
import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { createGunzip } from 'node:zlib'
import { InvalidOptionError } from '../../errors.js'
import type { Site } from '../../positioning/site.js'
import { WalkableGrid } from '../../positioning/grid.js'
import { RadioMap } from '../../positioning/radio-map.js'
import { SurveyPoints } from '../../positioning/survey.js'

/** A bad input file, refused as an option. */
function bad(message: string, option: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', message, { option })
}

/** A text file's lines (gunzipped when it ends in .gz). */
export function lines(path: string): AsyncIterable<string> {
  const raw = createReadStream(path)
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw
  return createInterface({ input, crlfDelay: Infinity })
}

/**
 * A survey CSV (`x,y,anchor,rssi`, `x,y,sensor,rssi[,z]` or `x,y,anchor,count,mean,sd`); shared with `fleet
 * --survey`.
 */
export async function readSurvey(
  path: string,
  command = 'locate',
): Promise<{ survey: SurveyPoints; tagHeight?: number }> {
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
        survey.addAggregate(Number(col('x')), Number(col('y')), col('anchor') ?? '', {
          count: Number(col('count')),
          mean: Number(col('mean')),
          sd: Number(col('sd')),
        })
      } else
        survey.add({ x: Number(col('x')), y: Number(col('y')), anchor: col('anchor') ?? '', rssi: Number(col('rssi')) })
    }
  } catch (error) {
    throw new InvalidOptionError(
      'invalid_option',
      `${command}: cannot read the survey ${path} (${(error as Error).message}); give a CSV survey file (see --help)`,
      { option: 'survey', cause: error },
    )
  }
  if (survey.size === 0)
    throw bad(
      `${command}: the survey ${path} has no usable rows; its header must name x, y, anchor (or ` +
        `sensor) and rssi (or count, mean, sd)`,
      'survey',
    )
  return zCount > 0 ? { survey, tagHeight: zSum / zCount } : { survey }
}

/**
 * The radio map the files describe, as `locate` and `fleet` both build it: calibrated by the
 * survey when there is one, default physics otherwise, on the occupancy grid when there is one,
 * at `tagHeight` (default: the survey's, when it records one).
 */
export async function radioMapFromFiles(
  site: Site,
  files: { survey?: string; occupancy?: string; tagHeight?: number },
  command = 'locate',
): Promise<RadioMap> {
  const grid = files.occupancy === undefined ? undefined : await readOccupancy(files.occupancy, command)
  const survey = files.survey === undefined ? undefined : await readSurvey(files.survey, command)
  const tagHeight = files.tagHeight ?? survey?.tagHeight
  const options = { ...(grid === undefined ? {} : { grid }), ...(tagHeight === undefined ? {} : { tagHeight }) }
  return survey === undefined
    ? RadioMap.defaultPhysics(site, options)
    : RadioMap.fromSurvey(site, survey.survey, options)
}

/** An occupancy grid file (`WalkableGrid.parseOccupancy`); shared with `fleet --occupancy`. */
export async function readOccupancy(path: string, command = 'locate'): Promise<WalkableGrid> {
  try {
    return WalkableGrid.parseOccupancy(await readFile(path, 'utf8')).grid
  } catch (error) {
    if (error instanceof InvalidOptionError) throw error
    throw new InvalidOptionError(
      'invalid_option',
      `${command}: cannot read the occupancy grid ${path} (${(error as Error).message})`,
      { option: 'occupancy', cause: error },
    )
  }
}
