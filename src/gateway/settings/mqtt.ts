/**
 * The model's `mqtt` section (and `gateway.id`, `beacons`) as the settings of a run's broker
 * clients: every default and every cross-setting check in one place, each problem named by its
 * path in the model.
 */

import { hostname } from 'node:os'
import type { BeaconkitConfig } from '../../config/load-config.js'
import { clientIdProblem } from '../../mqtt/publisher-options.js'
import { GATEWAY_ID } from '../../mqtt/topics.js'
import type { BeaconName } from '../../positioning/beacon-names.js'
import { optionOf } from '../../config/fields.js'
import { quoted } from './problems.js'
import type { SettingProblems } from './problems.js'

/** How a run publishes to and reads from its broker, every default decided. */
export interface MqttSettings {
  url: string
  /** This gateway in topics (default: this machine's host name, cut to what a gateway id allows). */
  gatewayId: string
  /** The room the gateway is in (`gateway.room`): Home Assistant files its device in that area. */
  gatewayRoom?: string
  /** The MQTT client id as given; default a unique one per process. */
  clientId?: string
  topicPrefix?: string
  homeAssistant: boolean
  /** Announce a beacon heard over this span, in ms (default: the gate's, 30 s). */
  haDwellMs?: number
  /** Remove the configs of a beacon gone this long, in ms (default: the gate's, 7 days). */
  haExpireMs?: number
  /** A gateway's per-beacon entities (default auto: until a fleet tracker is seen). */
  haBeacons?: 'auto' | boolean
  username?: string
  /** File whose first line is the broker password (wins over `password`). */
  passwordFile?: string
  /** The broker password itself, from the environment or a private config file; a secret. */
  password?: string
  /** PEM files for `mqtts://`. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string }
  /** The model's `beacons:` names: Home Assistant devices are called by them, and only listed beacons announced. */
  beaconNames?: readonly BeaconName[]
  /** The RSSI batch split for scale-out fleet trackers. */
  rssiPartitions?: number
  /** Keep outgoing events on disk here until the broker has them. */
  queueDir?: string
}

/** How every broker client of a run (publisher, tracker, the map's details) reaches the broker. */
export interface BrokerSettings {
  topicPrefix?: string
  username?: string
  passwordFile?: string
  password?: string
  tls?: { caFile?: string; certFile?: string; keyFile?: string }
}

/** The broker settings of a run's MQTT settings, with absent ones left out. */
export function brokerSettings(settings: Omit<MqttSettings, 'gatewayId'>): BrokerSettings {
  return {
    ...(settings.topicPrefix === undefined ? {} : { topicPrefix: settings.topicPrefix }),
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.passwordFile === undefined ? {} : { passwordFile: settings.passwordFile }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...(settings.tls === undefined ? {} : { tls: settings.tls }),
  }
}

/** This machine's name as a gateway id (`[A-Za-z0-9_-]`, at most 64 characters). */
export function defaultGatewayId(): string {
  const id = hostname()
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .slice(0, 64)
  return id === '' || /^-+$/.test(id) ? 'gateway' : id
}

/** `homeAssistant.beacons` as the gate takes it. */
const HA_BEACONS: Readonly<Record<string, 'auto' | boolean>> = { auto: 'auto', on: true, off: false }

/** Settings that mean nothing without `mqtt.url`. */
const NEEDS_URL = [
  'gateway.id',
  'mqtt.clientId',
  'mqtt.prefix',
  'mqtt.username',
  'mqtt.passwordFile',
  'mqtt.password',
  'mqtt.tls.caFile',
  'mqtt.tls.certFile',
  'mqtt.tls.keyFile',
  'mqtt.queueDir',
  'mqtt.rssiPartitions',
  'mqtt.homeAssistant.enabled',
  'mqtt.homeAssistant.dwell',
  'mqtt.homeAssistant.expire',
  'mqtt.homeAssistant.beacons',
] as const

