/**
 * Reads the few things the service test needs from a systemd unit file, the way systemd reads
 * them (one `Key=value` per line, `#` comments), and adapts the installed paths to a temporary
 * directory, so the test runs each unit's own command line rather than a copy of it.
 */

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The repository's examples/systemd directory. */
export const SYSTEMD_DIR = fileURLToPath(new URL('../../examples/systemd/', import.meta.url))

/** The binary `npm install -g` puts on the path, as the units name it. */
export const INSTALLED_BINARY = '/usr/local/bin/beaconkit'

/** Where the units expect their configuration (ConfigurationDirectory=beaconkit). */
export const CONFIG_DIR = '/etc/beaconkit'

/** One `Key=value` setting, in file order, with its section. */
export interface UnitSetting {
  section: string
  key: string
  value: string
}

/** The settings of a unit file (comments and blank lines left out). */
export function unitSettings(text: string): UnitSetting[] {
  const settings: UnitSetting[] = []
  let section = ''
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const header = /^\[(.+)\]$/.exec(line)
    if (header !== null) {
      section = header[1] as string
      continue
    }
    const eq = line.indexOf('=')
    if (eq < 0) throw new Error(`not a unit setting: ${line}`)
    settings.push({ section, key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() })
  }
  return settings
}

/** The unit file's text. */
export function readUnit(name: string): string {
  return readFileSync(`${SYSTEMD_DIR}${name}`, 'utf8')
}

/** The values a key has in [Service], in order. */
export function serviceValues(text: string, key: string): string[] {
  return unitSettings(text)
    .filter((s) => s.section === 'Service' && s.key === key)
    .map((s) => s.value)
}

/**
 * Resolves the specifiers the units use: `%S` (the state root, /var/lib) and `%d` (the
 * credentials directory). Any other specifier is an error, so a new one is not passed on raw.
 */
export function resolveSpecifiers(value: string, dirs: { state: string; credentials: string }): string {
  return value.replace(/%(.)/g, (_match, letter: string) => {
    if (letter === 'S') return dirs.state
    if (letter === 'd') return dirs.credentials
    if (letter === '%') return '%'
    throw new Error(`unit specifier %${letter} is not handled by the test`)
  })
}

/** ExecStart's command line as words (the units use no quoting and no `-`/`@`/`+` prefix). */
export function execStart(text: string): string[] {
  const [command, ...more] = serviceValues(text, 'ExecStart')
  if (command === undefined || more.length > 0) throw new Error('expected exactly one ExecStart=')
  if (/["'\\]/.test(command) || /^[-@+!:]/.test(command)) throw new Error(`ExecStart uses quoting or a prefix the test does not handle: ${command}`)
  return command.split(/\s+/)
}

/** The Environment= assignments (`KEY=value`, one or more per line, unquoted), specifiers resolved. */
export function environment(text: string, dirs: { state: string; credentials: string }): Record<string, string> {
  const env: Record<string, string> = {}
  for (const line of serviceValues(text, 'Environment')) {
    for (const assignment of line.split(/\s+/)) {
      const eq = assignment.indexOf('=')
      if (eq <= 0 || /["']/.test(assignment)) throw new Error(`Environment= the test does not handle: ${line}`)
      env[assignment.slice(0, eq)] = resolveSpecifiers(assignment.slice(eq + 1), dirs)
    }
  }
  return env
}

/** The text with the commented-out settings (`#Key=value`, no space) switched on. */
export function withOptionalSettings(text: string): string {
  return text.replace(/^#([A-Z][A-Za-z]+=)/gm, '$1')
}
