/**
 * Reading and checking option values: numbers, filters, upload settings. Every refusal is an
 * InvalidOptionError whose message names the option, says what it takes and points at the help.
 */

import { InvalidOptionError } from '../errors.js'
import { beaconIdOf } from '../frames/ibeacon.js'
import { POSITIONING_METHODS, type PositioningMethod } from '../positioning/types.js'
import { GATEWAY_ID } from '../mqtt/topics.js'
import { readBeaconNames } from '../positioning/beacon-names.js'
import { clientIdProblem } from '../mqtt/publisher-options.js'
import type {
  FilterFlags,
  HttpFlags,
  LogFlags,
  MetricsFlags,
  MqttFlags,
  UploadFlags,
  ViewFlags,
} from './command-line.js'
import { LOG_FORMATS, LOG_LEVELS } from '../log/logger.js'
import type { LogFormat, LogThreshold } from '../log/logger.js'

/** Option values as parseArgs returns them. */
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>

/** Throws the InvalidOptionError for `option`, pointing at the command's help. */
export function fail(option: string, message: string, command?: string): never {
  const hint = command === undefined ? 'beaconkit --help' : `beaconkit ${command} --help`
  throw new InvalidOptionError('invalid_option', `${message} (see \`${hint}\`)`, { option })
}

/** Positional arguments may be secrets typed in the wrong place: echo only short ones. */
export function quote(text: string): string {
  return text.length <= 24 ? `'${text}'` : `(${text.length} characters)`
}

/** A string option, or undefined when not given. */
export function str(values: Values, name: string): string | undefined {
  const v = values[name]
  return typeof v === 'string' ? v : undefined
}

/** A repeatable string option (empty when not given). */
function strs(values: Values, name: string): string[] {
  const v = values[name]
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
}

/** A boolean flag. */
export function bool(values: Values, name: string): boolean {
  return values[name] === true
}

/** A number option checked against `check`; undefined when not given. */
export function number(
  values: Values,
  name: string,
  command: string,
  check: { min?: number; max?: number; integer?: boolean; positive?: boolean; what: string },
): number | undefined {
  const text = str(values, name)
  if (text === undefined) return undefined
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text.trim()) ? Number(text) : NaN
  const ok =
    Number.isFinite(n) &&
    (check.integer !== true || Number.isInteger(n)) &&
    (check.min === undefined || n >= check.min) &&
    (check.max === undefined || n <= check.max) &&
    (check.positive !== true || n > 0)
  if (!ok) fail(name, `--${name} must be ${check.what}, not ${quote(text)}`, command)
  return n
}

const SERIAL = /^[0-9a-f]{12}$/i
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

