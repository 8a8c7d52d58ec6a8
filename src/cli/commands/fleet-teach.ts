/**
 * `beaconkit fleet teach <beacon-id> <room> --mqtt <url> [--seconds 20]` (#39): asks the running
 * fleet (started with `--fingerprints <file>`) to record the beacon's RSSI pattern as a fingerprint
 * of the room over the next seconds, on `<p>/fleet/teach`, and waits for its answers on
 * `<p>/fleet/teach/<request>`: exit 0 once the fleet confirms it stored and saved the sample, 1
 * when it refuses, 75 when no fleet answers (a later try, with a fleet running, may succeed).
 */
import { randomBytes } from 'node:crypto'
import { DEFAULT_TEACH_SECONDS, MAX_TEACH_SECONDS, readTeachAnswer } from '../../fleet/teach-command.js'
import { teachAnswerTopic, teachCommandPayload, teachCommandTopic } from '../../fleet/teach-command.js'
import { checkTopicPrefix, DEFAULT_TOPIC_PREFIX } from '../../mqtt/topics.js'
import { isTopicLevel } from '../../util/topic-level.js'
import { fail, number, positionals, quote } from '../arg-values.js'
import type { Values } from '../arg-values.js'
import type { MqttFlags } from '../command-line.js'
import { EXIT } from '../exit.js'
import { parseMqtt } from '../mqtt-args.js'
import { connectedWithin, openCommandLink } from './command-link.js'

/** What `beaconkit fleet teach` parses to. */
export interface FleetTeachCommand {
  command: 'fleet-teach'
  id: string
  room: string
  seconds: number
  mqtt: MqttFlags
}

/** How long the command waits for the broker (ms). */
const CONNECT_WAIT_MS = 10_000
/** Seconds the command waits for the fleet beyond the teaching itself. */
const ANSWER_SLACK_S = 10

type Streams = { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } }

/** Runs the command; returns the exit code. */
export async function runFleetTeach(c: FleetTeachCommand, streams: Streams = process): Promise<number> {
  const m = c.mqtt
  const prefix = checkTopicPrefix(m.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
  const request = randomBytes(8).toString('hex')
  const { link, close } = await openCommandLink(m, 'teach', streams.stderr)
  let timer: NodeJS.Timeout | undefined
  try {
    await connectedWithin(link, CONNECT_WAIT_MS, `fleet teach: no connection to ${m.url} within 10 s`)
    const waitS = c.seconds + ANSWER_SLACK_S
    const outcome = new Promise<number>((resolve) => {
      timer = setTimeout(() => {
        streams.stderr.write(
          `beaconkit: no fleet answered on ${teachCommandTopic(prefix)} within ${waitS} s: is \`beaconkit fleet ` +
            `--fingerprints <file>\` running on this broker, and may this client write ${teachCommandTopic(prefix)}?\n`,
        )
        resolve(EXIT.temporary)
      }, waitS * 1000)
      link.on('message', (_topic: string, payload: Buffer) => {
        const a = readTeachAnswer(payload)
        if (a === undefined || a.request !== request) return
        if (!a.ok) {
          streams.stderr.write(`beaconkit: the fleet did not teach ${c.room}: ${a.error ?? 'refused'}\n`)
          resolve(EXIT.failure)
        } else if (!a.done)
          streams.stderr.write(`beaconkit fleet teach: recording ${c.id} in ${c.room} for ${c.seconds} s…\n`)
        else {
          streams.stdout.write(
            `beaconkit fleet teach: ${c.room} taught with ${c.id} (${a.gateways ?? 0} gateways); the fleet saved it\n`,
          )
          resolve(EXIT.ok)
        }
      })
    })
    await link.subscribe([teachAnswerTopic(prefix, request)], 1)
    link.client?.publish(
      teachCommandTopic(prefix),
      teachCommandPayload({ id: c.id, room: c.room, seconds: c.seconds, request }),
      { qos: 1, retain: false },
    )
    return await outcome
  } finally {
    clearTimeout(timer)
    await close()
  }
}

/** `beaconkit fleet teach <beacon-id> <room> --mqtt <url> [--seconds 20]`. */
export function parseFleetTeach(values: Values, pos: string[]): FleetTeachCommand {
  const command = 'fleet'
  const usage = 'beaconkit fleet teach <beacon-id> <room> --mqtt <url> [--seconds 20]'
  const [id, room] = positionals(pos, 2, usage, command)
  if (!isTopicLevel(id))
    fail('id', `fleet teach takes a beacon id as the fleet publishes it, not ${quote(id)}`, command)
  if (room.trim() === '' || room.length > 64 || /\p{Cc}/u.test(room))
    fail('room', `fleet teach takes a room name of the site (1 to 64 characters), not ${quote(room)}`, command)
  const seconds =
    number(values, 'seconds', command, { integer: true, min: 1, max: MAX_TEACH_SECONDS, what: 'from 1 to 300' }) ??
    DEFAULT_TEACH_SECONDS
  const mqtt = parseMqtt(values, command)
  if (mqtt === undefined) fail('mqtt', `fleet teach needs the broker the fleet listens to: ${usage}`, command)
  return { command: 'fleet-teach', id, room, seconds, mqtt }
}
