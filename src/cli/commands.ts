/** The commands that run something (everything but help, version and keys check). */

import { basename } from 'node:path'
import { NobleSource } from '../sources/noble.js'
import { ReplaySource } from '../sources/replay.js'
import { SimulatedSource } from '../sources/simulated.js'
import type { ParsedCommand } from './args.js'
import { runEmulate } from './emulate.js'
import { runRecord } from './record.js'
import { siteScenario } from './scenario.js'
import { runView } from './run-view.js'

type RunnableCommand = Exclude<ParsedCommand, { command: 'help' | 'version' | 'keys-check' }>

/** Runs one command to its end; returns the exit code. */
export async function runCommand(parsed: RunnableCommand): Promise<number> {
  switch (parsed.command) {
    case 'emulate':
      return runEmulate(parsed)
    case 'scan': {
      const source = new NobleSource(parsed.hci === undefined ? {} : { hciDeviceId: parsed.hci })
      return runView({ source, label: `scan hci${parsed.hci ?? 0}`, view: parsed.view, adapter: true })
    }
    case 'replay': {
      const source = new ReplaySource(parsed.file, { virtual: parsed.virtual, speed: parsed.speed })
      const pace = parsed.virtual ? 'virtual time' : `×${parsed.speed}`
      return runView({ source, label: `replay ${basename(parsed.file)} ${pace}`, view: parsed.view, drainAtEnd: true })
    }
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
