/** The commands that run something (everything but help, version and keys check). */

import { basename } from 'node:path'
import { NobleSource } from '../sources/noble.js'
import { ReplaySource } from '../sources/replay.js'
import type { ParsedCommand } from './args.js'
import { runEmulate } from './emulate.js'
import { CommandUnavailableError } from './exit.js'
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
    case 'simulate':
    case 'record':
      throw new CommandUnavailableError(parsed.command, 'the simulator')
  }
}
