/**
 * The one error a configuration with problems gives: every problem, each with where it is (a
 * path in the file, an environment variable, a flag's setting), none with its value.
 */

import { InvalidOptionError } from '../errors.js'
import type { ConfigProblem } from './schema.js'

/**
 * A configuration that cannot be used (code `invalid_config`; the command line exits 2 for it).
 * The message lists every problem on its own line; `problems` holds them for a program.
 */
export class ConfigError extends InvalidOptionError {
  /** Every problem, each with its path (`mqtt.url`, `gateway.yaml: mqtt.url`, `BEACONKIT_MQTT_URL`). */
  readonly problems: readonly ConfigProblem[]

  /** `file`: the config file, named in the message so `beaconkit config check` can be suggested. */
  constructor(problems: readonly ConfigProblem[], file?: string) {
    const head =
      problems.length === 1 ? 'the configuration has a problem' : `the configuration has ${problems.length} problems`
    const check = file === undefined ? '' : ` (beaconkit config check ${file} lists them too)`
    super('invalid_config', `${head}${check}:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`, {
      option: 'config',
    })
    this.problems = problems
  }
}
