/**
 * `beaconkit config check <file>`, `config schema`, `config example [--fleet]`: the config file
 * of a gateway or a fleet (docs/configuration.md). `check` lists every problem with its path and
 * never a value; it also runs the file through the command it is for (`scan`, `fleet`), so a
 * setting the schema allows but the command refuses (Home Assistant dwell without Home
 * Assistant) is found before a service starts with it.
 */

import { InvalidOptionError } from '../../errors.js'
import { bool, fail, quote } from '../arg-values.js'
import type { Values } from '../arg-values.js'
import { defineCommand } from './command.js'
import type { Command } from './command.js'
import { fleetCommand } from './fleet.js'
import { scanCommand } from './scan.js'

/** What `beaconkit config …` parses to. */
export type ConfigCommand =
  | { command: 'config-check'; file: string }
  | { command: 'config-schema' }
  | { command: 'config-example'; fleet: boolean }

/** Where the output goes. */
interface Out {
  write(text: string): unknown
}

/**
 * Which commands a model is for: a fleet when it has fleet settings or a site, a gateway when it has a
 * gateway's own settings.
 */
function rolesOf(model: Record<string, unknown>): Command[] {
  const fleet = model.fleet !== undefined || model.site !== undefined
  const gateway = ['gateway', 'adapter', 'keys', 'filters', 'upload'].some((k) => model[k] !== undefined)
  return fleet && !gateway ? [fleetCommand] : fleet ? [scanCommand, fleetCommand] : [scanCommand]
}

/** Prints every problem of a config file; 0 when it has none, 2 otherwise. */
export async function runConfigCheck(file: string, out: Out = process.stdout): Promise<number> {
  const [{ loadConfigFile }, { modelOptions }, { inConfigTerms }] = await Promise.all([
    import('../../config/load.js'),
    import('../../config/values.js'),
    import('../../config/fields.js'),
  ])
  const loaded = await loadConfigFile(file)
  const problems = loaded.problems.map((p) => `${p.path}: ${p.message}`)
  const roles = loaded.model === undefined ? [] : rolesOf(loaded.model)
  for (const command of roles) {
    const { values, origins } = modelOptions(
      loaded.model,
      (o) => command.acceptsSetting(o),
      (path) => path,
    )
    try {
      command.invoke(values as Values, [])
    } catch (error) {
      if (!(error instanceof InvalidOptionError)) throw error
      const at = error.option === undefined ? undefined : origins.get(error.option)
      // The command's words name its flags; say which setting it was, and drop the pointer at the flags' help.
      problems.push(
        `${at ?? `as beaconkit ${command.name}`}: ` +
          `${inConfigTerms(error.message.replace(/ \(see `beaconkit [a-z]+ --help`\)$/, ''))}`,
      )
    }
  }
  for (const line of problems) out.write(`${line}\n`)
  // The path as given: with several files of one name (/etc/beaconkit/gateway.yaml and ./gateway.yaml) it says which.
  const name = file
  if (problems.length > 0) {
    out.write(`${name}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`)
    return 2
  }
  out.write(`${name}: ok (${roles.map((c) => (c.name === 'fleet' ? 'fleet' : 'gateway')).join(' and ')})\n`)
  return 0
}

/** `beaconkit config`: check, schema, example. */
export const configCommand = defineCommand({
  name: 'config',
  overview: [
    ['config check <file>', 'check a config file: every problem with its path'],
    ['config schema', "print the config file's JSON Schema"],
    ['config example', "print a commented config file (--fleet: a fleet's)"],
  ],
  options: { fleet: { type: 'boolean' } },
  help: `Usage: beaconkit config check <file>
       beaconkit config schema
       beaconkit config example [--fleet]

The config file of a gateway (beaconkit scan --config <file>, also replay and simulate) or
a fleet (beaconkit fleet --config <file>), in YAML or JSON (docs/configuration.md).
BEACONKIT_* environment variables override its settings, and flags override both.

  check <file>           print every problem with its path in the file (mqtt.url: …);
                         a file holding a secret in plain text (mqtt.password, keys.keys,
                         a token) must be private (chmod 600). No value is ever printed
  schema                 print the JSON Schema (also shipped as
                         schema/beaconkit-config.schema.json, for editors)
  example                print a commented gateway config that passes the check
  --fleet                with example: a fleet's config instead
  -h, --help             this help
Exit codes: 0 done (check: no problem), 2 problems found, bad option or unreadable file.`,
  parse(values, pos): ConfigCommand {
    const command = 'config'
    const [sub, file, ...extra] = pos
    const usage = 'usage: beaconkit config check <file> | config schema | config example [--fleet]'
    const fleet = bool(values, 'fleet')
    if (fleet && sub !== 'example') fail('fleet', `--fleet goes with config example: ${usage}`, command)
    if (sub === 'check') {
      if (file === undefined) fail('argument', `missing argument: ${usage}`, command)
      if (extra.length > 0) fail('argument', `config check takes one file: ${usage}`, command)
      return { command: 'config-check', file }
    }
    if ((sub === 'schema' || sub === 'example') && file !== undefined)
      fail('argument', `unexpected argument ${quote(file)}: ${usage}`, command)
    if (sub === 'schema') return { command: 'config-schema' }
    if (sub === 'example') return { command: 'config-example', fleet }
    fail('argument', `${usage}${sub === undefined ? '' : `; unknown config command ${quote(sub)}`}`, command)
  },
  async run(parsed) {
    if (parsed.command === 'config-check') return runConfigCheck(parsed.file)
    if (parsed.command === 'config-schema') {
      const { configJsonSchema } = await import('../../config/schema.js')
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`)
      return 0
    }
    const { FLEET_EXAMPLE, GATEWAY_EXAMPLE } = await import('../../config/example.js')
    process.stdout.write(parsed.fleet ? FLEET_EXAMPLE : GATEWAY_EXAMPLE)
    return 0
  },
})
