/**
 * `--mqtt <url>` and its companions (credentials, TLS files, the topic prefix, Home Assistant and
 * its gate) read into the model; the mapping (gateway/settings/mqtt.ts) decides the defaults and
 * refuses what does not go together. Every refusal names the option and points at the help.
 */

import type { BeaconkitConfig } from '../config/load-config.js'
import { mqttSettings } from '../gateway/settings/mqtt.js'
import { bool, fail, number, quote, str } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { MqttFlags } from './command-line.js'
import { decided } from './decided.js'

const HA_BEACONS = ['auto', 'on', 'off'] as const

/**
 * `--mqtt <url>` and its companions as the model's `gateway`, `mqtt` (and `upload.queueDir`, which
 * must differ from `--mqtt-queue-dir`). Without a broker (`--mqtt`, or the fleet's
 * `--embedded-broker`: `embedded`) a number's text is not read: the mapping refuses the companion
 * whatever its value.
 */
export function mqttModel(values: Values, command: string, embedded = false): BeaconkitConfig {
  const url = str(values, 'mqtt')
  const num = (name: string, check: Parameters<typeof number>[3]): number | undefined =>
    url === undefined && !embedded
      ? str(values, name) === undefined
        ? undefined
        : Number.NaN
      : number(values, name, command, check)
  const dwell = num('ha-dwell', { min: 0, max: 86_400, what: 'a number of seconds from 0 to 86400 (default 30)' })
  const expire = num('ha-expire', {
    positive: true,
    max: 366 * 86_400,
    what: 'a positive number of seconds, at most a year (default 604800, 7 days)',
  })
  const beacons = str(values, 'ha-beacons')
  if ((url !== undefined || embedded) && beacons !== undefined && !(HA_BEACONS as readonly string[]).includes(beacons))
    fail(
      'ha-beacons',
      `--ha-beacons takes auto, on or off (default auto: per-beacon entities until a fleet tracker ` +
        `is seen), not ${quote(beacons)}`,
      command,
    )
  const partitions = num('rssi-partitions', {
    integer: true,
    min: 1,
    max: 1024,
    what: "a whole number from 1 to 1024 (the fleet trackers' partition count)",
  })
  const text = (name: string): string | undefined => str(values, name)
  const gatewayId = text('gateway-id')
  const room = text('room')
  const queueDir = text('queue-dir')
  const mqtt: NonNullable<BeaconkitConfig['mqtt']> = {
    ...given('url', url),
    ...given('clientId', text('client-id')),
    ...given('prefix', text('mqtt-prefix')),
    ...given('username', text('mqtt-user')),
    ...given('passwordFile', text('mqtt-password-file')),
    // Only a config file or the environment sets the password itself (no flag: the process list).
    ...given('password', text('mqtt-password')),
    ...given('queueDir', text('mqtt-queue-dir')),
    ...given('rssiPartitions', partitions),
    homeAssistant: {
      enabled: bool(values, 'ha'),
      ...given('dwell', dwell),
      ...given('expire', expire),
      ...given('beacons', beacons as (typeof HA_BEACONS)[number] | undefined),
    },
  }
  const tls = {
    ...given('caFile', text('mqtt-ca')),
    ...given('certFile', text('mqtt-cert')),
    ...given('keyFile', text('mqtt-key')),
  }
  if (Object.keys(tls).length > 0) mqtt.tls = tls
  return {
    ...(gatewayId === undefined && room === undefined
      ? {}
      : { gateway: { ...given('id', gatewayId), ...given('room', room) } }),
    mqtt,
    ...(queueDir === undefined ? {} : { upload: { queueDir } }),
  }
}

/** `{ [key]: value }` when the value is there, `{}` otherwise. */
function given<K extends string, V>(key: K, value: V | undefined): { [Q in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [Q in K]?: V }
}

/** `--mqtt <url>` and its companions, decided; undefined without `--mqtt`. */
export function parseMqtt(values: Values, command: string): MqttFlags | undefined {
  const model = mqttModel(values, command)
  const settings = decided(command, (problems) => mqttSettings(model, problems))
  if (settings === undefined || model.gateway?.id !== undefined) return settings
  // The host name stays the composition root's default (a parsed command line holds what was given).
  const { gatewayId: _default, ...given } = settings
  return given
}
