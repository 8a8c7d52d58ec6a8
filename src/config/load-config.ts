/**
 * The one configuration model for commands and programs: a config file, `BEACONKIT_*`
 * environment variables and flags (a partial model) fill the same model, in that order of
 * precedence (flags win), and are checked by the same schema. A command reads its configuration
 * here (src/cli/configured.ts), and so can a program ({@link loadConfig}). zod and the YAML parser
 * load only when a configuration is read, so importing the package stays light.
 */

import { basename } from 'node:path'
import { ConfigError } from './config-error.js'
import { readEnvironment, unknownVariableWarnings } from './env.js'
import type { ConfigModel, ConfigProblem } from './schema.js'

/** The configuration of a gateway and a fleet, as the JSON Schema (`beaconkit config schema`) describes it. */
export type BeaconkitConfig = ConfigModel

/** Where {@link loadConfig} reads the configuration from. */
export interface LoadConfigSources {
  /** A YAML or JSON config file (a file holding a secret must be private: mode 600). */
  file?: string
  /** The environment whose `BEACONKIT_*` variables are settings (e.g. `process.env`; default none). */
  env?: Readonly<Record<string, string | undefined>>
  /** Settings that win over the file and the environment (a program's own, or a command's flags). */
  flags?: Partial<BeaconkitConfig>
  /** Where a `BEACONKIT_*` variable that is no setting is reported (default: not reported). */
  warn?(text: string): void
}

/** A configuration read, with where each setting came from (for a command's messages). */
export interface ReadConfig {
  readonly model: BeaconkitConfig
  /** Where the setting at `path` came from: its variable, or the file and the path. */
  origin(path: string): string
}

/**
 * Reads, merges and checks the configuration (file, then environment, then flags).
 * @throws ConfigError (`invalid_config`) naming every bad setting by its path or variable
 * @throws InvalidOptionError when the file cannot be read (`file_not_found`, `unreadable_file`, `not_a_file`)
 */
export async function readConfig(sources: LoadConfigSources): Promise<ReadConfig> {
  const { file } = sources
  // zod and the YAML parser load only when a configuration is read, not with the package.
  const [{ loadConfigFile }, { checkModel }, { mergeModels }] = await Promise.all([
    import('./load.js'),
    import('./schema.js'),
    import('./values.js'),
  ])
  const fromEnv = readEnvironment(sources.env ?? {})
  for (const text of unknownVariableWarnings(fromEnv)) sources.warn?.(text)
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
  const flagsChecked = sources.flags === undefined ? { model: {}, problems: [] } : checkModel(sources.flags)
  problems.push(...flagsChecked.problems.map((p) => ({ path: `flags: ${p.path}`, message: p.message })))
  if (problems.length > 0) throw new ConfigError(problems, file)
  const merged = mergeModels(mergeModels(fileModel, envChecked.model ?? {}), flagsChecked.model ?? {})
  // Each part was checked; merged, the whole is checked once more (it is what the caller gets).
  const whole = checkModel(merged)
  if (whole.model === undefined) throw new ConfigError(whole.problems, file)
  return {
    model: whole.model,
    origin: (path) => fromEnv.origins.get(path) ?? `${basename(file ?? 'config')}: ${path}`,
  }
}

/**
 * The configuration of a gateway or a fleet from a config file, the environment and a
 * program's own settings, checked as the `beaconkit` commands check theirs (flags win over the
 * environment, the environment over the file). Nothing is read that is not named: pass
 * `env: process.env` for the `BEACONKIT_*` variables.
 *
 * @example
 * ```ts
 * const config = await loadConfig({ file: '/etc/beaconkit/gateway.yaml', env: process.env })
 * ```
 * @throws ConfigError (`invalid_config`) naming every bad setting by its path or variable
 * @throws InvalidOptionError when the file cannot be read (`file_not_found`, `unreadable_file`, `not_a_file`)
 */
export async function loadConfig(sources: LoadConfigSources = {}): Promise<BeaconkitConfig> {
  return (await readConfig(sources)).model
}