/** Canonical upper-case 8-4-4-4-12, the form readings carry. */
function canonicalUuid(text: string): string {
  const hex = text.replace(/-/g, '').toUpperCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function parseFilter(values: Values, command: string): FilterFlags {
  const filter: FilterFlags = {}
  const serials = strs(values, 'serial')
  for (const s of serials) {
    if (!SERIAL.test(s))
      fail('serial', `--serial takes a 12-digit hex serial number such as 0117C5456A36, not ${quote(s)}`, command)
  }
  if (serials.length > 0) filter.serialNumbers = serials.map((s) => s.toUpperCase())
  const uuids = strs(values, 'uuid')
  for (const u of uuids) {
    if (!UUID.test(u))
      fail(
        'uuid',
        `--uuid takes a proximity UUID such as E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, not ${quote(u)}`,
        command,
      )
  }
  if (uuids.length > 0) filter.proximityUUIDs = uuids.map(canonicalUuid)
  const ids = strs(values, 'beacon-id')
  const beaconIDs: string[] = []
  for (const id of ids) {
    const parts = id.split('|')
    const valid =
      parts.length === 3 &&
      UUID.test(parts[0]) &&
      parts.slice(1).every((p) => /^\d{1,5}$/.test(p) && Number(p) <= 65535)
    if (!valid)
      fail(
        'beacon-id',
        `--beacon-id takes UUID|major|minor, e.g. 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2' (quote the |), not ${quote(id)}`,
        command,
      )
    beaconIDs.push(beaconIdOf(canonicalUuid(parts[0]), Number(parts[1]), Number(parts[2])))
  }
  if (beaconIDs.length > 0) filter.beaconIDs = beaconIDs
  const minRssi = number(values, 'min-rssi', command, {
    integer: true,
    min: -127,
    max: 20,
    what: 'a whole number of dBm between -127 and 20',
  })
  if (minRssi !== undefined) filter.minRssi = minRssi
  if (bool(values, 'verified-only')) filter.verifiedOnly = true
  return filter
}

function parseUpload(values: Values, command: string): UploadFlags | undefined {
  const cloudUrl = str(values, 'cloud-url')
  const email = str(values, 'email')
  const passwordFile = str(values, 'password-file')
  // Only a config file or the environment sets the password itself; a file given wins.
  const password = passwordFile === undefined ? str(values, 'password') : undefined
  const queueDir = str(values, 'queue-dir')
  if (!bool(values, 'upload')) {
    const stray = (['cloud-url', 'email', 'password-file', 'password', 'queue-dir'] as const).find(
      (n) => str(values, n) !== undefined,
    )
    if (stray !== undefined)
      fail(stray, `--${stray} only takes effect with --upload; add --upload to send data to the cloud`, command)
    return undefined
  }
  if (cloudUrl === undefined)
    fail(
      'cloud-url',
      '--upload needs --cloud-url <url> (the account interface, e.g. from `beaconkit emulate`)',
      command,
    )
  let url: URL
  try {
    url = new URL(cloudUrl)
  } catch {
    fail('cloud-url', `--cloud-url must be an http(s) URL, not ${quote(cloudUrl)}`, command)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    fail('cloud-url', `--cloud-url must be an http(s) URL, not ${quote(cloudUrl)}`, command)
  if (email === undefined) fail('email', '--upload needs --email <account e-mail>', command)
  if (passwordFile === undefined && password === undefined) {
    fail(
      'password-file',
      '--upload needs --password-file <file> holding the account password (a file, so the password stays out of the process list)',
      command,
    )
  }
  const upload: UploadFlags = { cloudUrl, email, ...(passwordFile === undefined ? { password } : { passwordFile }) }
  if (queueDir !== undefined) upload.queueDir = queueDir
  return upload
}

/** `--mqtt <url>` and its companions, checked; undefined without `--mqtt`. */
export function parseMqtt(values: Values, command: string): MqttFlags | undefined {
  const url = str(values, 'mqtt')
  const companions = [
    'gateway-id',
    'client-id',
    'mqtt-prefix',
    'mqtt-user',
    'mqtt-password-file',
    'mqtt-password',
    'mqtt-ca',
    'mqtt-cert',
    'mqtt-key',
    'mqtt-queue-dir',
    'rssi-partitions',
  ] as const
  if (url === undefined) {
    const stray =
      companions.find((n) => str(values, n) !== undefined) ??
      (bool(values, 'ha')
        ? 'ha'
        : (['ha-dwell', 'ha-expire', 'ha-beacons'] as const).find((n) => str(values, n) !== undefined))
    if (stray !== undefined)
      fail(
        stray,
        `--${stray} only takes effect with --mqtt <url>; add --mqtt mqtt://host:1883 to publish to a broker`,
        command,
      )
    return undefined
  }
  let protocol = ''
  try {
    protocol = new URL(url).protocol
  } catch {
    // refused below
  }
  if (!['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(protocol))
    fail(
      'mqtt',
      `--mqtt takes a broker URL such as mqtt://127.0.0.1:1883 or mqtts://broker:8883, not ${quote(url)}`,
      command,
    )
  if (new URL(url).password !== '')
    fail('mqtt', '--mqtt: put the broker password in a file and pass --mqtt-password-file, not in the URL', command)
  const gatewayId = str(values, 'gateway-id')
  if (gatewayId !== undefined && !GATEWAY_ID.test(gatewayId))
    fail(
      'gateway-id',
      `--gateway-id takes up to 128 letters, digits, '-' and '_' (it is a topic level), not ${quote(gatewayId)}`,
      command,
    )
  const clientId = str(values, 'client-id')
  const clientIdWrong =
    clientId === undefined ? undefined : clientId === '' ? 'must not be empty' : clientIdProblem(clientId)
  if (clientIdWrong !== undefined)
    fail(
      'client-id',
      `--client-id ${clientIdWrong}; leave it out for a unique default (beaconkit-<name>-<host>-<random>)`,
      command,
    )
  const prefix = str(values, 'mqtt-prefix')
  if (prefix !== undefined && (prefix === '' || /[#+]/.test(prefix) || prefix.split('/').includes('')))
    fail(
      'mqtt-prefix',
      `--mqtt-prefix takes topic levels without wildcards, e.g. beaconkit or site/beaconkit, not ${quote(prefix)}`,
      command,
    )
  const username = str(values, 'mqtt-user')
  const passwordFile = str(values, 'mqtt-password-file')
  if (passwordFile !== undefined && username === undefined)
    fail('mqtt-password-file', '--mqtt-password-file needs --mqtt-user <name>', command)
  // Only a config file or the environment sets the password itself (no flag: the process list).
  const password = passwordFile === undefined ? str(values, 'mqtt-password') : undefined
  if (password !== undefined && username === undefined)
    fail('mqtt-password', 'the broker password needs a user name: --mqtt-user <name>', command)
  const flags: MqttFlags = { url, homeAssistant: bool(values, 'ha') }
  if (password !== undefined) flags.password = password
  const tls = {
    ...optionalFile(values, 'mqtt-ca', 'caFile'),
    ...optionalFile(values, 'mqtt-cert', 'certFile'),
    ...optionalFile(values, 'mqtt-key', 'keyFile'),
  }
  if (Object.keys(tls).length > 0) flags.tls = tls
  parseHaGate(values, command, flags)
  if (gatewayId !== undefined) flags.gatewayId = gatewayId
  if (clientId !== undefined) flags.clientId = clientId
  if (prefix !== undefined) flags.topicPrefix = prefix
  if (username !== undefined) flags.username = username
  if (passwordFile !== undefined) flags.passwordFile = passwordFile
  const queueDir = str(values, 'mqtt-queue-dir')
  if (queueDir === '')
    fail('mqtt-queue-dir', '--mqtt-queue-dir takes a directory, e.g. /var/lib/beaconkit/mqtt-queue', command)
  // One process per queue directory, and one queue: the upload queue would lock it first.
  if (queueDir !== undefined && queueDir === str(values, 'queue-dir'))
    fail(
      'mqtt-queue-dir',
      '--mqtt-queue-dir and --queue-dir must be different directories (each holds its own queue)',
      command,
    )
  if (queueDir !== undefined) flags.queueDir = queueDir
  const partitions = number(values, 'rssi-partitions', command, {
    integer: true,
    min: 1,
    max: 1024,
    what: "a whole number from 1 to 1024 (the fleet trackers' partition count)",
  })
  if (partitions !== undefined) flags.rssiPartitions = partitions
  return flags
}

/** `{ [key]: path }` when the option names a file, `{}` when it is absent. */
function optionalFile<K extends string>(values: Values, option: string, key: K): { [Q in K]?: string } {
  const path = str(values, option)
  return (path === undefined ? {} : { [key]: path }) as { [Q in K]?: string }
}

/** `--ha-beacons auto|on|off` as `homeAssistant.beacons`. */
const HA_BEACONS: Readonly<Record<string, 'auto' | boolean>> = { auto: 'auto', on: true, off: false }

/** `--ha-dwell <s>`, `--ha-expire <s>` and `--ha-beacons auto|on|off`, only with `--ha` (into `flags`). */
function parseHaGate(values: Values, command: string, flags: MqttFlags): void {
  const dwell = number(values, 'ha-dwell', command, {
    min: 0,
    max: 86_400,
    what: 'a number of seconds from 0 to 86400 (default 30)',
  })
  const expire = number(values, 'ha-expire', command, {
    positive: true,
    max: 366 * 86_400,
    what: 'a positive number of seconds, at most a year (default 604800, 7 days)',
  })
  const beacons = str(values, 'ha-beacons')
  if (beacons !== undefined && !Object.hasOwn(HA_BEACONS, beacons))
    fail(
      'ha-beacons',
      `--ha-beacons takes auto, on or off (default auto: per-beacon entities until a fleet tracker is seen), not ${quote(beacons)}`,
      command,
    )
  const stray =
    dwell !== undefined
      ? 'ha-dwell'
      : expire !== undefined
        ? 'ha-expire'
        : beacons !== undefined
          ? 'ha-beacons'
          : undefined
  if (stray !== undefined && !flags.homeAssistant) fail(stray, `--${stray} only takes effect with --ha`, command)
  if (dwell !== undefined) flags.haDwellMs = Math.round(dwell * 1000)
  if (expire !== undefined) flags.haExpireMs = Math.max(1, Math.round(expire * 1000))
  if (beacons !== undefined) flags.haBeacons = HA_BEACONS[beacons]
}

/**
 * `--http [host:]port` (host default 127.0.0.1; `[::1]:8080` for IPv6) and `--http-token`.
 * The token is a secret typed on the command line: it is checked for shape, never echoed.
 */
export function parseHttp(values: Values, command: string): HttpFlags | undefined {
  return listenFlags(values, command, 'http', 'http-token')
}

/**
 * `--metrics [host:]port` and `--metrics-token`: Prometheus `/metrics` and `/healthz` on a server
 * of their own, with the same syntax and token rule as `--http`; the token is never echoed.
 */
export function parseMetrics(values: Values, command: string): MetricsFlags | undefined {
  return listenFlags(values, command, 'metrics', 'metrics-token')
}

/** `--<name> [host:]port` and `--<name>-token <token>` (checked for shape). */
function listenFlags(values: Values, command: string, name: string, tokenName: string): HttpFlags | undefined {
  const text = str(values, name)
  const token = str(values, tokenName)
  if (text === undefined) {
    if (token !== undefined) fail(tokenName, `--${tokenName} only takes effect with --${name} [host:]port`, command)
    return undefined
  }
  const m = /^(?:\[([^\]]+)\]:|([^:[\]]+):)?(\d{1,5})$/.exec(text.trim())
  const port = m === null ? NaN : Number(m[3])
  if (m === null || port > 65535)
    fail(name, `--${name} takes [host:]port such as 8080, 127.0.0.1:8080 or 0.0.0.0:8080, not ${quote(text)}`, command)
  const flags: HttpFlags = { host: m[1] ?? m[2] ?? '127.0.0.1', port }
  if (token !== undefined) {
    if (!/^[A-Za-z0-9._~-]{16,256}$/.test(token))
      fail(
        tokenName,
        `--${tokenName} takes 16 to 256 characters of A-Z a-z 0-9 . _ ~ - (leave it out to have one generated)`,
        command,
      )
    flags.token = token
  }
  return flags
}

/** The options of the commands that show beacons: output, keys, filters, upload. */
export function parseView(values: Values, command: string): ViewFlags {
  const view: ViewFlags = {
    json: bool(values, 'json'),
    keys: strs(values, 'key'),
    filter: parseFilter(values, command),
  }
  const keysFile = str(values, 'keys-file')
  if (keysFile !== undefined) view.keysFile = keysFile
  const upload = parseUpload(values, command)
  if (upload !== undefined) view.upload = upload
  const mqtt = parseMqtt(values, command)
  // Names come only from a config file's `beacons:` (as JSON text the configuration layer wrote); they name Home Assistant's devices.
  const names = str(values, 'beacon-names-json')
  if (mqtt !== undefined && names !== undefined) mqtt.beaconNames = readBeaconNames(JSON.parse(names) as unknown)
  if (mqtt !== undefined) view.mqtt = mqtt
  const http = parseHttp(values, command)
  if (http !== undefined) view.http = http
  const metrics = parseMetrics(values, command)
  if (metrics !== undefined) view.metrics = metrics
  const log = parseLog(values, command)
  if (log !== undefined) view.log = log
  return view
}

/** A TCP port option (`--port`, `--embedded-broker`): a whole number 0–65535 (0: a free one), or undefined when not given. */
export function tcpPort(values: Values, name: string, command: string): number | undefined {
  return number(values, name, command, { integer: true, min: 0, max: 65535, what: 'a TCP port between 0 and 65535' })
}

/** Exactly `count` positional arguments, or a usage error. */
export function positionals(list: string[], count: number, usage: string, command: string): string[] {
  if (list.length < count) fail('argument', `missing argument: ${usage}`, command)
  if (list.length > count) fail('argument', `unexpected argument ${quote(list[count])}: ${usage}`, command)
  return list
}

/** Repeatable `--hci <n>`: the adapter numbers, in the order given, each once. */
export function hciList(values: Values, command: string): number[] {
  const list: number[] = []
  for (const text of strs(values, 'hci')) {
    const n = hci({ hci: text }, command) as number
    if (list.includes(n)) fail('hci', `--hci ${n} is given twice: name each adapter once`, command)
    list.push(n)
  }
  return list
}

/** `--hci <n>`: the adapter number. */
export function hci(values: Values, command: string): number | undefined {
  return number(values, 'hci', command, {
    integer: true,
    min: 0,
    max: 255,
    what: 'an adapter number such as 0 (hci0) or 1 (hci1)',
  })
}

/** `--duration <seconds>`, in milliseconds. */
export function durationMs(values: Values, command: string): number | undefined {
  const s = number(values, 'duration', command, { positive: true, what: 'a positive number of seconds' })
  return s === undefined ? undefined : s * 1000
}

/** `--seed <n>`, default 1. */
export function seed(values: Values, command: string): number {
  return (
    number(values, 'seed', command, {
      integer: true,
      min: 0,
      max: 2 ** 32 - 1,
      what: 'a whole number between 0 and 4294967295',
    }) ?? 1
  )
}

/** `--speed <factor>`, default 1; refused together with `--virtual`. */
export function speed(values: Values, command: string): number {
  const s =
    number(values, 'speed', command, { positive: true, max: 1e6, what: 'a positive factor such as 1, 10 or 0.5' }) ?? 1
  if (s !== 1 && bool(values, 'virtual'))
    fail('speed', '--speed and --virtual exclude each other: --virtual already runs as fast as possible', command)
  return s
}

/** `--method <name>`: a positioning method, default the grid filter. */
export function positioningMethod(values: Values, command: string): PositioningMethod {
  const text = str(values, 'method') ?? 'filter'
  const method = POSITIONING_METHODS.find((m) => m === text)
  if (method === undefined)
    fail('method', `--method takes one of ${POSITIONING_METHODS.join(', ')}, not ${quote(text)}`, command)
  return method
}

const THRESHOLDS: readonly string[] = [...LOG_LEVELS, 'silent']

/** `--log-level` and `--log-format`; undefined when neither is given (the defaults: info, auto). */
export function parseLog(values: Values, command: string): LogFlags | undefined {
  const level = str(values, 'log-level')
  const format = str(values, 'log-format')
  if (level !== undefined && !THRESHOLDS.includes(level))
    fail('log-level', `--log-level takes ${THRESHOLDS.join(', ')}, not ${quote(level)}`, command)
  if (format !== undefined && !(LOG_FORMATS as readonly string[]).includes(format))
    fail('log-format', `--log-format takes ${LOG_FORMATS.join(', ')}, not ${quote(format)}`, command)
  if (level === undefined && format === undefined) return undefined
  return {
    ...(level === undefined ? {} : { level: level as LogThreshold }),
    ...(format === undefined ? {} : { format: format as LogFormat }),
  }
}
