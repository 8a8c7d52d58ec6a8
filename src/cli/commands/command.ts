/**
 * The shape of one `beaconkit` command: its options, its help, how it reads a parsed command line
 * and how it runs. Each command is one module of this folder that exports such a definition, and
 * `registry.ts` lists them; the parser, the help and the entry point know commands only through
 * the registry, so a new command is one file and one line there.
 */

import type { ParseArgsConfig } from 'node:util'
import type { Values } from '../arg-values.js'

/** Option specifications as Node's `util.parseArgs` takes them. */
export type OptionSpecs = NonNullable<ParseArgsConfig['options']>

/** What a command module writes: its name, its options, its help, its parser and its runner. */
export interface CommandDefinition<N extends string, P> {
  /** The first word of the command line (`beaconkit <name>`). */
  readonly name: N
  /** Its lines in the overview (`beaconkit --help`): usage and what it does, one pair per line. */
  readonly overview: readonly (readonly [usage: string, summary: string])[]
  /** Its options (`--help` is added to every command). */
  readonly options: OptionSpecs
  /**
   * Settings a config file or the environment may give it beyond its options (a secret value
   * has no flag, so it never shows in the process list). Only commands with a `config` option read them.
   */
  readonly configOnly?: readonly string[]
  /** `beaconkit <name> --help`. */
  readonly help: string
  /** Rewrites the arguments before Node parses them (an option whose value is optional, for one). */
  prepareArgs?(args: string[]): string[]
  /** Reads the parsed values and positional arguments; throws InvalidOptionError on a bad command line. */
  parse(values: Values, positionals: string[]): P
  /** Runs what `parse` returned to its end; resolves with the exit code. */
  run(parsed: P): Promise<number>
}

/** A parsed command line bound to the command that runs it. */
export interface Invocation<P> {
  readonly parsed: P
  run(): Promise<number>
}

/** A command as the registry holds it: the definition's texts, and a parser that binds its runner. */
export interface Command<N extends string = string, P = unknown> {
  readonly name: N
  readonly overview: CommandDefinition<N, P>['overview']
  readonly options: OptionSpecs
  readonly help: string
  /** True when the command reads a config file (`--config`) and `BEACONKIT_*` variables. */
  readonly configurable: boolean
  /** Whether a config file or the environment may set `option` for this command. */
  acceptsSetting(option: string): boolean
  prepareArgs(args: string[]): string[]
  /** Parses with the definition and binds the result to its runner, so the caller needs no switch. */
  invoke(values: Values, positionals: string[]): Invocation<P>
}

/**
 * Makes a registry entry of a command module's definition. The binding happens here, where the
 * parsed type and the runner's argument are the same type parameter, so the registry can hold
 * commands of different parsed types without a cast.
 */
export function defineCommand<N extends string, P>(definition: CommandDefinition<N, P>): Command<N, P> {
  return {
    name: definition.name,
    overview: definition.overview,
    options: definition.options,
    help: definition.help,
    configurable: Object.hasOwn(definition.options, 'config'),
    acceptsSetting: (option) =>
      option !== 'config' &&
      (Object.hasOwn(definition.options, option) || (definition.configOnly?.includes(option) ?? false)),
    prepareArgs: (args) => definition.prepareArgs?.(args) ?? args,
    invoke(values, positionals) {
      const parsed = definition.parse(values, positionals)
      return { parsed, run: () => definition.run(parsed) }
    },
  }
}

/** `{ name: value }` when the value is present, `{}` otherwise: keeps absent options absent. */
export function optional<K extends string, V>(name: K, value: V | undefined): { [Q in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [Q in K]?: V }
}
