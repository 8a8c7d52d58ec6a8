/**
 * Command-line parsing: argv in, a typed command out, or an InvalidOptionError whose
 * message says what to type instead. No I/O here (files and keys are read by the commands).
 * Which commands exist, their options and how each reads its values are the commands' own
 * (commands/registry.ts); this module only finds the command and runs Node's parser for it.
 */

import { parseArgs } from 'node:util'
import { InvalidOptionError } from '../errors.js'
import type { ModelOptions } from '../config/values.js'
import { fail, quote } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { Invocation, OptionSpecs } from './commands/command.js'
import { COMMANDS, findCommand } from './commands/registry.js'
import type { CommandName, ParsedCommand } from './commands/registry.js'

export type { CommandName, ParsedCommand } from './commands/registry.js'

/** `--help` is an option of every command. */
const HELP: OptionSpecs = { help: { type: 'boolean', short: 'h' } }

/**
 * `--min-rssi -80` is what people type, but parseArgs reads `-80` as an option and calls the
 * value ambiguous: glue a negative number to the option that takes a value.
 */
function joinNegativeValues(argv: string[], options: OptionSpecs): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const name = arg.startsWith('--') ? arg.slice(2) : undefined
    const next = argv[i + 1]
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else {
      out.push(arg)
    }
  }
  return out
}

/**
 * What an option takes, as its command's help writes it (`--fallback-replay <file.jsonl>` →
 * `<file.jsonl>`), so a missing value is named by what to give.
 */
function valueOf(flag: string, help: string): string {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`${escaped} (<[^>\\n]{1,40}>)`).exec(help)?.[1] ?? '<value>'
}

/** Node's own parse errors, reworded to point at the help. */
function parseWith(
  argv: string[],
  command: CommandName,
  options: OptionSpecs,
  help = '',
): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: joinNegativeValues(argv, options), options, allowPositionals: true, strict: true })
    return { values: parsed.values as Values, positionals: parsed.positionals }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const message = error instanceof Error ? error.message : String(error)
    const unknown = /Unknown option '([^']*)'/.exec(message)
    if (unknown !== null) fail(unknown[1], `unknown option ${unknown[1]} for \`beaconkit ${command}\``, command)
    const missing = /Option '(-[^' ]*)[^']*' argument missing/.exec(message)
    // `--fallback-replay --json`: Node calls the value ambiguous (it starts with a dash); the value was forgotten.
    const ambiguous = /Option '(-[^' ]*)[^']*' argument is ambiguous/.exec(message)
    const needs = missing?.[1] ?? ambiguous?.[1]
    const dash = ambiguous === null ? '' : ` (a value that starts with - is written ${needs ?? ''}=-…)`
    if (needs !== undefined) {
      fail(needs.replace(/^-+/, ''), `option ${needs} needs a value: ${needs} ${valueOf(needs, help)}${dash}`, command)
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      // `--virtual=yes`: a value given to a flag. The value is not echoed (it may be a secret typed in the
      // wrong place).
      const flag = /Option '(-[^' ]*)'/.exec(message)?.[1] ?? 'this option'
      fail(flag.replace(/^-+/, ''), `${flag} is a flag and takes no value: write ${flag} alone, without =…`, command)
    }
    fail('option', message, command)
  }
}

/** A parsed command line, and how to run it (help and the version are printed by the entry point). */
export type ParsedInvocation =
  { parsed: Extract<ParsedCommand, { command: 'help' | 'version' }>; run?: undefined } | Invocation<ParsedCommand>

/**
 * Parses `process.argv.slice(2)` and binds the command that runs it; throws InvalidOptionError on
 * a bad command line. `configured` holds what a config file and the environment set
 * (configured.ts): those values lie beneath the flags typed, so the flags win, and a problem with
 * one of them is reported with where it was set.
 */
export function parseInvocation(argv: readonly string[], configured?: ModelOptions): ParsedInvocation {
  const [first, ...rest] = argv
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined
    if (topic === undefined) return { parsed: { command: 'help' } }
    const command = findCommand(topic)
    if (command === undefined) fail('command', `no help for ${quote(topic)}: commands are ${COMMANDS.join(', ')}`)
    return { parsed: { command: 'help', topic: command.name } }
  }
  if (first === '--version' || first === '-v') return { parsed: { command: 'version' } }
  if (first.startsWith('-')) fail('command', `put the command first: beaconkit <${COMMANDS.join('|')}> [options]`)
  const command = findCommand(first)
  if (command === undefined) fail('command', `unknown command ${quote(first)}: commands are ${COMMANDS.join(', ')}`)
  const options = { ...HELP, ...command.options }
  const { values, positionals } = parseWith(command.prepareArgs(rest), command.name, options, command.help)
  if (values.help === true) return { parsed: { command: 'help', topic: command.name } }
  if (configured === undefined) return command.invoke(values, positionals)
  try {
    return command.invoke({ ...configured.values, ...values }, positionals)
  } catch (error) {
    const option = error instanceof InvalidOptionError ? error.option : undefined
    const origin = option === undefined || values[option] !== undefined ? undefined : configured.origins.get(option)
    if (origin === undefined || !(error instanceof InvalidOptionError)) throw error
    throw new InvalidOptionError(error.code, `${origin}: ${error.message}`, { option, cause: error })
  }
}

/** Parses `process.argv.slice(2)`; throws InvalidOptionError (code 'invalid_option') on a bad command line. */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  return parseInvocation(argv).parsed
}
