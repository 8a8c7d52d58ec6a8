/**
 * The problems the model→parts mapping finds, collected so that one ConfigError names every bad
 * setting by its path (as a config file's check does), instead of the first one alone.
 */

import { ConfigError } from '../../config/config-error.js'
import type { ConfigProblem } from '../../config/schema.js'

/** Problems found while the settings of one run are decided. */
export class SettingProblems {
  readonly list: ConfigProblem[] = []

  /** `path`: the setting in the model (`mqtt.homeAssistant.dwell`); `message` says what to change. */
  add(path: string, message: string): void {
    this.list.push({ path, message })
  }

  /** @throws ConfigError (`invalid_config`) listing every problem, when there is one */
  throwIfAny(): void {
    if (this.list.length > 0) throw new ConfigError(this.list)
  }
}

/** Short texts only: a value may be a secret typed in the wrong place. */
export function quoted(text: string): string {
  return text.length <= 24 ? `'${text}'` : `(${text.length} characters)`
}
