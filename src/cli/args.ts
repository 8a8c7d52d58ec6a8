/**
 * Command-line parsing: argv in, a typed command out, or an InvalidOptionError whose
 * message says what to type instead. No I/O here (files and keys are read by the commands).
 */

import { parseArgs } from 'node:util'
import type { ParseArgsConfig } from 'node:util'
import { bool, durationMs, fail, hci, hciList, number, parseHttp, parseMqtt, parseView, positioningMethod, positionals, quote, seed, speed, str } from './arg-values.js'
import { backend } from './commands/backend.js'
import type { Values } from './arg-values.js'
import { demoRecordingPath } from './demo-recording.js'
import { COMMANDS } from './command-line.js'
import { isTopicLevel, MAX_TOPIC_LEVEL } from '../util/topic-level.js'
import type { CommandName, ParsedCommand } from './command-line.js'

// Kept for the modules that took these types from here before they moved.
export type { CommandName, FilterFlags, MqttFlags, ParsedCommand, UploadFlags, ViewFlags } from './command-line.js'

type Options = NonNullable<ParseArgsConfig['options']>

const HELP: Options = { help: { type: 'boolean', short: 'h' } }

const VIEW: Options = {
  json: { type: 'boolean' },
  key: { type: 'string', multiple: true },
  'keys-file': { type: 'string' },
  serial: { type: 'string', multiple: true },
  uuid: { type: 'string', multiple: true },
  'beacon-id': { type: 'string', multiple: true },
  'min-rssi': { type: 'string' },
  'verified-only': { type: 'boolean' },
  upload: { type: 'boolean' },
  'cloud-url': { type: 'string' },
  email: { type: 'string' },
  'password-file': { type: 'string' },
  'queue-dir': { type: 'string' },
  mqtt: { type: 'string' },
  'gateway-id': { type: 'string' },
  'mqtt-prefix': { type: 'string' },
  ha: { type: 'boolean' },
  'ha-dwell': { type: 'string' },
  'ha-expire': { type: 'string' },
  'ha-beacons': { type: 'string' },
  'mqtt-user': { type: 'string' },
  'mqtt-password-file': { type: 'string' },
  'client-id': { type: 'string' },
  http: { type: 'string' },
  'http-token': { type: 'string' },
  'mqtt-queue-dir': { type: 'string' },
  'rssi-partitions': { type: 'string' },
}

const OPTIONS: Record<CommandName, Options> = {
  scan: { ...HELP, ...VIEW, hci: { type: 'string', multiple: true }, 'fallback-replay': { type: 'string' }, backend: { type: 'string' } },
  replay: { ...HELP, ...VIEW, speed: { type: 'string' }, virtual: { type: 'boolean' }, demo: { type: 'boolean' } },
  simulate: {
    ...HELP,
    ...VIEW,
    seed: { type: 'string' },
    beacons: { type: 'string' },
    duration: { type: 'string' },
    virtual: { type: 'boolean' },
    site: { type: 'string' },
  },
  record: {
    ...HELP,
    hci: { type: 'string' },
    json: { type: 'boolean' },
    duration: { type: 'string' },
    simulate: { type: 'boolean' },
    seed: { type: 'string' },
    force: { type: 'boolean' },
  },
  emulate: {
    ...HELP,
    port: { type: 'string' },
    host: { type: 'string' },
    json: { type: 'boolean' },
    email: { type: 'string' },
    'password-file': { type: 'string' },
    'webhook-url': { type: 'string' },
  },
  broker: { ...HELP, port: { type: 'string' }, host: { type: 'string' } },
  webhook: {
    ...HELP,
    port: { type: 'string' },
    host: { type: 'string' },
    json: { type: 'boolean' },
    mqtt: { type: 'string' },
    'mqtt-prefix': { type: 'string' },
    'mqtt-user': { type: 'string' },
    'mqtt-password-file': { type: 'string' },
    'handler-timeout': { type: 'string' },
  },
  keys: { ...HELP, json: { type: 'boolean' }, 'keys-file': { type: 'string' }, now: { type: 'string' } },
  site: { ...HELP },
  locate: { ...HELP, site: { type: 'string' }, survey: { type: 'string' }, occupancy: { type: 'string' }, method: { type: 'string' }, every: { type: 'string' }, 'tag-height': { type: 'string' }, gateway: { type: 'string' } },
  survey: { ...HELP, mqtt: { type: 'string' }, 'mqtt-prefix': { type: 'string' }, 'mqtt-user': { type: 'string' }, 'mqtt-password-file': { type: 'string' }, beacon: { type: 'string' }, points: { type: 'string' }, seconds: { type: 'string' }, site: { type: 'string' } },
  fleet: {
    ...HELP,
    json: { type: 'boolean' },
    mqtt: { type: 'string' },
    'mqtt-prefix': { type: 'string' },
    ha: { type: 'boolean' },
    'ha-dwell': { type: 'string' },
    'ha-expire': { type: 'string' },
    // `fleet forget` only: the discovery prefix whose configs it empties.
    'ha-prefix': { type: 'string' },
    'mqtt-user': { type: 'string' },
    'mqtt-password-file': { type: 'string' },
    'client-id': { type: 'string' },
    // `--embedded-broker [port]`: a bare flag is given the default port before parsing (embeddedBrokerArg).
    'embedded-broker': { type: 'string' },
    site: { type: 'string' },
    survey: { type: 'string' },
    duration: { type: 'string' },
    http: { type: 'string' },
    'http-token': { type: 'string' },
    record: { type: 'string' },
    force: { type: 'boolean' },
  },
}

