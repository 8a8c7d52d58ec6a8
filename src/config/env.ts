/**
 * `BEACONKIT_*` environment variables as settings of the model: each setting's variable is
 * its path in capitals (fields.ts), and its text is read by the setting's kind. The result is
 * checked by the same schema as a file, so a wrong value is named by its variable.
 */

import { CONFIG_FIELDS, ENV_PREFIX, envName } from './fields.js'
import type { ConfigField } from './fields.js'
import type { ConfigProblem } from './schema.js'
import { closestName } from '../util/did-you-mean.js'

/** What the environment sets: a partial model, the variables it came from, and what was wrong. */
export interface EnvSettings {
  /** A partial model (unchecked: run it through `checkModel`). */
  readonly data: Record<string, unknown>
  /** Setting path → the variable that set it. */
  readonly origins: ReadonlyMap<string, string>
  /** Values that could not be read, and `BEACONKIT_*` variables that are no setting. */
  readonly problems: readonly ConfigProblem[]
  /** `BEACONKIT_*` variables that name no setting (a typo, or another program's). */
  readonly unknown: readonly string[]
  /** For an unknown variable that is a likely typo: the setting's variable it is closest to. */
  readonly suggestions: ReadonlyMap<string, string>
}

// Every `BEACONKIT_*` variable is a setting's (the repository's own tools use `BKDEV_*`).
const BY_ENV = new Map<string, ConfigField>(CONFIG_FIELDS.map((f) => [envName(f.path), f]))

/** Reads the settings of `env` (normally `process.env`). */
export function readEnvironment(env: Readonly<Record<string, string | undefined>>): EnvSettings {
  const data: Record<string, unknown> = {}
  const origins = new Map<string, string>()
  const problems: ConfigProblem[] = []
  const unknown: string[] = []
  for (const [name, text] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || text === undefined) continue
    const field = BY_ENV.get(name)
    if (field === undefined) {
      unknown.push(name)
      continue
    }
    const value = readValue(field, text.trim())
    if (value instanceof Error) {
      problems.push({ path: name, message: value.message })
      continue
    }
    setAt(data, field.path, value)
    origins.set(field.path, name)
  }
  const suggestions = new Map<string, string>()
  for (const name of unknown) {
    const close = closestName(name, [...BY_ENV.keys()])
    if (close !== undefined) suggestions.set(name, close)
  }
  return { data, origins, problems, unknown: unknown.sort(), suggestions }
}

/** The warning for each `BEACONKIT_*` variable that is no setting (with the likely one, for a typo). */
export function unknownVariableWarnings(settings: EnvSettings): string[] {
  return settings.unknown.map((name) => {
    const close = settings.suggestions.get(name)
    const hint = close === undefined ? '' : `; did you mean ${close}?`
    return (
      `${name} is not a beaconkit setting and is ignored${hint} (the variables are listed in ` +
      `docs/configuration.md)`
    )
  })
}

/** A variable's text as the setting's type; an Error saying what it should be. */
function readValue(field: ConfigField, text: string): unknown {
  switch (field.kind) {
    case 'string':
    case 'site':
      return text === '' ? new Error('is empty') : text
    case 'listen':
      return /^\d+$/.test(text) ? Number(text) : text
    case 'number': {
      const n = Number(text)
      return text === '' || !Number.isFinite(n) ? new Error('expected a number') : n
    }
    case 'boolean':
    case 'enabled': {
      const b = BOOLEAN[text.toLowerCase()]
      if (b !== undefined) return b
      if (field.kind === 'enabled' && /^\d+$/.test(text)) return Number(text)
      return new Error(`expected true or false${field.kind === 'enabled' ? ' or a port' : ''}`)
    }
    case 'strings':
    case 'numbers': {
      const items = list(text)
      if (items instanceof Error) return items
      if (field.kind === 'strings') return items
      const numbers = items.map(Number)
      return numbers.some((n) => !Number.isFinite(n)) ? new Error('expected numbers, e.g. 0,1') : numbers
    }
  }
}

const BOOLEAN: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  '1': true,
  '0': false,
  yes: true,
  no: false,
  on: true,
  off: false,
}

/** A list: a JSON array, or items separated by commas. */
function list(text: string): string[] | Error {
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text)
      if (Array.isArray(parsed)) return parsed.map((v) => String(v))
    } catch {
      // reported below
    }
    return new Error('expected a JSON array or items separated by commas')
  }
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/** Sets `value` at a dot path, making the objects on the way. */
function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  let at = target
  for (const key of keys.slice(0, -1)) {
    const next = at[key]
    if (typeof next === 'object' && next !== null) {
      at = next as Record<string, unknown>
    } else {
      const made: Record<string, unknown> = {}
      at[key] = made
      at = made
    }
  }
  at[keys[keys.length - 1]] = value
}
