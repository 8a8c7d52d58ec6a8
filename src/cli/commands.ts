/** The commands that run something (everything but help, version and keys check). */

import { basename } from 'node:path'
import { NobleSource } from '../sources/noble.js'
import { ReplaySource } from '../sources/replay.js'
import { SimulatedSource } from '../sources/simulated.js'
import type { ParsedCommand, ViewFlags } from './args.js'
import { BluetoothUnavailableError } from '../errors.js'
import { runBroker } from './broker.js'
import { runEmulate } from './emulate.js'
import { runRecord } from './record.js'
import { siteScenario } from './scenario.js'
import { runView } from './run-view.js'

type RunnableCommand = Exclude<ParsedCommand, { command: 'help' | 'version' | 'keys-check' }>

function replay(file: string, view: ViewFlags, speed: number, virtual: boolean): Promise<number> {
  const source = new ReplaySource(file, { virtual, speed })
  const pace = virtual ? 'virtual time' : `×${speed}`
  return runView({ source, label: `replay ${basename(file)} ${pace}`, view, drainAtEnd: true })
}

/** Runs one command to its end; returns the exit code. */
export async function runCommand(parsed: RunnableCommand): Promise<number> {
  switch (parsed.command) {
    case 'emulate':
      return runEmulate(parsed)
    case 'broker':
      return runBroker(parsed)
    case 'scan': {
      const source = new NobleSource(parsed.hci === undefined ? {} : { hciDeviceId: parsed.hci })
      try {
        return await runView({ source, label: `scan hci${parsed.hci ?? 0}`, view: parsed.view, adapter: true })
      } catch (error) {
        if (!(error instanceof BluetoothUnavailableError) || parsed.fallbackReplay === undefined) throw error
        // The demo on a machine without Bluetooth: say why in one line, then show the recording.
        process.stderr.write(`beaconkit: no Bluetooth adapter here (${error.code}); replaying ${parsed.fallbackReplay} instead\n`)
        return replay(parsed.fallbackReplay, parsed.view, 1, false)
      }
    }
    case 'replay':
      return replay(parsed.file, parsed.view, parsed.speed, parsed.virtual)
    case 'simulate': {
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
