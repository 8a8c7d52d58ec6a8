/**
 * Options of MqttPublisher, checked where the user typed them: a bad value is an
 * InvalidOptionError naming the option; secrets (password, client key) are read from files
 * at connect time and never kept outside the mqtt.js client.
 */

import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import { DEFAULT_RECONNECT } from './backoff.js'
import type { MqttTlsOptions } from './link-settings.js'
import { readLinkSecrets } from './link-secrets.js'
import type { MqttClientLike } from './client.js'
import { DEFAULT_TOPIC_PREFIX } from './topics.js'
import { resolveHaGateOptions } from './ha-gate.js'
import { checkHaBeacons } from './ha-gateway.js'
import type { GatewayHomeAssistantOptions } from './ha-gateway.js'
import { MAX_RSSI_PARTITIONS } from './partition.js'
import { DEFAULT_ACK_TIMEOUT_MS } from './inflight.js'
import { RESERVED_STATUS_FIELDS } from './payloads.js'
import type { StatusFields } from './payloads.js'

/** Options of {@link MqttPublisher}. Give `url` or `client`. */
export interface MqttPublisherOptions {
  /** `mqtt://host:1883`, `mqtts://host:8883`, `ws://…`. */
  url?: string
  /** A connected mqtt.js 5 client to publish through instead; its will, TLS and reconnects stay yours. */
  client?: MqttClientLike
  /** This gateway's id in topics: `[A-Za-z0-9_-]`, 1–128 characters. */
  gatewayId: string
  /** Topic prefix `<p>`, default `beaconkit`. */
  topicPrefix?: string
  /** A beacon's retained state is republished on change at most this often. Default 5000. */
  minIntervalMs?: number
  /** …and at least this often while it is in range. Default 60000. */
  heartbeatMs?: number
  /**
   * Home Assistant discovery; off by default. `true` uses the prefix `homeassistant` and the
   * gate's defaults: a beacon is announced only with a stable identity, once heard over
   * `dwellMs` (30 s) and below `maxBeacons` (1000); its configs are removed after `expireMs`
   * (7 days) gone (ha-gate.ts). The gateway's own device is always announced; per-beacon
   * entities as `beacons` says (default 'auto': until a fleet tracker is seen; ha-gateway.ts).
   */
  homeAssistant?: boolean | GatewayHomeAssistantOptions
  username?: string
  /** File whose first line is the password: keeps it out of the process list and the code. */
  passwordFile?: string
  /**
   * The password itself, for one that comes from the environment or a private config file
   * (prefer `passwordFile`, which wins when both are given). Kept only inside the connection's
   * closure: never a property, so never in `JSON.stringify` or `util.inspect`.
   */
  password?: string
  /** TLS for `mqtts://` (or `wss://`). */
  tls?: MqttTlsOptions
  /**
   * The MQTT client id, used as given (set one for a persistent identity in the broker's log and
   * ACLs; `''` lets the broker assign one). Default `beaconkit-<gatewayId>-<host>-<6 random hex>`:
   * unique per process, since two clients with one id throw each other off the broker (reported
   * as an `error` with code `session_taken_over`, once).
   */
  clientId?: string
  /** Events kept while the broker is away (the oldest go first beyond it). Default 10000. */
  maxQueuedEvents?: number
  /**
   * A directory for a durable event queue: every event is written there and deleted only once
   * the broker acknowledged it, so events survive a broker that is away for long and a gateway
   * that is killed (sent after the restart). Retained states are not kept there: the current
   * state is published on every (re)connect. One process per directory. Default: memory only.
   */
  queueDir?: string
  /** Bound on the disk queue's bytes; the oldest events are dropped (and counted) beyond it. Default 256 MiB. */
  maxQueueBytes?: number
  /** QoS 1 messages in flight at once. Default 100. */
  maxInflight?: number
  /**
   * A broker that has acknowledged nothing for this long while messages are in flight has stopped
   * acknowledging: a `warning` event (once, and once more when acknowledgements resume), and
   * `close()` gives up flushing after this long without any acknowledgement. Default 5000.
   */
  ackTimeoutMs?: number
  /**
   * Reconnect delay: starts at `initialDelayMs` (default 1000), doubles per failure up to `maxDelayMs`
   * (default 5000), each wait jittered (half to all of the step).
   */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number }
  /** Default 10000. */
  connectTimeoutMs?: number
  /** Time for status payloads before `attach()`; afterwards the scanner's clock. */
  clock?: Clock
  /**
   * Splits the RSSI batch into this many partitions by beacon id, published on
   * `<p>/gateways/<gw>/rssi/<n>`, for several fleet trackers (docs/fleet.md "Scaling out").
   * Default 1: the unpartitioned `<p>/gateways/<gw>/rssi`.
   */
  rssiPartitions?: number
  /**
   * Extra string members of this gateway's retained status, in the online and offline forms and
   * the will, e.g. `{ via: 'fleet-inputs' }` for a gateway the foreign-input bridge publishes.
   * `state`, `time`, `version` and `beacons` are refused; at most 1 KiB of JSON.
   */
  statusFields?: StatusFields
}