/** The value at a dot path of the model. */
function at(model: object, path: string): unknown {
  let value: unknown = model
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/**
 * The run's MQTT settings, or undefined without `mqtt.url`. `mqtt.homeAssistant.enabled: false`
 * counts as not set (a file may say so).
 */
export function mqttSettings(model: BeaconkitConfig, problems: SettingProblems): MqttSettings | undefined {
  const m = model.mqtt ?? {}
  const ha = m.homeAssistant ?? {}
  const url = m.url
  if (url === undefined) {
    for (const path of NEEDS_URL) {
      const value = at(model, path)
      if (value !== undefined && value !== false)
        problems.add(
          path,
          `--${optionOf(path) ?? path} only takes effect with --mqtt <url>; add --mqtt mqtt://host:1883 to publish ` +
            'to a broker',
        )
    }
    return undefined
  }
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    // refused below
  }
  if (parsed === undefined || !['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(parsed.protocol))
    problems.add(
      'mqtt.url',
      `--mqtt takes a broker URL such as mqtt://127.0.0.1:1883 or mqtts://broker:8883, not ${quoted(url)}`,
    )
  else if (parsed.password !== '')
    problems.add('mqtt.url', '--mqtt: put the broker password in a file and pass --mqtt-password-file, not in the URL')
  const gatewayId = model.gateway?.id
  if (gatewayId !== undefined && !GATEWAY_ID.test(gatewayId))
    problems.add(
      'gateway.id',
      `--gateway-id takes up to 128 letters, digits, '-' and '_' (it is a topic level), not ${quoted(gatewayId)}`,
    )
  const clientIdWrong =
    m.clientId === undefined ? undefined : m.clientId === '' ? 'must not be empty' : clientIdProblem(m.clientId)
  if (clientIdWrong !== undefined)
    problems.add(
      'mqtt.clientId',
      `--client-id ${clientIdWrong}; leave it out for a unique default (beaconkit-<name>-<host>-<random>)`,
    )
  const prefix = m.prefix
  if (prefix !== undefined && (prefix === '' || /[#+]/.test(prefix) || prefix.split('/').includes('')))
    problems.add(
      'mqtt.prefix',
      `--mqtt-prefix takes topic levels without wildcards, e.g. beaconkit or site/beaconkit, not ${quoted(prefix)}`,
    )
  // A password file wins over the password itself.
  const password = m.passwordFile === undefined ? m.password : undefined
  if (m.passwordFile !== undefined && m.username === undefined)
    problems.add('mqtt.passwordFile', '--mqtt-password-file needs --mqtt-user <name>')
  if (password !== undefined && m.username === undefined)
    problems.add('mqtt.password', 'the broker password needs a user name: --mqtt-user <name>')
  if (m.queueDir === '')
    problems.add('mqtt.queueDir', '--mqtt-queue-dir takes a directory, e.g. /var/lib/beaconkit/mqtt-queue')
  // One process per queue directory, and one queue: the upload queue would lock it first.
  if (m.queueDir !== undefined && m.queueDir === model.upload?.queueDir)
    problems.add(
      'mqtt.queueDir',
      '--mqtt-queue-dir and --queue-dir must be different directories (each holds its own queue)',
    )
  const partitions = m.rssiPartitions
  if (partitions !== undefined && !(Number.isInteger(partitions) && partitions >= 1 && partitions <= 1024))
    problems.add(
      'mqtt.rssiPartitions',
      "--rssi-partitions must be a whole number from 1 to 1024 (the fleet trackers' partition count)",
    )
  const enabled = ha.enabled === true
  if (ha.dwell !== undefined && !(ha.dwell >= 0 && ha.dwell <= 86_400))
    problems.add('mqtt.homeAssistant.dwell', '--ha-dwell must be a number of seconds from 0 to 86400 (default 30)')
  if (ha.expire !== undefined && !(ha.expire > 0 && ha.expire <= 366 * 86_400))
    problems.add(
      'mqtt.homeAssistant.expire',
      '--ha-expire must be a positive number of seconds, at most a year (default 604800, 7 days)',
    )
  if (ha.beacons !== undefined && !Object.hasOwn(HA_BEACONS, ha.beacons))
    problems.add(
      'mqtt.homeAssistant.beacons',
      '--ha-beacons takes auto, on or off (default auto: per-beacon entities until a fleet tracker is seen)',
    )
  if (!enabled)
    for (const key of ['dwell', 'expire', 'beacons'] as const)
      if (ha[key] !== undefined) problems.add(`mqtt.homeAssistant.${key}`, `--ha-${key} only takes effect with --ha`)
  const tls = {
    ...(m.tls?.caFile === undefined ? {} : { caFile: m.tls.caFile }),
    ...(m.tls?.certFile === undefined ? {} : { certFile: m.tls.certFile }),
    ...(m.tls?.keyFile === undefined ? {} : { keyFile: m.tls.keyFile }),
  }
  return {
    url,
    gatewayId: gatewayId ?? defaultGatewayId(),
    ...(model.gateway?.room === undefined ? {} : { gatewayRoom: model.gateway.room }),
    homeAssistant: enabled,
    ...(password === undefined ? {} : { password }),
    ...(Object.keys(tls).length === 0 ? {} : { tls }),
    ...(ha.dwell === undefined ? {} : { haDwellMs: Math.round(ha.dwell * 1000) }),
    ...(ha.expire === undefined ? {} : { haExpireMs: Math.max(1, Math.round(ha.expire * 1000)) }),
    ...(ha.beacons === undefined ? {} : { haBeacons: HA_BEACONS[ha.beacons] }),
    ...(m.clientId === undefined ? {} : { clientId: m.clientId }),
    ...(prefix === undefined ? {} : { topicPrefix: prefix }),
    ...(m.username === undefined ? {} : { username: m.username }),
    ...(m.passwordFile === undefined ? {} : { passwordFile: m.passwordFile }),
    ...(m.queueDir === undefined ? {} : { queueDir: m.queueDir }),
    ...(partitions === undefined ? {} : { rssiPartitions: partitions }),
    ...(model.beacons === undefined || model.beacons.length === 0 ? {} : { beaconNames: model.beacons }),
  }
}