/** `--embedded-broker` takes an optional port: alone (or before another option) it means 1883. */
function embeddedBrokerArg(argv: string[]): string[] {
  return argv.map((arg, i) => (arg === '--embedded-broker' && !/^\d+$/.test(argv[i + 1] ?? '') ? '--embedded-broker=1883' : arg))
}

function isCommand(text: string): text is CommandName {
  return (COMMANDS as readonly string[]).includes(text)
}

/**
 * `--min-rssi -80` is what people type, but parseArgs reads `-80` as an option and calls the
 * value ambiguous: glue a negative number to the option that takes a value.
 */
function joinNegativeValues(argv: string[], options: Options): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const name = arg.startsWith('--') ? arg.slice(2) : undefined
    const next = argv[i + 1]
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else {
      out.push(arg)
    }
  }
  return out
}

/** Node's own parse errors, reworded to point at the help. */
function parseWith(argv: string[], command: CommandName): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: joinNegativeValues(argv, OPTIONS[command]), options: OPTIONS[command], allowPositionals: true, strict: true })
    return { values: parsed.values as Values, positionals: parsed.positionals }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const message = error instanceof Error ? error.message : String(error)
    const unknown = /Unknown option '([^']*)'/.exec(message)
    if (unknown !== null) fail(unknown[1], `unknown option ${unknown[1]} for \`beaconkit ${command}\``, command)
    const missing = /Option '(-[^' ]*)[^']*' argument missing/.exec(message)
    if (missing !== null) fail(missing[1], `option ${missing[1]} needs a value`, command)
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      // `--virtual=yes`: a value given to a flag. The value is not echoed (it may be a secret typed in the wrong place).
      const flag = /Option '(-[^' ]*)'/.exec(message)?.[1] ?? 'this option'
      fail(flag.replace(/^-+/, ''), `${flag} is a flag and takes no value: write ${flag} alone, without =…`, command)
    }
    fail('option', message, command)
  }
}

