/**
 * `--mqtt`: an MqttPublisher attached to the scanner. The run waits for the first connection
 * (a virtual replay would otherwise be over before the broker answered), but not forever: a
 * broker that is down is retried while the publisher keeps the state.
 */

import { hostname } from 'node:os'
import { MqttPublisher } from '../mqtt/publisher.js'
import { BeaconNames } from '../positioning/beacon-names.js'
import type { MqttCloseResult, PublisherEventSource } from '../mqtt/publisher.js'
import type { GatewayHomeAssistantOptions } from '../mqtt/ha-gateway.js'
import { brokerSettings } from './config.js'
import type { MqttFlags } from './config.js'
import { RepeatedWarnings, formatCount } from '../util/repeated-warnings.js'
import { FLUSH_DEADLINE_MS } from './shutdown.js'

/** A running publisher: `note()` for the status line, `close()` publishes offline and disconnects. */
export interface RunningMqtt {
  readonly publisher: MqttPublisher
  /** e.g. `mqtt connected (hall)`. */
  note(): string
  /** Publishes offline and disconnects within the stop deadlines (shutdown.ts); resolves with what was not delivered. */
  close(): Promise<MqttCloseResult>
}

/** This machine's name as a gateway id (`[A-Za-z0-9_-]`, at most 64 characters). */
export function defaultGatewayId(): string {
  const id = hostname().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64)
  return id === '' || /^-+$/.test(id) ? 'gateway' : id
}

/** `--ha` and its companions as the `homeAssistant` option of a publisher or a fleet tracker (which takes no `--ha-beacons`). */
export function homeAssistantOption(flags: MqttFlags): false | GatewayHomeAssistantOptions {
  if (!flags.homeAssistant) return false
  return {
    ...(flags.haDwellMs === undefined ? {} : { dwellMs: flags.haDwellMs }),
    ...(flags.haExpireMs === undefined ? {} : { expireMs: flags.haExpireMs }),
    ...(flags.haBeacons === undefined ? {} : { beacons: flags.haBeacons }),
    ...(flags.beaconNames === undefined || flags.beaconNames.length === 0 ? {} : { names: new BeaconNames(flags.beaconNames) }),
  }
}

/** What {@link connectionWarnings} is told: a connection's errors and its (re)connects. */
export interface ConnectionWarnings {
  error(error: Error): void
  connected(): void
}

/**
 * A broker connection's errors as warnings: one line per new problem, not one per retry (a broker
 * that is down fails every reconnect with the same words), and one `mqtt: connected again` when
 * it is back. Not after a session taken over: the link says that once per episode, and the
 * connects in between are the problem going on, not a recovery.
 */
export function connectionWarnings(warn: (text: string) => void): ConnectionWarnings {
  let last: Error | undefined
  return {
    error(error) {
      if (error.message === last?.message) return
      last = error
      warn(error.message)
    },
    connected() {
      if (last !== undefined && (last as { code?: unknown }).code !== 'session_taken_over') warn('mqtt: connected again')
      last = undefined
    },
  }
}

/** Starts publishing; waits up to `waitMs` for the first connection. */
export async function startMqtt(flags: MqttFlags, scanner: PublisherEventSource, warn: (text: string) => void, waitMs = 10_000): Promise<RunningMqtt> {
  const publisher = new MqttPublisher({
    url: flags.url,
    gatewayId: flags.gatewayId ?? defaultGatewayId(),
    homeAssistant: homeAssistantOption(flags),
    ...(flags.clientId === undefined ? {} : { clientId: flags.clientId }),
    ...brokerSettings(flags),
    ...(flags.queueDir === undefined ? {} : { queueDir: flags.queueDir }),
    ...(flags.rssiPartitions === undefined ? {} : { rssiPartitions: flags.rssiPartitions }),
  })
  const problems = connectionWarnings(warn)
  publisher.on('error', (error) => problems.error(error))
  publisher.on('connected', () => problems.connected())
  // A full disk drops every event: one line per reason (and segment) per interval, not one per event.
  const repeated = new RepeatedWarnings(warn)
  // An acknowledgement warning says "mqtt: …" itself; what the disk queue found gets a prefix.
  publisher.on('warning', (w) => warn(w.code === 'acks_stalled' || w.code === 'acks_resumed' ? w.message : `mqtt queue: ${w.message}`))
  publisher.on('dropped', (info) => {
    if (info.kind !== 'event') return
    const from = info.segment === undefined ? '' : ` from queue segment ${info.segment}`
    repeated.add(`${info.reason}${from}`, info.count, (n) => `mqtt: dropped ${formatCount(n)} events (${info.reason})${from}`)
  })
  publisher.attach(scanner)
  const connected = new Promise<boolean>((resolve) => {
    publisher.once('connected', () => resolve(true))
    setTimeout(() => resolve(false), waitMs).unref()
  })
  await publisher.connect()
  if (!(await connected)) warn(`mqtt: ${flags.url} not reachable yet; retrying, state is kept until it is`)
  return {
    publisher,
    note: () => `mqtt ${publisher.stats.state} (${publisher.gatewayId})`,
    close: async () => {
      const result = await publisher.close(FLUSH_DEADLINE_MS)
      repeated.close()
      return result
    },
  }
}
