/**
 * The settings a command line gives, decided by the composition root's mapping (gateway/settings/):
 * the command only reads its flags' values into a partial model; the defaults and the checks of
 * settings that go together are the mapping's, and its first problem is the command's refusal,
 * in the flag's words and naming the option (a setting from a config file is then prefixed with
 * where it was set, as any option's).
 */

import { optionOf } from '../config/fields.js'
import { SettingProblems } from '../gateway/settings/problems.js'
import { fail } from './arg-values.js'

/** What `decide` returns, or the InvalidOptionError of its first problem. */
export function decided<T>(command: string, decide: (problems: SettingProblems) => T): T {
  const problems = new SettingProblems()
  const result = decide(problems)
  const [first] = problems.list
  if (first === undefined) return result
  const option = optionOf(first.path) ?? first.path
  // A config file's `beacons:` reaches a command as JSON text (config/values.ts): its option is that one.
  fail(option === 'beacon-names' ? 'beacon-names-json' : option, first.flagText, command)
  return result
}
