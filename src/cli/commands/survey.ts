/**
 * `beaconkit survey`: records a calibration walk from a live fleet. A person carries a beacon to
 * marked points; at each, the command waits for Enter, then keeps what every gateway reports of
 * that beacon over the broker for a few seconds, and appends it as survey samples
 * `x,y,anchor,rssi` (what `RadioMap.fromSurvey` and `beaconkit locate --survey` read). Samples
 * are appended point by point, so an interrupted walk keeps what it recorded.
 */
import { appendFile, readFile, stat } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { InvalidOptionError } from '../../errors.js'
import { EXIT } from '../exit.js'
import { Site } from '../../positioning/site.js'
import { readSurvey } from './radio-map-files.js'
import { readSiteFile } from './site-file.js'
import { surveyQuality } from './survey-quality.js'
import { parsePoints, typedPoint } from './survey-points.js'
import type { SurveyPointSpec } from './survey-points.js'
import { connect, csv, Recorder } from './survey-recorder.js'
import { openLog } from '../log-setup.js'
import { LOG_OPTIONS, LOG_OPTION_SPECS } from './view-options.js'
import { fail, number, parseLog, positionals, str } from '../arg-values.js'
import { parseMqtt } from '../mqtt-args.js'
import { defineCommand, optional } from './command.js'
import type { LogFlags, MqttFlags } from '../command-line.js'

/** `beaconkit survey`: the broker, the carried beacon, the points and where the samples go. */
export interface SurveyFlags {
  /** The broker the gateways publish to (`--mqtt`, `--mqtt-prefix`, `--mqtt-user`, `--mqtt-password-file`). */
  mqtt: MqttFlags
  /** The id of the carried beacon as the gateways publish it. */
  beacon: string
  /** The samples file (CSV x,y,anchor,rssi), appended to. */
  out: string
  /** CSV name,x,y; without it the command asks for x,y at each point. */
  points?: string
  /** Seconds recorded per point. */
  seconds: number
  /** The site file: with it, the survey's quality (leave-one-point-out error) is printed at the end. */
  site?: string
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
}

/** The standard streams the command talks through (the test drives them as a child process's). */
export interface SurveyIo {
  input: NodeJS.ReadableStream
  out: NodeJS.WritableStream
  err: NodeJS.WritableStream
}

/** Runs `beaconkit survey`; resolves with the exit code. */
export async function runSurvey(
  flags: SurveyFlags,
  io: SurveyIo = { input: process.stdin, out: process.stdout, err: process.stderr },
): Promise<number> {
  const { out, err } = io
  let points: SurveyPointSpec[] | undefined
  if (flags.points !== undefined) {
    let text: string
    try {
      text = await readFile(flags.points, 'utf8')
    } catch (error) {
      throw new InvalidOptionError(
        'unreadable_file',
        `survey: cannot read the points file ${flags.points} ` +
          `(${(error as NodeJS.ErrnoException).code ?? 'error'}); give a CSV of name,x,y`,
        { option: 'points', cause: error },
      )
    }
    const parsed = parsePoints(text)
    if (parsed.points.length === 0)
      throw new InvalidOptionError(
        'invalid_option',
        `survey: the points file ${flags.points} has no point; give one line name,x,y (metres) per point`,
        { option: 'points' },
      )
    if (parsed.skipped > 0)
      err.write(
        `survey: skipped ${parsed.skipped} unreadable lines of ${flags.points} (each line is name,x,y in metres)\n`,
      )
    points = parsed.points
  }
  // A bad site file fails now, not after the walk.
  const site = flags.site === undefined ? undefined : Site.fromJSON(await readSiteFile(flags.site, 'survey'))
  const prefix = flags.mqtt.topicPrefix ?? 'beaconkit'
  const recorder = new Recorder(prefix, flags.beacon)
  out.write(`survey: connecting to ${flags.mqtt.url} …\n`)
  const link = await connect(flags.mqtt, recorder, prefix, await openLog(flags.log, err))
  const lines = createInterface({ input: io.input, crlfDelay: Infinity })[Symbol.asyncIterator]()
  const ask = async (prompt: string): Promise<string | undefined> => {
    out.write(prompt)
    const r = await lines.next()
    return r.done === true ? undefined : r.value
  }
  let header = true
  try {
    header = (await stat(flags.out)).size === 0
  } catch {
    // A new file: it gets the header.
  }
  let recorded = 0
  let samples = 0
  let silent = 0
  try {
    for (let i = 0; ; i++) {
      let at: { name: string; x: number; y: number }
      if (points !== undefined) {
        const p = points[i]
        if (p === undefined) break
        const line = await ask(
          `point ${p.name} (${p.x}, ${p.y}), ${i + 1} of ${points.length}: stand there with beacon ` +
            `${flags.beacon} and press Enter (s Enter skips it)\n`,
        )
        if (line === undefined) break
        if (line.trim().toLowerCase() === 's') continue
        at = p
      } else {
        let typed: { x: number; y: number } | undefined
        for (;;) {
          const line = await ask(
            `point ${i + 1}: stand there with beacon ${flags.beacon}, type its x,y in metres and ` +
              `press Enter (an empty line ends the survey)\n`,
          )
          if (line === undefined || line.trim() === '') break
          typed = typedPoint(line)
          if (typed !== undefined) break
          out.write(
            `survey: ${JSON.stringify(line.trim().slice(0, 40))} is not x,y (two numbers in metres, e.g. 3.5,7)\n`,
          )
        }
        if (typed === undefined) break
        at = { name: `${i + 1}`, ...typed }
      }
      out.write(`recording ${flags.seconds} s at (${at.x}, ${at.y}) …\n`)
      recorder.begin(at.x, at.y)
      await new Promise((resolve) => setTimeout(resolve, flags.seconds * 1000))
      const got = recorder.end()
      if (got.samples.length === 0) {
        silent++
        out.write(
          `point ${at.name}: no gateway reported beacon ${flags.beacon}: is it on, and is ` +
            `${flags.beacon} its id as the gateways publish it (see beaconkit scan)? Nothing recorded\n`,
        )
        continue
      }
      await appendFile(flags.out, `${header ? 'x,y,anchor,rssi\n' : ''}${csv(got.samples)}`)
      header = false
      recorded++
      samples += got.samples.length
      out.write(
        `point ${at.name}: ${got.samples.length} readings from ${got.gateways.size} gateways ` +
          `(${[...got.gateways].sort().join(', ')})\n`,
      )
    }
  } catch (error) {
    if (error instanceof InvalidOptionError) throw error
    throw new InvalidOptionError(
      'unwritable_file',
      `survey: cannot append to ${flags.out} ` +
        `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path and its permissions`,
      { option: 'out', cause: error },
    )
  } finally {
    await link.close()
  }
  err.write(
    `survey: ${recorded} points, ${samples} samples appended to ` +
      `${flags.out}${silent > 0 ? `; ${silent} points heard nothing` : ''}` +
      `${recorder.malformed > 0 ? `; ${recorder.malformed} malformed batches or readings skipped` : ''}\n`,
  )
  if (recorded > 0) out.write(`${await qualityOf(flags.out, site)}\n`)
  return EXIT.ok
}

