/**
 * The settings a command takes from a config file (`--config`) and `BEACONKIT_*` environment
 * variables, as option values beneath the typed flags. Nothing of the configuration layer
 * (zod, the YAML parser) is loaded unless a config file is named or a variable is set.
 */

import { basename } from 'node:path'
import { InvalidOptionError } from '../errors.js'
import type { ConfigProblem } from '../config/schema.js'
import type { ModelOptions } from '../config/values.js'
import type { Command } from './commands/command.js'

/** Where warnings about the configuration go. */
export type ConfigWarn = (text: string) => void

/** The value of `--config <file>` / `--config=<file>` in a command's arguments, if given (the last one wins, as for any flag). */
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
  const { readEnvironment } = await import('../config/env.js')
  const fromEnv = readEnvironment(env)
  for (const name of fromEnv.unknown) {
    const close = fromEnv.suggestions.get(name)
    const hint = close === undefined ? '' : `; did you mean ${close}?`
    warn(`${name} is not a beaconkit setting and is ignored${hint} (the variables are listed in docs/configuration.md)`)
  }
  if (file === undefined && fromEnv.origins.size === 0 && fromEnv.problems.length === 0) return undefined
  const [{ loadConfigFile }, { checkModel }, { mergeModels, modelOptions }] = await Promise.all([
    import('../config/load.js'),
    import('../config/schema.js'),
    import('../config/values.js'),
  ])
  const problems: ConfigProblem[] = [...fromEnv.problems]
  let fileModel: unknown = {}
  if (file !== undefined) {
    const loaded = await loadConfigFile(file)
    problems.push(...loaded.problems.map((p) => ({ path: `${basename(file)}: ${p.path}`, message: p.message })))
    fileModel = loaded.model ?? {}
  }
  const envChecked = checkModel(fromEnv.data)
  // A wrong value in the environment is named by its variable, not by the model's path.
  problems.push(
    ...envChecked.problems.map((p) => ({
      path: fromEnv.origins.get(p.path) ?? `environment: ${p.path}`,
      message: p.message,
    })),
  )
  if (problems.length > 0) throw configError(problems, file)
  const merged = mergeModels(fileModel, envChecked.model ?? {})
  return modelOptions(
    merged,
    (option) => command.acceptsSetting(option),
    (path) => fromEnv.origins.get(path) ?? `${basename(file ?? 'config')}: ${path}`,
  )
}

/** One error for every problem, each on its own line with where it is. */
function configError(problems: readonly ConfigProblem[], file: string | undefined): InvalidOptionError {
  const head =
    problems.length === 1 ? 'the configuration has a problem' : `the configuration has ${problems.length} problems`
  const check = file === undefined ? '' : ` (beaconkit config check ${file} lists them too)`
  return new InvalidOptionError(
    'invalid_config',
    `${head}${check}:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`,
    { option: 'config' },
  )
}
