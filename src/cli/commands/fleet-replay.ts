/**
 * `beaconkit replay <fleet recording> --http port`: a recorded fleet run served with a time
 * slider, until Ctrl-C. The run is already fused, so no broker and no tracker are needed.
 */
import { stat } from 'node:fs/promises'
import { InvalidOptionError } from '../../errors.js'
import { FleetTimeline } from '../../web/timeline.js'
import type { ViewFlags } from '../command-line.js'
import { EXIT } from '../exit.js'
import { handleSignals } from '../../gateway/shutdown.js'
import { startWeb } from '../../gateway/web-sink.js'
import { noticeStream } from '../log-setup.js'

/** Whether `file` is a regular file holding a fleet recording (a FIFO is never read ahead). */
export async function isFleetRecordingFile(file: string): Promise<boolean> {
  if (file === '-') return false
  try {
    if (!(await stat(file)).isFile()) return false
    return await FleetTimeline.isFleetRecording(file)
  } catch {
    // Unreadable: the advertisement replay says why.
    return false
  }
}

/** Serves the recording until Ctrl-C; returns the exit code. */
export async function replayFleet(
  file: string,
  view: ViewFlags,
  stderr: { write(text: string): unknown } = process.stderr,
): Promise<number> {
  if (view.http === undefined)
    throw new InvalidOptionError(
      'invalid_option',
      `${file} is a fleet recording: review it in the browser with --http, e.g. beaconkit replay ${file} --http 8080`,
      { option: 'http' },
    )
  // A recording has no live parts to measure or judge: --metrics would serve nothing true.
  if (view.metrics !== undefined)
    throw new InvalidOptionError(
      'invalid_option',
      `${file} is a fleet recording: --metrics measures a running gateway or fleet, not a recording; leave it out`,
      { option: 'metrics' },
    )
  const timeline = await FleetTimeline.load(file)
  const minutes = Math.round((timeline.end - timeline.start) / 60_000)
  // In the log's format: JSON records for a service, as every other line on stderr.
  const notices = noticeStream(view.log, stderr)
  const skipped = timeline.malformed > 0 ? `, ${timeline.malformed} lines skipped as not of the format` : ''
  notices.write(`beaconkit: fleet recording of ${minutes} min${skipped}\n`)
  const server = await startWeb(view.http, { timeline }, notices)
  await new Promise<void>((resolve) => {
    const remove = handleSignals(() => {
      remove()
      resolve()
    })
  })
  await server.close()
  return EXIT.ok
}
