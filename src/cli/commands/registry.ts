/**
 * Every `beaconkit` command, in the order the overview lists them. A new command is a module of
 * this folder exporting a `defineCommand(…)` and one line here; the parser, the help and the
 * entry point read this list and nothing else.
 */

import { brokerCommand } from './broker.js'
import type { Command } from './command.js'
import { configCommand } from './config.js'
import { emulateCommand } from './emulate.js'
import { fleetCommand } from './fleet.js'
import { keysCommand } from './keys.js'
import { irkCommand } from './irk-import.js'
import { locateCommand } from './locate.js'
import { recordCommand } from './record.js'
import { replayCommand } from './replay.js'
import { scanCommand } from './scan.js'
import { simulateCommand } from './simulate.js'
import { siteCommand } from './site.js'
import { surveyCommand } from './survey.js'
import { webhookCommand } from './webhook.js'

/** The commands, in the order of the overview. */
export const COMMAND_LIST = [
  scanCommand,
  replayCommand,
  recordCommand,
  simulateCommand,
  emulateCommand,
  brokerCommand,
  webhookCommand,
  fleetCommand,
  siteCommand,
  configCommand,
  keysCommand,
  irkCommand,
  locateCommand,
  surveyCommand,
] as const

type Registered = (typeof COMMAND_LIST)[number]

/** The sub-commands of `beaconkit` (the first word of a command line). */
export type CommandName = Registered['name']

/** The command names, in the order of the overview. */
export const COMMANDS: readonly CommandName[] = COMMAND_LIST.map((c) => c.name)

/** A parsed command line: help, the version, or what one of the commands parses to. */
export type ParsedCommand =
  { command: 'help'; topic?: CommandName } | { command: 'version' } | ReturnType<Registered['invoke']>['parsed']

/** The command called `name`, if there is one. */
export function findCommand(name: string): Command<CommandName, ParsedCommand> | undefined {
  return COMMAND_LIST.find((c) => c.name === name)
}