/** The quality of the whole samples file (this walk and earlier ones), or how to see it. */
async function qualityOf(file: string, site: Site | undefined): Promise<string> {
  if (site === undefined)
    return 'survey quality: add --site <site.json> to see the leave-one-point-out error (docs/positioning.md)'
  try {
    return surveyQuality(site, (await readSurvey(file, 'survey')).survey)
  } catch (error) {
    return `survey quality: not measurable: ${error instanceof Error ? error.message : String(error)}`
  }
}

/** What `beaconkit survey` parses to. */
export type SurveyCommand = { command: 'survey' } & SurveyFlags

/** `beaconkit survey`: its options, help, parser and runner (registered in registry.ts). */
export const surveyCommand = defineCommand({
  name: 'survey',
  overview: [['survey <samples.csv>', 'record a calibration walk from the gateways on a broker']],
  options: {
    mqtt: { type: 'string' },
    'mqtt-prefix': { type: 'string' },
    'mqtt-user': { type: 'string' },
    'mqtt-password-file': { type: 'string' },
    beacon: { type: 'string' },
    points: { type: 'string' },
    seconds: { type: 'string' },
    site: { type: 'string' },
    ...LOG_OPTION_SPECS,
  },
  help: `Usage: beaconkit survey --mqtt <url> --beacon <id> [options] <samples.csv>

Records a calibration walk from a live fleet of gateways. Carry the beacon to each
marked point; at each, press Enter and stand still: every gateway's RSSI of that
beacon is recorded for --seconds, then appended to <samples.csv> as x,y,anchor,rssi
(what beaconkit locate --survey and RadioMap.fromSurvey read). See docs/positioning.md.

  --mqtt <url>           the broker the gateways publish to (required)
  --mqtt-prefix <p>      their topic prefix (default beaconkit)
  --mqtt-user <name>     broker user name
  --mqtt-password-file <file>
                         file whose first line is the broker password
  --beacon <id>          the carried beacon's id as the gateways publish it (required)
  --points <file>        CSV name,x,y (metres): the points in order; without it the
                         command asks for x,y at each point (an empty line ends)
  --seconds <n>          seconds recorded per point (default 10; 60 is better)
  --site <site.json>     the site (gateway positions): at the end, print the survey's
                         quality, its leave-one-point-out error in dB (above ~5 dB the
                         survey is too sparse or a gateway moved)
${LOG_OPTIONS}
  -h, --help             this help
Exit codes: 0 done, 2 bad option or file.`,
  parse(values, pos): SurveyCommand {
    const command = 'survey'
    const [out] = positionals(
      pos,
      1,
      'beaconkit survey --mqtt <url> --beacon <id> [--points points.csv] <samples.csv>',
      command,
    )
    const mqtt = parseMqtt(values, command)
    if (mqtt === undefined)
      fail('mqtt', '--mqtt <url> is required: the broker the gateways publish to, e.g. mqtt://127.0.0.1:1883', command)
    const beacon = str(values, 'beacon')
    if (beacon === undefined || beacon === '')
      fail(
        'beacon',
        '--beacon <id> is required: the carried beacon, as the gateways publish it (see beaconkit scan)',
        command,
      )
    return {
      command,
      mqtt,
      beacon,
      out,
      seconds:
        number(values, 'seconds', command, {
          positive: true,
          max: 3600,
          what: 'a positive number of seconds up to 3600',
        }) ?? 10,
      ...optional('points', str(values, 'points')),
      ...optional('site', str(values, 'site')),
      ...optional('log', parseLog(values, command)),
    }
  },
  run: (parsed) => runSurvey(parsed),
})
