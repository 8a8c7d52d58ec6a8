/**
 * `--mqtt`: an MqttPublisher attached to the scanner. The run waits for the first connection
 * (a virtual replay would otherwise be over before the broker answered), but not forever: a
 * broker that is down is retried while the publisher keeps the state.
 */

import { MqttPublisher } from '../mqtt/publisher.js'
import { BeaconNames } from '../positioning/beacon-names.js'
import type { MqttCloseResult } from '../mqtt/inflight.js'
import type { PublisherEventSource } from '../mqtt/publisher-types.js'
import { HA_MAX_PACKET_BYTES } from '../mqtt/ha-gateway.js'
import type { GatewayHomeAssistantOptions } from '../mqtt/ha-gateway.js'
import { statusPayload } from '../mqtt/payloads.js'
import type { SharedConnection } from '../mqtt/shared-connection.js'
import { checkTopicPrefix, DEFAULT_TOPIC_PREFIX, GatewayTopics } from '../mqtt/topics.js'
import type { Clock } from '../clock.js'
import type { ConnectionOwner } from './broker-connection.js'
import { brokerSettings } from './settings/mqtt.js'
import type { MqttSettings } from './settings/mqtt.js'
import { RepeatedWarnings, formatCount } from '../util/repeated-warnings.js'
import { ConditionLog } from '../log/condition-log.js'
import type { Logger } from '../log/logger.js'
import { connectionConditions } from './connection-conditions.js'
import { FLUSH_DEADLINE_MS } from './shutdown.js'
import { watchQueueFill } from './queue-fill.js'

/** A running publisher: `note()` for the status line, `close()` publishes offline and disconnects. */
export interface RunningMqtt {
  readonly publisher: MqttPublisher
  /** e.g. `mqtt connected (hall)`. */
  note(): string
  /**
   * Publishes offline and disconnects within the stop deadlines (shutdown.ts); resolves with what was not
   * delivered.
   */
  close(): Promise<MqttCloseResult>
}

/**
 * `--ha` and its companions as the `homeAssistant` option of a publisher or a fleet tracker (which takes no
 * `--ha-beacons`).
 */
export function homeAssistantOption(flags: Omit<MqttSettings, 'gatewayId'>): false | GatewayHomeAssistantOptions {
  if (!flags.homeAssistant) return false
  return {
    ...(flags.haDwellMs === undefined ? {} : { dwellMs: flags.haDwellMs }),
    ...(flags.haExpireMs === undefined ? {} : { expireMs: flags.haExpireMs }),
    ...(flags.haBeacons === undefined ? {} : { beacons: flags.haBeacons }),
    ...(flags.gatewayRoom === undefined ? {} : { room: flags.gatewayRoom }),
    ...(flags.beaconNames === undefined || flags.beaconNames.length === 0
      ? {}
      : { names: new BeaconNames(flags.beaconNames) }),
  }
}

/**
 * Events the broker may hold before the oldest go (the publisher's bound, set here so the check below uses
 * the same number).
 */
export const MAX_QUEUED_EVENTS = 10_000

/**
 * The gateway's broker connection (broker-connection.ts): its will the gateway's `offline` status,
 * dated as the publisher dates it (the scanner's clock, the wall clock while that reads 0).
 */
export function gatewayConnectionOwner(flags: MqttSettings, clock: Clock): ConnectionOwner {
  const { gatewayId } = flags
  const now = clock.now()
  const topics = new GatewayTopics(checkTopicPrefix(flags.topicPrefix ?? DEFAULT_TOPIC_PREFIX), gatewayId)
  return {
    name: gatewayId,
    will: { topic: topics.status, payload: statusPayload('offline', now > 0 ? now : Date.now()) },
    ...(flags.homeAssistant ? { maxPacketBytes: HA_MAX_PACKET_BYTES } : {}),
  }
}

/**
 * Starts publishing, on `connection` when given (the root's; else on a connection of its own);
 * waits up to `waitMs` for the first connection.
 */
export async function startMqtt(
  flags: MqttSettings,
  scanner: PublisherEventSource,
  log: Logger,
  connection?: SharedConnection,
  waitMs = 10_000,
): Promise<RunningMqtt> {
  const publisher = new MqttPublisher({
    ...(connection === undefined ? { url: flags.url } : { client: connection.client() }),
    maxQueuedEvents: MAX_QUEUED_EVENTS,
    gatewayId: flags.gatewayId,
    homeAssistant: homeAssistantOption(flags),
    ...(flags.clientId === undefined ? {} : { clientId: flags.clientId }),
    ...brokerSettings(flags),
    ...(flags.queueDir === undefined ? {} : { queueDir: flags.queueDir }),
    ...(flags.rssiPartitions === undefined ? {} : { rssiPartitions: flags.rssiPartitions }),
  })
  const conditions = new ConditionLog(log)
  const problems = connectionConditions(log, conditions)
  publisher.on('error', (error) => problems.error(error))
  publisher.on('connected', () => problems.connected())
  publisher.on('disconnected', () => problems.disconnected())
  // A full disk drops every event: one line when it starts, a sum per interval while it goes on,
  // one line once a whole interval passed without a drop.
  const dropKey = (key: string): string => `mqtt.dropped:${key}`
  const repeated = new RepeatedWarnings(
    (text, key, first) => (first ? conditions.start(dropKey(key), text) : log.warn(text)),
    undefined,
    (key, total) =>
      conditions.clear(
        dropKey(key),
        `mqtt: no events dropped (${key}) for a while; ${formatCount(total)} dropped in all`,
      ),
  )
  // An acknowledgement warning says "mqtt: …" itself; what the disk queue found gets a prefix.
  // A stall and its end are one condition.
  publisher.on('warning', (w) => {
    if (w.code === 'acks_stalled') conditions.start('mqtt.acks_stalled', w.message, { code: w.code })
    else if (w.code === 'acks_resumed') conditions.clear('mqtt.acks_stalled', w.message, { code: w.code })
    else log.warn(`mqtt queue: ${w.message}`, { code: w.code })
  })
  publisher.on('dropped', (info) => {
    if (info.kind !== 'event') return
    const from = info.segment === undefined ? '' : ` from queue segment ${info.segment}`
    repeated.add(
      `${info.reason}${from}`,
      info.count,
      (n) => `mqtt: dropped ${formatCount(n)} events (${info.reason})${from}`,
    )
  })
  // The event queue near its bound: the broker is away or slower than the beacons.
  const stopWatching = watchQueueFill(
    conditions,
    'mqtt.queue_near_bound',
    `mqtt: the event queue (${formatCount(MAX_QUEUED_EVENTS)} events)`,
    () => publisher.stats.pending / MAX_QUEUED_EVENTS,
    () => ({ pending: publisher.stats.pending }),
  )
  publisher.attach(scanner)
  const connected = new Promise<boolean>((resolve) => {
    publisher.once('connected', () => resolve(true))
    setTimeout(() => resolve(false), waitMs).unref()
  })
  await publisher.connect()
  // The reason is the condition already logged (mqtt.unreachable): this only says what happens meanwhile.
  if (!(await connected)) log.info(`mqtt: ${flags.url} not reachable yet; retrying, state is kept until it is`)
  return {
    publisher,
    note: () => `mqtt ${publisher.stats.state} (${publisher.gatewayId})`,
    close: async () => {
      stopWatching()
      problems.close()
      const result = await publisher.close(FLUSH_DEADLINE_MS)
      repeated.close()
      return result
    },
  }
}
