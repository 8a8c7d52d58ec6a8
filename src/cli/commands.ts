/** The commands that run something (everything but help, version and keys check). */

import { basename } from 'node:path'
import { ReplaySource } from '../sources/replay.js'
import { SimulatedSource } from '../sources/simulated.js'
import type { ParsedCommand, ViewFlags } from './command-line.js'
import { AdapterError, BluetoothUnavailableError, InvalidOptionError } from '../errors.js'
import { pathForMessage } from '../secure/secret-file.js'
import { scanSource } from './commands/backend.js'
import { runBroker } from './commands/broker.js'
import { runEmulate } from './commands/emulate.js'
import { runLocate } from './commands/locate.js'
import { runSurvey } from './commands/survey.js'
import { runRecord } from './commands/record.js'
import { runWebhook } from './commands/webhook.js'
import { siteScenario } from '../sources/scenario.js'
import { runView } from './commands/view.js'
import { isFleetRecordingFile, replayFleet } from './commands/fleet-replay.js'
import { runFleet } from './commands/fleet.js'
import { runFleetForget } from './commands/fleet-forget.js'
import { runSimulateSite } from './commands/simulate-site.js'

type RunnableCommand = Exclude<ParsedCommand, { command: 'help' | 'version' | 'keys-check' | 'site-check' }>

/**
 * `beaconkit replay`: `-` reads standard input (a pipe), any other path a file or a FIFO.
 * An input without a single valid advertisement line is not a recording: exit 2, saying so.
 */
async function replay(file: string, view: ViewFlags, speed: number, virtual: boolean): Promise<number> {
  const stdin = file === '-'
  const name = stdin ? 'standard input' : basename(file)
  const source = new ReplaySource(stdin ? process.stdin : file, { virtual, speed })
  let ended = false
  source.once('end', () => {
    ended = true
  })
  const pace = virtual ? 'virtual time' : `×${speed}`
  const code = await runView({ source, label: `replay ${name} ${pace}`, view, drainAtEnd: true })
  const { lines, malformed, advertisements } = source.stats
  if (ended && advertisements === 0) {
    const what = lines === 0 ? 'is empty' : source.header !== undefined && malformed === 0 ? 'holds a header but no advertisement' : `has no valid advertisement line (${malformed} of ${lines} lines malformed)`
    throw new InvalidOptionError('not_a_recording', `${stdin ? 'standard input' : `recording ${pathForMessage(file)}`} ${what}: a recording is JSONL with one advertisement per line, as \`beaconkit record\` writes`, { option: 'file' })
  }
  return code
}

/**
 * Several adapters of which none could start for want of Bluetooth: the same error (exit code,
 * fallback replay) as one adapter that could not, with every adapter's reason in the message.
 */
function bluetoothFailure(error: unknown): unknown {
  if (!(error instanceof AdapterError) || error.code !== 'no_adapter_started' || error.failures === undefined) return error
  const [first] = error.failures
  if (first === undefined || !error.failures.every((f) => f.error instanceof BluetoothUnavailableError)) return error
  return new BluetoothUnavailableError((first.error as BluetoothUnavailableError).code, error.message, { cause: error })
}

/** Runs one command to its end; returns the exit code. */
export async function runCommand(parsed: RunnableCommand): Promise<number> {
  switch (parsed.command) {
    case 'emulate':
      return runEmulate(parsed)
    case 'broker':
      return runBroker(parsed)
    case 'locate':
      return runLocate(parsed)
    case 'survey':
      return runSurvey(parsed)
    case 'webhook':
      return runWebhook(parsed)
    case 'scan': {
      const { source, label } = scanSource(parsed)
      try {
        try {
          return await runView({ source, label, view: parsed.view, adapter: true })
        } catch (error) {
          throw bluetoothFailure(error)
        }
      } catch (error) {
        if (!(error instanceof BluetoothUnavailableError) || parsed.fallbackReplay === undefined) throw error
        // The demo on a machine without Bluetooth: say why in one line, then show the recording.
        process.stderr.write(`beaconkit: no Bluetooth adapter here (${error.code}); replaying ${parsed.fallbackReplay} instead\n`)
        return replay(parsed.fallbackReplay, parsed.view, 1, false)
      }
    }
    case 'replay':
      if (await isFleetRecordingFile(parsed.file)) return replayFleet(parsed.file, parsed.view)
      return replay(parsed.file, parsed.view, parsed.speed, parsed.virtual)
    case 'fleet':
      return runFleet(parsed)
    case 'fleet-forget':
      return runFleetForget(parsed)
    case 'simulate': {
      if (parsed.site !== undefined && parsed.view.mqtt !== undefined) {
        return runSimulateSite({ site: parsed.site, mqtt: parsed.view.mqtt, seed: parsed.seed, ...(parsed.durationMs === undefined ? {} : { durationMs: parsed.durationMs }) })
      }
      const devices = siteScenario(parsed.beacons, parsed.seed)
      if (parsed.virtual) {
        // Virtual time needs an end: the source stops at the duration, then the beacons age out.
        const source = new SimulatedSource({ devices, seed: parsed.seed, virtual: true, ...(parsed.durationMs === undefined ? {} : { durationMs: parsed.durationMs }) })
        return runView({ source, label: `simulate ${parsed.beacons} beacons, virtual time`, view: parsed.view, drainAtEnd: true })
      }
      const source = new SimulatedSource({ devices, seed: parsed.seed })
      return runView({ source, label: `simulate ${parsed.beacons} beacons`, view: parsed.view, ...(parsed.durationMs === undefined ? {} : { durationMs: parsed.durationMs }) })
    }
    case 'record':
      return runRecord(parsed)
  }
}
