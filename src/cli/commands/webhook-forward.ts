/**
 * `webhook --mqtt`: where a push goes on the broker, and the forwarding of pushes to it. A push
 * is forwarded at QoS 1 and answered only once the broker acknowledged it; the pushes waiting
 * for that are bounded, so a broker away refuses pushes (the platform pushes them again) rather
 * than piling them up inside mqtt.js.
 */

import { MqttError, WebhookError } from '../../errors.js'
import type { MqttLink } from '../../mqtt/connection.js'
import { ackWarning, DEFAULT_ACK_TIMEOUT_MS, InFlight } from '../../mqtt/inflight.js'
import { openBrokerLink } from '../../gateway/broker-link.js'
import type { WebhookMessage } from '../../developer/webhook-message.js'
import type { ConnectionConditions } from '../../gateway/connection-conditions.js'
import type { ConditionLog } from '../../log/condition-log.js'
import type { Logger } from '../../log/logger.js'

/** `webhook --mqtt` and its companions: where pushes are forwarded. */
export interface WebhookMqttFlags {
  url: string
  topicPrefix?: string
  username?: string
  passwordFile?: string
}

/** A serial number or task id as one topic level: MQTT forbids `/`, `+`, `#` there. */
function level(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 128)
  return safe === '' ? '_' : safe
}

/** `<p>/webhook/data/<sn>` for sensor data, `<p>/webhook/tasks/<taskId>` for task events. */
export function webhookTopic(prefix: string, message: WebhookMessage): string {
  return message.type === 'text'
    ? `${prefix}/webhook/data/${level(message.sn)}`
    : `${prefix}/webhook/tasks/${level(message.taskId)}`
}

/** How long a forwarded push may wait for the broker's PUBACK. */
const PUBLISH_TIMEOUT_MS = 5000

/**
 * Forwarded pushes waiting for their PUBACK at once, and their bytes: beyond either the push is
 * answered 503 at once (the platform pushes it again) rather than piling up inside mqtt.js.
 */
export const FORWARD_LIMITS = { messages: 100, bytes: 16 * 1024 * 1024 } as const

/** The pushes handed to mqtt.js and not yet acknowledged, bounded. */
export class Forwarder {
  private bytes = 0
  readonly flights: InFlight<object>

  constructor(
    private readonly link: MqttLink,
    conditions: ConditionLog,
    private readonly limits: { messages: number; bytes: number } = FORWARD_LIMITS,
  ) {
    // A broker that stops acknowledging and resumes is one condition, logged once each way.
    this.flights = new InFlight(DEFAULT_ACK_TIMEOUT_MS, (info) => {
      const w = ackWarning(info, 'the MQTT broker')
      if (w.code === 'acks_stalled') conditions.start('mqtt.acks_stalled', w.message, { code: w.code })
      else conditions.clear('mqtt.acks_stalled', w.message, { code: w.code })
    })
  }

  publish(topic: string, payload: string): Promise<void> {
    const client = this.link.client
    if (client === undefined)
      return Promise.reject(
        new MqttError(
          'connection',
          'the MQTT broker is not connected; the push is refused so the platform pushes it again',
        ),
      )
    const size = Buffer.byteLength(topic) + Buffer.byteLength(payload)
    if (this.flights.size >= this.limits.messages || this.bytes + size > this.limits.bytes) {
      return Promise.reject(
        new WebhookError(
          'unavailable',
          `the MQTT broker has ${this.flights.size} forwarded pushes not yet acknowledged; the push ` +
            `is refused (503) so the platform pushes it again`,
          { status: 503 },
        ),
      )
    }
    this.bytes += size
    const item = {}
    return new Promise((resolve, reject) => {
      // A broker that vanished, or never acknowledges, must not hold the push past the platform's
      // patience, nor leave its payload inside mqtt.js: give up in time and take it back out.
      const timer = setTimeout(() => {
        if (this.flights.withdraw(item)) this.bytes -= size
        reject(
          new MqttError(
            'connection',
            `the MQTT broker did not acknowledge the forwarded push within ${PUBLISH_TIMEOUT_MS / 1000} s`,
          ),
        )
      }, PUBLISH_TIMEOUT_MS)
      this.flights.publish(client, topic, payload, false, item, (error) => {
        clearTimeout(timer)
        this.bytes -= size
        if (error === undefined) resolve()
        else reject(error)
      })
    })
  }

  /** At the stop: nothing stays inside mqtt.js, so the client disconnects at once. */
  withdrawAll(): void {
    this.flights.withdrawAll()
    this.bytes = 0
  }
}

/** Opens the forwarding connection (through the root's openBrokerLink); waits a bounded time for it. */
export async function connect(flags: WebhookMqttFlags, log: Logger, problems: ConnectionConditions): Promise<MqttLink> {
  const link = await openBrokerLink(
    {
      url: flags.url,
      ...(flags.topicPrefix === undefined ? {} : { topicPrefix: flags.topicPrefix }),
      ...(flags.username === undefined ? {} : { username: flags.username }),
      ...(flags.passwordFile === undefined ? {} : { passwordFile: flags.passwordFile }),
    },
    { gatewayId: 'webhook', clientId: `beaconkit-webhook-${process.pid}` },
  )
  // One line when a problem starts and one when it clears, not one per retry.
  link.on('error', (error) => problems.error(error))
  link.on('connected', () => problems.connected())
  link.on('disconnected', () => problems.disconnected())
  const connected = new Promise<boolean>((resolve) => {
    link.once('connected', () => resolve(true))
    setTimeout(() => resolve(false), 10_000).unref()
  })
  if (!(await connected))
    log.info(`mqtt: ${flags.url} not reachable yet; pushes are refused (and pushed again by the platform) until it is`)
  return link
}
