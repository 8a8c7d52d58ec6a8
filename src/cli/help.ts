/** The overview of `beaconkit --help`; each command's own help is in its module (commands/). */

import { COMMAND_LIST, findCommand } from './commands/registry.js'
import type { CommandName } from './commands/registry.js'

/** The commands' overview lines: the usage in a 23-column field, then what it does. */
function commandLines(): string {
  return COMMAND_LIST.flatMap((c) => c.overview.map(([usage, summary]) => `  ${usage.padEnd(22)} ${summary}`)).join(
    '\n',
  )
}

/** Help of one command, or the overview when `topic` is absent. */
export function helpText(topic?: CommandName): string {
  if (topic !== undefined) return findCommand(topic)?.help ?? overview()
  return overview()
}

/** `beaconkit --help`. */
function overview(): string {
  return `beaconkit — scan, decode, track and verify the beacons of the device cloud platform

Usage: beaconkit <command> [options]

Commands:
${commandLines()}

Run \`beaconkit <command> --help\` for the options of a command.
  -h, --help             this help
  -v, --version          the version

Try it: beaconkit replay --demo          (a recorded site; Ctrl-C stops it)
        beaconkit simulate               (simulated beacons, until Ctrl-C)`
}
