/**
 * The problems the model→parts mapping finds, collected so that one ConfigError names every bad
 * setting by its path (as a config file's check does), instead of the first one alone. Each
 * message is written once, in the command line's words (`--ha-dwell only takes effect with
 * --ha`): a command prints it as it is, a program's ConfigError says it in the model's terms
 * (`mqtt.homeAssistant.dwell only takes effect with mqtt.homeAssistant.enabled`).
 */

import { ConfigError } from '../../config/config-error.js'
import { inConfigTerms } from '../../config/fields.js'
import type { ConfigProblem } from '../../config/schema.js'

/** One problem: the setting's path in the model, and the message in the command line's words. */
export interface SettingProblem {
  readonly path: string
  readonly flagText: string
}

/** Problems found while the settings of one run are decided. */
export class SettingProblems {
  readonly list: SettingProblem[] = []

  /** `path`: the setting in the model (`mqtt.homeAssistant.dwell`); `flagText`: what to change, in flags. */
  add(path: string, flagText: string): void {
    this.list.push({ path, flagText })
  }

  /**
   * The problems as a ConfigError names them: in the model's terms, without the placeholders a
   * flag's value has in the help (`<url>`), and without the path again at the start.
   */
  configProblems(): ConfigProblem[] {
    return this.list.map(({ path, flagText }) => {
      const text = inConfigTerms(flagText).replace(/ <[a-z][^>]*>/g, '')
      return { path, message: text.startsWith(`${path} `) ? text.slice(path.length + 1) : text }
    })
  }

  /** @throws ConfigError (`invalid_config`) listing every problem, when there is one */
  throwIfAny(): void {
    if (this.list.length > 0) throw new ConfigError(this.configProblems())
  }
}

/** Short texts only: a value may be a secret typed in the wrong place. */
export function quoted(text: string): string {
  return text.length <= 24 ? `'${text}'` : `(${text.length} characters)`
}