/** Parses `process.argv.slice(2)`; throws InvalidOptionError (code 'invalid_option') on a bad command line. */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const [first, ...rest] = argv
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined
    if (topic !== undefined && !isCommand(topic)) fail('command', `no help for ${quote(topic)}: commands are ${COMMANDS.join(', ')}`)
    return topic === undefined ? { command: 'help' } : { command: 'help', topic }
  }
  if (first === '--version' || first === '-v') return { command: 'version' }
  if (first.startsWith('-')) fail('command', `put the command first: beaconkit <${COMMANDS.join('|')}> [options]`)
  if (!isCommand(first)) fail('command', `unknown command ${quote(first)}: commands are ${COMMANDS.join(', ')}`)
  const command = first
  const { values, positionals: pos } = parseWith(command === 'fleet' ? embeddedBrokerArg(rest) : rest, command)
  if (bool(values, 'help')) return { command: 'help', topic: command }

  switch (command) {
    case 'scan': {
      positionals(pos, 0, 'beaconkit scan [options]', command)
      // `--hci 0 --hci 1`: several adapters feeding one scanner.
      const [first, ...extra] = hciList(values, command)
      return {
        command,
        view: parseView(values, command),
        ...optional('hci', first),
        ...optional('extraHci', extra.length > 0 ? extra : undefined),
        ...optional('fallbackReplay', str(values, 'fallback-replay')),
        ...optional('backend', backend(values, command)),
      }
    }
    case 'replay': {
      const usage = 'beaconkit replay <file.jsonl> [options], or beaconkit replay --demo [options]'
      let file: string
      if (bool(values, 'demo')) {
        if (pos.length > 0) fail('demo', `give either a recording or --demo, not both: ${usage}`, command)
        file = demoRecordingPath()
      } else {
        file = positionals(pos, 1, usage, command)[0]
      }
      return { command, view: parseView(values, command), file, speed: speed(values, command), virtual: bool(values, 'virtual') }
    }
    case 'simulate': {
      positionals(pos, 0, 'beaconkit simulate [options]', command)
      const beacons = number(values, 'beacons', command, { integer: true, min: 1, max: 100_000, what: 'a whole number between 1 and 100000' }) ?? 12
      const duration = durationMs(values, command)
      const virtual = bool(values, 'virtual')
      const site = str(values, 'site')
      if (site !== undefined) {
        // The site names the beacons and the gateways; each gateway publishes, nothing is shown.
        const clash = ['beacons', 'virtual', 'gateway-id', 'client-id', 'upload', 'key', 'keys-file', 'serial', 'uuid', 'beacon-id', 'min-rssi', 'verified-only', 'json'].find((n) => values[n] !== undefined)
        if (clash !== undefined) fail(clash, `--${clash} does not go with --site: the site file names the beacons and gateways, and each gateway publishes to --mqtt`, command)
        if (str(values, 'mqtt') === undefined) fail('site', '--site needs --mqtt <url>: every simulated gateway publishes to that broker (try beaconkit fleet --embedded-broker in another terminal)', command)
        // The simulated gateways only publish; the map is the fleet's, which fuses what they publish.
        for (const web of ['http', 'http-token']) {
          if (values[web] !== undefined) fail(web, `--${web} does not go with --site: the simulated site has no map of its own; run beaconkit fleet --mqtt <url> --site <site.json> --http <port> to see it on the map`, command)
        }
      }
      if (virtual && duration === undefined) fail('virtual', '--virtual needs --duration <seconds>: a simulation in virtual time would never end', command)
      return {
        command,
        view: parseView(values, command),
        seed: seed(values, command),
        beacons,
        virtual,
        ...optional('durationMs', duration),
        ...optional('site', site),
      }
    }
    case 'record': {
      const [file] = positionals(pos, 1, 'beaconkit record <file.jsonl> [options]', command)
      const simulate = bool(values, 'simulate')
      const adapter = hci(values, command)
      if (simulate && adapter !== undefined) fail('hci', '--hci and --simulate exclude each other', command)
      return {
        command,
        file,
        json: bool(values, 'json'),
        simulate,
        seed: seed(values, command),
        force: bool(values, 'force'),
        ...optional('hci', adapter),
        ...optional('durationMs', durationMs(values, command)),
      }
    }
    case 'emulate': {
      positionals(pos, 0, 'beaconkit emulate [options]', command)
      const port = number(values, 'port', command, { integer: true, min: 0, max: 65535, what: 'a TCP port between 0 and 65535' }) ?? 8080
      return {
        command,
        port,
        host: str(values, 'host') ?? '127.0.0.1',
        json: bool(values, 'json'),
        ...optional('email', str(values, 'email')),
        ...optional('passwordFile', str(values, 'password-file')),
        ...optional('webhookUrl', str(values, 'webhook-url')),
      }
    }
    case 'broker': {
      positionals(pos, 0, 'beaconkit broker [options]', command)
      const port = number(values, 'port', command, { integer: true, min: 0, max: 65535, what: 'a TCP port between 0 and 65535' }) ?? 1883
      return { command, port, host: str(values, 'host') ?? '127.0.0.1' }
    }
    case 'webhook': {
      positionals(pos, 0, 'beaconkit webhook [--port 8080] [--host 127.0.0.1] [--json] [--mqtt <url>] [--handler-timeout <s>]', command)
      const port = number(values, 'port', command, { integer: true, min: 0, max: 65535, what: 'a TCP port between 0 and 65535' }) ?? 8080
      const url = str(values, 'mqtt')
      for (const companion of ['mqtt-prefix', 'mqtt-user', 'mqtt-password-file']) {
        if (url === undefined && str(values, companion) !== undefined) fail(companion, `--${companion} needs --mqtt <url>`, command)
      }
      const mqtt =
        url === undefined
          ? undefined
          : {
              url,
              ...optional('topicPrefix', str(values, 'mqtt-prefix')),
              ...optional('username', str(values, 'mqtt-user')),
              ...optional('passwordFile', str(values, 'mqtt-password-file')),
            }
      const timeout = number(values, 'handler-timeout', command, { positive: true, max: 3600, what: 'a number of seconds above 0 (at most 3600)' })
      const handlerTimeoutMs = timeout === undefined ? undefined : Math.max(1, Math.round(timeout * 1000))
      return { command, port, host: str(values, 'host') ?? '127.0.0.1', json: bool(values, 'json'), ...optional('mqtt', mqtt), ...optional('handlerTimeoutMs', handlerTimeoutMs) }
    }
    case 'fleet': {
      if (pos[0] === 'forget') return parseFleetForget(values, pos.slice(1))
      if (str(values, 'ha-prefix') !== undefined) fail('ha-prefix', '--ha-prefix goes with beaconkit fleet forget <id>; the fleet itself announces under homeassistant', command)
      positionals(pos, 0, 'beaconkit fleet --mqtt <url> [options], or beaconkit fleet --embedded-broker [port] [options]', command)
      const embedded = number(values, 'embedded-broker', command, { integer: true, min: 0, max: 65535, what: 'a TCP port between 0 and 65535' })
      const given = str(values, 'mqtt')
      if (embedded !== undefined && given !== undefined) fail('mqtt', '--mqtt and --embedded-broker exclude each other: the fleet listens to its own embedded broker, or to yours', command)
      if (embedded === undefined && given === undefined) fail('mqtt', 'beaconkit fleet needs a broker: --mqtt mqtt://host:1883, or --embedded-broker [port] to run one in this process', command)
      // With its own broker the fleet listens on it; the port is the one asked for (0: the one it gets).
      const mqtt = parseMqtt(embedded === undefined ? values : { ...values, mqtt: `mqtt://127.0.0.1:${embedded}` }, command)
      if (mqtt === undefined) fail('mqtt', 'beaconkit fleet needs --mqtt <url>', command)
      const survey = str(values, 'survey')
      const site = str(values, 'site')
      if (survey !== undefined && site === undefined) fail('survey', '--survey needs --site <site.json>: the survey is measured on the site plan', command)
      const record = str(values, 'record')
      const force = bool(values, 'force')
      if (force && record === undefined) fail('force', '--force goes with --record <file>: it lets the recording replace an existing file', command)
      return {
        command,
        mqtt,
        json: bool(values, 'json'),
        ...optional('embeddedBroker', embedded),
        ...optional('site', site),
        ...optional('survey', survey),
        ...optional('durationMs', durationMs(values, command)),
        ...optional('http', parseHttp(values, command)),
        ...optional('record', record),
        ...optional('force', force ? true : undefined),
      }
    }
    case 'keys': {
      const [sub, key, ...extra] = pos
      if (sub !== 'check') fail('argument', `usage: beaconkit keys check <key> | beaconkit keys check --keys-file <file>${sub === undefined ? '' : `; unknown keys command ${quote(sub)}`}`, command)
      const keysFile = str(values, 'keys-file')
      if (extra.length > 0) fail('argument', 'keys check takes one key; put several in a --keys-file', command)
      if (key === undefined && keysFile === undefined) fail('argument', 'missing argument: beaconkit keys check <key> (or - to read it from standard input, or --keys-file <file>)', command)
      if (key !== undefined && keysFile !== undefined) fail('keys-file', 'give either a key or --keys-file, not both', command)
      const nowText = str(values, 'now')
      let now: number | undefined
      if (nowText !== undefined) {
        now = Date.parse(nowText)
        if (!Number.isFinite(now)) fail('now', `--now takes a date such as 2015-06-01T00:00:00Z, not ${quote(nowText)}`, command)
      }
      return {
        command: 'keys-check',
        json: bool(values, 'json'),
        ...optional('key', key),
        ...optional('keysFile', keysFile),
        ...optional('now', now),
      }
    }
    case 'site': {
      const [sub, file, ...extra] = pos
      const usage = 'usage: beaconkit site check <site.json>'
      if (sub !== 'check') fail('argument', `${usage}${sub === undefined ? '' : `; unknown site command ${quote(sub)}`}`, command)
      if (file === undefined) fail('argument', `missing argument: ${usage}`, command)
      if (extra.length > 0) fail('argument', `site check takes one site file: ${usage}`, command)
      return { command: 'site-check', file }
    }
    case 'locate': {
      const [recording] = positionals(pos, 1, 'beaconkit locate --site <site.json> [options] <recording>', command)
      const site = str(values, 'site')
      if (site === undefined) fail('site', '--site is required: give the site file with the anchor positions', command)
      return {
        command,
        site,
        recording,
        method: positioningMethod(values, command),
        everyMs: number(values, 'every', command, { min: 10, max: 86_400_000, what: 'a number of milliseconds of at least 10' }) ?? 1000,
        ...optional('survey', str(values, 'survey')),
        ...optional('occupancy', str(values, 'occupancy')),
        ...optional('tagHeight', number(values, 'tag-height', command, { min: -10, max: 100, what: 'a height in metres' })),
        ...optional('gateway', str(values, 'gateway')),
      }
    }
    case 'survey': {
      const [out] = positionals(pos, 1, 'beaconkit survey --mqtt <url> --beacon <id> [--points points.csv] <samples.csv>', command)
      const mqtt = parseMqtt(values, command)
      if (mqtt === undefined) fail('mqtt', '--mqtt <url> is required: the broker the gateways publish to, e.g. mqtt://127.0.0.1:1883', command)
      const beacon = str(values, 'beacon')
      if (beacon === undefined || beacon === '') fail('beacon', '--beacon <id> is required: the carried beacon, as the gateways publish it (see beaconkit scan)', command)
      return {
        command,
        mqtt,
        beacon,
        out,
        seconds: number(values, 'seconds', command, { positive: true, max: 3600, what: 'a positive number of seconds up to 3600' }) ?? 10,
        ...optional('points', str(values, 'points')),
        ...optional('site', str(values, 'site')),
      }
    }
  }
}

