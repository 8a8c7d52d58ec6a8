/**
 * Reading a config file (YAML or JSON: YAML 1.2 reads both) and checking it against the model.
 * A config file may hold secrets, so it is read as one (a plain file of at most 1 MiB), and a
 * file holding a secret in plain text must be private (no access for group or others), as ssh
 * demands of a private key. Every problem is reported with its path; no value is ever echoed.
 */

import { readSecretFile } from '../secure/secret-file.js'
import { checkModel, SETTING_NAME } from './schema.js'
import type { ConfigModel, ConfigProblem } from './schema.js'
import { CONFIG_FIELDS, envName } from './fields.js'

/** A config file, read and checked. */
export interface LoadedConfig {
  /** The model, when the file has no problem. */
  readonly model?: ConfigModel
  /** Every problem, each with its path (`mqtt.url`); empty when the file is good. */
  readonly problems: readonly ConfigProblem[]
}

/**
 * Reads and checks a config file. A file that cannot be read at all throws InvalidOptionError
 * (`file_not_found`, `unreadable_file`, `not_a_file`); everything wrong inside it is returned.
 */
export async function loadConfigFile(path: string): Promise<LoadedConfig> {
  const { text, exposed, mode } = await readSecretFile(path, 'config file', 'config')
  const { LineCounter, parseDocument } = await import('yaml')
  const lines = new LineCounter()
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter: lines })
  const [first] = doc.errors
  if (first !== undefined) {
    // The first error only: a file that is not YAML at all (a binary) has one per line, all alike.
    const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more)` : ''
    const what = first.code.toLowerCase().replace(/_/g, ' ')
    return {
      problems: [{ path: `line ${lines.linePos(first.pos[0]).line}`, message: `not YAML or JSON: ${what}${more}` }],
    }
  }
  let data: unknown
  try {
    // A config file needs no alias used more than a few times; an alias bomb ("billion laughs")
    // is refused here, before it expands, instead of filling the memory.
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
  } catch (error) {
    // yaml throws a plain ReferenceError for it: a file problem like any other (exit 2), not a crash.
    if (!(error instanceof ReferenceError)) throw error
    const message = `not a config file: its YAML aliases expand too much (more than ${MAX_ALIAS_COUNT} uses of one)`
    return { problems: [{ path: '(file)', message }] }
  }
  // An empty file is an empty configuration (everything from the environment and the flags).
  if (data !== null && data !== undefined && notAConfigFile(data)) {
    const message =
      'not a config file: expected settings by name at the top (gateway:, mqtt:, …; see `beaconkit config example`)'
    return { problems: [{ path: '(file)', message }] }
  }
  const checked = checkModel(data ?? {})
  const problems = [...checked.problems]
  // Checked on what the file holds, valid or not: a secret in a readable file is exposed either way.
  if (exposed) {
    for (const path of secretsIn(data)) {
      const file = fileAlternative(path)
      const moves =
        file === undefined
          ? `the environment (${envName(path)})`
          : `a file (${file}) or the environment (${envName(path)})`
      problems.push({
        path,
        message:
          `a secret in plain text in a file others can read (mode ` +
          `${mode.toString(8).padStart(3, '0')}): chmod 600 the file, or move the secret to ${moves}`,
      })
    }
  }
  return problems.length === 0 && checked.model !== undefined ? { model: checked.model, problems } : { problems }
}

/** How often one YAML alias may be used in a config file. */
const MAX_ALIAS_COUNT = 100

/**
 * Whether parsed YAML is something other than a config file: not a mapping (a list, a word), or
 * a mapping of which no key is a section and some key could not even be a setting's name (a
 * shadow or passwd file reads as a mapping of its lines). Such a file gets one line, not one
 * "unknown key" per line of its content.
 */
function notAConfigFile(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return true
  const keys = Object.keys(data)
  return !keys.some((k) => SECTIONS.has(k)) && keys.some((k) => !SETTING_NAME.test(k))
}

const SECTIONS = new Set(['$schema', ...CONFIG_FIELDS.map((f) => f.path.split('.')[0])])

/** The secret settings a model holds in plain text, by path. */
export function secretsIn(model: unknown): string[] {
  return CONFIG_FIELDS.filter((f) => f.secret === true && valueAt(model, f.path) !== undefined).map((f) => f.path)
}

/** The value at a dot path of a model, if any. */
export function valueAt(model: unknown, path: string): unknown {
  let at: unknown = model
  for (const key of path.split('.')) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

/** The setting that names a file for the same secret, where there is one. */
function fileAlternative(path: string): string | undefined {
  if (path === 'keys.keys') return 'keys.file'
  if (path.endsWith('.password')) return path.replace(/password$/, 'passwordFile')
  return undefined
}
