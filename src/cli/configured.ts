/**
 * The settings a command takes from a config file (`--config`) and `BEACONKIT_*` environment
 * variables, as option values beneath the typed flags. Nothing of the configuration layer
 * (zod, the YAML parser) is loaded unless a config file is named or a variable is set.
 */

import type { ModelOptions } from '../config/values.js'
import type { Command } from './commands/command.js'

/** Where warnings about the configuration go. */
export type ConfigWarn = (text: string) => void

/**
 * The value of `--config <file>` / `--config=<file>` in a command's arguments, if given (the last one wins,
 * as for any flag).
 */
export function configArg(args: readonly string[]): string | undefined {
  return flagArg(args, 'config')
}

/**
 * The value of `--<name> <value>` / `--<name>=<value>` in a command's arguments, read before they
 * are parsed (the last one wins).
 */
export function flagArg(args: readonly string[], name: string): string | undefined {
  let value: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '--') break
    if (arg === `--${name}` && i + 1 < args.length) value = args[++i]
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3)
  }
  return value
}

/**
 * The option values a config file and the environment give `command` (the file beneath the
 * environment); undefined when the command reads no configuration or none is given.
 * @throws InvalidOptionError `invalid_config` listing every problem with its path or variable;
 *   the file errors of reading it (`file_not_found`, `unreadable_file`, `not_a_file`)
 */
export async function configuredOptions(
  command: Command,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  warn: ConfigWarn,
): Promise<ModelOptions | undefined> {
  if (!command.configurable) return undefined
  const file = configArg(args)
  const { readEnvironment, unknownVariableWarnings } = await import('../config/env.js')
  const fromEnv = readEnvironment(env)
  for (const text of unknownVariableWarnings(fromEnv)) warn(text)
  if (file === undefined && fromEnv.origins.size === 0 && fromEnv.problems.length === 0) return undefined
  const [{ readConfig }, { modelOptions }] = await Promise.all([
    import('../config/load-config.js'),
    import('../config/values.js'),
  ])
  // The environment's unknown variables were reported above: not again.
  const { model, origin } = await readConfig({ ...(file === undefined ? {} : { file }), env })
  return modelOptions(model, (option) => command.acceptsSetting(option), origin)
}