function positive(value: number | undefined, fallback: number, option: string, integer = true): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new InvalidOptionError(
      'invalid_option',
      `${option} must be a positive ${integer ? 'whole ' : ''}number, not ${String(value)}`,
      { option },
    )
  }
  return value
}

function atMost(value: number, max: number, option: string): number {
  if (value > max)
    throw new InvalidOptionError('invalid_option', `${option} must be at most ${max}, not ${value}`, { option })
  return value
}

/** MQTT's bound on a UTF-8 string such as the client id. */
const MAX_CLIENT_ID_BYTES = 65_535

/** What is wrong with a client id, or undefined: a string without control characters, within MQTT's string length. */
export function clientIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'must be a string'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id)) return 'must not contain control characters'
  if (Buffer.byteLength(id) > MAX_CLIENT_ID_BYTES) return `must be at most ${MAX_CLIENT_ID_BYTES} bytes`
  return undefined
}

function clientId(id: unknown): string | undefined {
  if (id === undefined) return undefined
  const problem = clientIdProblem(id)
  if (problem !== undefined)
    throw new InvalidOptionError('invalid_option', `clientId ${problem}; leave it unset for a unique default`, {
      option: 'clientId',
    })
  return id as string
}

/**
 * A default client id, `beaconkit-<name>-<host>-<6 random hex>`: recognisable in the broker's log
 * and unique per process. A fixed one let two processes on one host (a service and someone's
 * SSH session) take the session from each other at every reconnect.
 */
export function defaultClientId(name: string): string {
  return `beaconkit-${name}-${hostname()
    .replace(/[^A-Za-z0-9_-]/g, '')
    .slice(0, 16)}-${randomBytes(3).toString('hex')}`
}

/** Bound on the JSON of `statusFields`: the status stays far below what readers accept (4 KiB). */
const MAX_STATUS_FIELDS_BYTES = 1024

