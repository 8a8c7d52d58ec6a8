/**
 * `--mqtt <url>` and its companions (credentials, TLS files, the topic prefix, Home Assistant and
 * its gate) read and checked; every refusal names the option and points at the help.
 */

import { GATEWAY_ID } from '../mqtt/topics.js'
import { clientIdProblem } from '../mqtt/publisher-options.js'
import { bool, fail, number, quote, str } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { MqttFlags } from './command-line.js'

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
      `--ha-beacons takes auto, on or off (default auto: per-beacon entities until a fleet tracker ` +
        `is seen), not ${quote(beacons)}`,
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
