/** `beaconkit replay`: a recording (file, FIFO or standard input) through the views; a fleet recording on the map. */

import { basename } from 'node:path'
import { InvalidOptionError } from '../../errors.js'
import { pathForMessage } from '../../secure/secret-file.js'
import { ReplaySource } from '../../sources/replay.js'
import { bool, fail, positionals, speed } from '../arg-values.js'
import { parseView } from '../view-args.js'
import type { ViewFlags } from '../command-line.js'
import { demoRecordingPath } from '../demo-recording.js'
import { defineCommand } from './command.js'
import { isFleetRecordingFile, replayFleet } from './fleet-replay.js'
import { runView } from './view.js'
import { COMMON_TAIL, VIEW_CONFIG_ONLY, VIEW_OPTIONS, VIEW_OPTION_SPECS } from './view-options.js'

/** What `beaconkit replay` parses to. */
export interface ReplayCommand {
  command: 'replay'
  view: ViewFlags
  file: string
  speed: number
  virtual: boolean
}

/**
 * Replays an advertisement recording: `-` reads standard input (a pipe), any other path a file or
 * a FIFO. An input without a single valid advertisement line is not a recording: exit 2, saying so.
 */
export async function replayRecording(file: string, view: ViewFlags, speed: number, virtual: boolean): Promise<number> {
  const stdin = file === '-'
  const name = stdin ? 'standard input' : basename(file)
  // Published live, a replay is on the current clock: a fleet refuses batches stamped a month
  // from their arrival, and the demo recording is of 2026-01-01.
  const presentTime = !virtual && view.mqtt !== undefined
  const source = new ReplaySource(stdin ? process.stdin : file, { virtual, speed, presentTime })
  let ended = false
  source.once('end', () => {
    ended = true
  })
  const pace = virtual ? 'virtual time' : `×${speed}`
  const code = await runView({ source, label: `replay ${name} ${pace}`, view, drainAtEnd: true })
  const { lines, malformed, advertisements } = source.stats
  if (ended && advertisements === 0) {
    const what =
      lines === 0
        ? 'is empty'
        : source.header !== undefined && malformed === 0
          ? 'holds a header but no advertisement'
          : `has no valid advertisement line (${malformed} of ${lines} lines malformed)`
    throw new InvalidOptionError(
      'not_a_recording',
      `${stdin ? 'standard input' : `recording ${pathForMessage(file)}`} ${what}: a recording is ` +
        `JSONL with one advertisement per line, as \`beaconkit record\` writes`,
      { option: 'file' },
    )
  }
  return code
}

/** A fleet recording goes to the map with its time slider; anything else is an advertisement recording. */
async function runReplay(parsed: ReplayCommand): Promise<number> {
  if (await isFleetRecordingFile(parsed.file)) return replayFleet(parsed.file, parsed.view)
  return replayRecording(parsed.file, parsed.view, parsed.speed, parsed.virtual)
}

/** `beaconkit replay`: its options, help, parser and runner (registered in registry.ts). */
export const replayCommand = defineCommand({
  name: 'replay',
  overview: [['replay <file.jsonl>', 'replay a recording through the same views']],
  options: { ...VIEW_OPTION_SPECS, speed: { type: 'string' }, virtual: { type: 'boolean' }, demo: { type: 'boolean' } },
  configOnly: VIEW_CONFIG_ONLY,
  help: `Usage: beaconkit replay <file.jsonl> [options]
       beaconkit replay --demo [options]
       beaconkit replay - [options]          (reads the recording from standard input)

Replays a recording (made with \`beaconkit record\` or AdvertisementRecorder) through
the same views as \`scan\`. The file may be a FIFO. At the end of the input the beacons
age out (8 s without adverts), then the command exits 0. Timers run on the recording's
clock at any speed, and event times are recording times, except with --mqtt in real
time: what a live replay publishes is on the current clock (a fleet refuses batches
stamped a month from their arrival), its first advertisement now. Malformed lines are skipped
with a warning naming the line; an input without a single advertisement line (empty,
not JSONL) exits 2.

A fleet recording (\`beaconkit fleet --record <file>\`) is served with --http instead:
the live map with a time slider to scrub through the run, until Ctrl-C
(\`beaconkit replay day.jsonl --virtual --http 8080\`).

Replay:
  --demo                 replay the recording bundled with beaconkit (90 s of a small
                         site) instead of a file
  --speed <factor>       replay faster (10) or slower (0.5) than recorded; default 1;
                         the same events at the same times as --virtual
  --virtual              run in virtual time, as fast as possible (for tests and CI)
${VIEW_OPTIONS}
${COMMON_TAIL}

Example: beaconkit replay --demo --virtual --json | head`,
  parse(values, pos): ReplayCommand {
    const command = 'replay'
    const usage = 'beaconkit replay <file.jsonl> [options], or beaconkit replay --demo [options]'
    let file: string
    if (bool(values, 'demo')) {
      if (pos.length > 0) fail('demo', `give either a recording or --demo, not both: ${usage}`, command)
      file = demoRecordingPath()
    } else {
      file = positionals(pos, 1, usage, command)[0]
    }
    return {
      command,
      view: parseView(values, command),
      file,
      speed: speed(values, command),
      virtual: bool(values, 'virtual'),
    }
  },
  run: runReplay,
})
