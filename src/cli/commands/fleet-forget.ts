/**
 * `beaconkit fleet forget <id>`: empties a beacon's retained fleet topics and Home Assistant
 * configs itself (no tracker needs to run) and tells running trackers to forget it too
 * (`<p>/fleet/forget`), so that their gates announce it again only if it is heard again.
 */
import { MqttError } from '../../errors.js'
import { fleetBeaconTopics, forgetCommandPayload, forgetCommandTopic } from '../../fleet/forget-command.js'
import type { MqttLink } from '../../mqtt/connection.js'
import { checkTopicPrefix, DEFAULT_HA_PREFIX, DEFAULT_TOPIC_PREFIX } from '../../mqtt/topics.js'
import type { MqttFlags } from '../command-line.js'
import { EXIT } from '../exit.js'
import { isTopicLevel, MAX_TOPIC_LEVEL } from '../../util/topic-level.js'
import { fail, positionals, quote, str } from '../arg-values.js'
import { parseMqtt } from '../mqtt-args.js'
import type { Values } from '../arg-values.js'
import { optional } from './command.js'
import { connectedWithin, openCommandLink, within } from './command-link.js'

/** What `beaconkit fleet forget` was given. */
export interface FleetForgetFlags {
  id: string
  mqtt: MqttFlags
  /** `--ha-prefix`: Home Assistant's discovery prefix (default homeassistant). */
  haPrefix?: string
}

/** How long the command waits for the broker, then for its acknowledgements. */
export const FORGET_WAIT_MS = 10_000

function publish(link: MqttLink, topic: string, payload: string, retain: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const client = link.client
    if (client === undefined) {
      reject(
        new MqttError(
          'connection',
          'the broker connection was lost before everything was acknowledged; run the command again',
        ),
      )
      return
    }
    client.publish(topic, payload, { qos: 1, retain }, (error) =>
      error === undefined || error === null ? resolve() : reject(error),
    )
  })
}

/** Runs the command; returns the exit code (throws a typed error for what the user must fix). */
export async function runFleetForget(
  flags: FleetForgetFlags,
  streams: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } } = process,
): Promise<number> {
  const m = flags.mqtt
  const prefix = checkTopicPrefix(m.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
  const ha = checkTopicPrefix(flags.haPrefix ?? DEFAULT_HA_PREFIX, 'homeAssistant.prefix')
  const { link, close } = await openCommandLink(m, 'forget', streams.stderr)
  try {
    await connectedWithin(
      link,
      FORGET_WAIT_MS,
      `fleet forget: no connection to ${m.url} within ${FORGET_WAIT_MS / 1000} s; nothing was cleared`,
    )
    const topics = fleetBeaconTopics(prefix, ha, flags.id)
    // The empties first: a tracker told to forget must find nothing left to re-read.
    await within(
      FORGET_WAIT_MS,
      `fleet forget: ${m.url} did not acknowledge within ${FORGET_WAIT_MS / 1000} s; run the command again`,
      Promise.all([
        ...topics.map((t) => publish(link, t, '', true)),
        publish(link, forgetCommandTopic(prefix), forgetCommandPayload(flags.id), false),
      ]),
    )
    streams.stdout.write(
      `beaconkit fleet forget: ${flags.id}: cleared its fleet state, presence and ` +
        `${topics.length - 2} Home Assistant configs on ${m.url}, and told running trackers to forget it\n`,
    )
    return EXIT.ok
  } finally {
    await close()
  }
}

/** What `beaconkit fleet forget <id>` parses to. */
export type FleetForgetCommand = { command: 'fleet-forget' } & FleetForgetFlags

/** `beaconkit fleet forget <id> --mqtt <url> [--mqtt-prefix p] [--ha-prefix h] [--client-id id]`. */
export function parseFleetForget(values: Values, pos: string[]): FleetForgetCommand {
  const command = 'fleet'
  const usage = 'beaconkit fleet forget <id> --mqtt <url> [--mqtt-prefix <p>] [--ha-prefix <h>] [--client-id <id>]'
  const [id] = positionals(pos, 1, usage, command)
  if (!isTopicLevel(id))
    fail(
      'id',
      `fleet forget takes a beacon id as the fleet publishes it (no "/", "+", "#" or control ` +
        `characters, at most ${MAX_TOPIC_LEVEL} characters), not ${quote(id)}`,
      command,
    )
  const stray = [
    'json',
    'ha',
    'ha-dwell',
    'ha-expire',
    'embedded-broker',
    'site',
    'survey',
    'occupancy',
    'duration',
    'http',
    'http-token',
    'record',
    'force',
  ].find((n) => values[n] !== undefined)
  if (stray !== undefined) fail(stray, `--${stray} does not go with fleet forget: ${usage}`, command)
  const mqtt = parseMqtt(values, command)
  if (mqtt === undefined) fail('mqtt', `fleet forget needs the broker the fleet publishes to: ${usage}`, command)
  const haPrefix = str(values, 'ha-prefix')
  if (haPrefix !== undefined && (haPrefix === '' || /[#+]/.test(haPrefix) || haPrefix.split('/').includes('')))
    fail(
      'ha-prefix',
      `--ha-prefix takes topic levels without wildcards, e.g. homeassistant, not ${quote(haPrefix)}`,
      command,
    )
  return { command: 'fleet-forget', id, mqtt, ...optional('haPrefix', haPrefix) }
}