function statusFields(fields: unknown): StatusFields | undefined {
  if (fields === undefined) return undefined
  const bad = (why: string): never => {
    throw new InvalidOptionError('invalid_option', `statusFields ${why}, e.g. { via: 'fleet-inputs' }`, {
      option: 'statusFields',
    })
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return bad('must be an object of strings')
  const entries = Object.entries(fields as Record<string, unknown>)
  for (const [key, value] of entries) {
    if (RESERVED_STATUS_FIELDS.includes(key)) bad(`must not set '${key}' (the status's own member)`)
    if (typeof value !== 'string') bad(`must hold strings only ('${key.slice(0, 40)}' is not one)`)
  }
  if (Buffer.byteLength(JSON.stringify(fields)) > MAX_STATUS_FIELDS_BYTES)
    bad(`must be at most ${MAX_STATUS_FIELDS_BYTES} bytes of JSON`)
  // A copy: the caller changing its object later must not change what the will says.
  return Object.freeze(Object.fromEntries(entries as [string, string][]))
}

function queueDir(dir: unknown): string | undefined {
  if (dir === undefined) return undefined
  if (typeof dir !== 'string' || dir === '')
    throw new InvalidOptionError(
      'invalid_option',
      'queueDir must be a directory path, e.g. /var/lib/beaconkit/mqtt-queue',
      { option: 'queueDir' },
    )
  return dir
}

function haOptions(
  ha: GatewayHomeAssistantOptions,
): GatewayHomeAssistantOptions & Required<Omit<GatewayHomeAssistantOptions, 'prefix' | 'names' | 'room'>> {
  const room: unknown = ha.room
  if (room !== undefined && (typeof room !== 'string' || !/^[^\p{Cc}]{1,64}$/u.test(room)))
    throw new InvalidOptionError('invalid_option', 'homeAssistant.room must be a room name of 1 to 64 characters', {
      option: 'homeAssistant.room',
    })
  return {
    ...(ha.prefix === undefined ? {} : { prefix: ha.prefix }),
    ...(ha.names === undefined ? {} : { names: ha.names }),
    ...(ha.room === undefined ? {} : { room: ha.room }),
    ...resolveHaGateOptions(ha),
    beacons: checkHaBeacons(ha.beacons),
  }
}

/** Checked options with defaults; secrets stay behind `readSecrets()`. */
export function resolvePublisherOptions(options: MqttPublisherOptions) {
  if (typeof options !== 'object' || options === null)
    throw new InvalidOptionError('invalid_option', 'MqttPublisher needs options: { url, gatewayId }', {
      option: 'options',
    })
  const { url, client } = options
  if ((url === undefined) === (client === undefined)) {
    throw new InvalidOptionError(
      'invalid_option',
      'give MqttPublisher either url (e.g. mqtt://127.0.0.1:1883) or client, not both and not neither',
      { option: 'url' },
    )
  }
  if (url !== undefined) {
    let protocol = ''
    try {
      protocol = new URL(url).protocol
    } catch {
      // reported below
    }
    if (!['mqtt:', 'mqtts:', 'ws:', 'wss:', 'tcp:', 'ssl:', 'tls:'].includes(protocol)) {
      throw new InvalidOptionError(
        'invalid_option',
        'url must be a broker URL such as mqtt://127.0.0.1:1883 or mqtts://broker:8883',
        { option: 'url' },
      )
    }
    // user:password@ in the URL would put the password in logs and the process list.
    if (new URL(url).password !== '')
      throw new InvalidOptionError('invalid_option', 'put the broker password in passwordFile, not in the URL', {
        option: 'url',
      })
  }
  const ha = options.homeAssistant
  const tls = options.tls ?? {}
  const shared = (client as { url?: unknown } | undefined)?.url
  return {
    url,
    client,
    /** The broker as warnings name it: the URL (never holding a password), else the shared connection's. */
    broker: url ?? (typeof shared === 'string' ? shared : 'the broker'),
    gatewayId: options.gatewayId,
    topicPrefix: options.topicPrefix ?? DEFAULT_TOPIC_PREFIX,
    minIntervalMs: positive(options.minIntervalMs, 5000, 'minIntervalMs'),
    heartbeatMs: positive(options.heartbeatMs, 60_000, 'heartbeatMs'),
    homeAssistant: ha === undefined || ha === false ? undefined : haOptions(ha === true ? {} : ha),
    username: options.username,
    clientId: clientId(options.clientId),
    maxQueuedEvents: positive(options.maxQueuedEvents, 10_000, 'maxQueuedEvents'),
    maxInflight: positive(options.maxInflight, 100, 'maxInflight'),
    ackTimeoutMs: positive(options.ackTimeoutMs, DEFAULT_ACK_TIMEOUT_MS, 'ackTimeoutMs'),
    queueDir: queueDir(options.queueDir),
    maxQueueBytes: positive(options.maxQueueBytes, 256 * 1024 * 1024, 'maxQueueBytes'),
    reconnect: {
      initialDelayMs: positive(
        options.reconnect?.initialDelayMs,
        DEFAULT_RECONNECT.initialDelayMs,
        'reconnect.initialDelayMs',
      ),
      maxDelayMs: positive(options.reconnect?.maxDelayMs, DEFAULT_RECONNECT.maxDelayMs, 'reconnect.maxDelayMs'),
    },
    connectTimeoutMs: positive(options.connectTimeoutMs, 10_000, 'connectTimeoutMs'),
    rssiPartitions: atMost(
      positive(options.rssiPartitions, 1, 'rssiPartitions'),
      MAX_RSSI_PARTITIONS,
      'rssiPartitions',
    ),
    statusFields: statusFields(options.statusFields),
    clock: options.clock,
    /** Reads the password and TLS files now, for the connection only. */
    readSecrets: () => readLinkSecrets(options, tls),
  }
}