/** `beaconkit fleet forget <id> --mqtt <url> [--mqtt-prefix p] [--ha-prefix h] [--client-id id]`. */
function parseFleetForget(values: Values, pos: string[]): ParsedCommand {
  const command = 'fleet'
  const usage = 'beaconkit fleet forget <id> --mqtt <url> [--mqtt-prefix <p>] [--ha-prefix <h>] [--client-id <id>]'
  const [id] = positionals(pos, 1, usage, command)
  if (!isTopicLevel(id)) fail('id', `fleet forget takes a beacon id as the fleet publishes it (no "/", "+", "#" or control characters, at most ${MAX_TOPIC_LEVEL} characters), not ${quote(id)}`, command)
  const stray = ['json', 'ha', 'ha-dwell', 'ha-expire', 'embedded-broker', 'site', 'survey', 'duration', 'http', 'http-token', 'record', 'force'].find((n) => values[n] !== undefined)
  if (stray !== undefined) fail(stray, `--${stray} does not go with fleet forget: ${usage}`, command)
  const mqtt = parseMqtt(values, command)
  if (mqtt === undefined) fail('mqtt', `fleet forget needs the broker the fleet publishes to: ${usage}`, command)
  const haPrefix = str(values, 'ha-prefix')
  if (haPrefix !== undefined && (haPrefix === '' || /[#+]/.test(haPrefix) || haPrefix.split('/').includes(''))) fail('ha-prefix', `--ha-prefix takes topic levels without wildcards, e.g. homeassistant, not ${quote(haPrefix)}`, command)
  return { command: 'fleet-forget', id, mqtt, ...optional('haPrefix', haPrefix) }
}

/** `{ name: value }` when the value is present, `{}` otherwise: keeps absent options absent. */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V }
}
