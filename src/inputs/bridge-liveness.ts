/**
 * The foreign-input bridge's own liveness (docs/fleet.md "Mixed fleets"). Its foreign nodes share
 * one MQTT connection, and one connection carries one last will: so the will is the bridge's,
 * `<p>/inputs/<bridge>/status` `offline` (retained), and every node's status says `via` which
 * bridge speaks for it. A reader that sees a node `online` via a bridge that is `offline` knows
 * the node's status is stale — what zigbee2mqtt's bridge state does for its devices.
 */

import { hostname } from 'node:os'
import type { Clock } from '../clock.js'
import type { MqttLink } from '../mqtt/connection.js'
import { statusPayload } from '../mqtt/payloads.js'
import { checkGatewayId, GATEWAY_ID, inputsStatusTopic } from '../mqtt/topics.js'

/**
 * The bridge id when none is given: from the client id the user set (outside `[A-Za-z0-9_-]`
 * replaced by `_`), else `beaconkit-inputs-<host>`. Not the default client id itself: its random
 * suffix differs per process, and a restarted bridge must know the nodes its predecessor left
 * `online` (the stale sweep) by the same id.
 */
export function defaultBridgeId(clientId: string | undefined): string {
  const fromClient = clientId?.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128)
  if (fromClient !== undefined && GATEWAY_ID.test(fromClient)) return fromClient
  return `beaconkit-inputs-${hostname()
    .replace(/[^A-Za-z0-9_-]/g, '')
    .slice(0, 16)}`.replace(/-$/, '')
}

/** The checked bridge id: the given one (a topic level, as a gateway id), else {@link defaultBridgeId}. */
export function resolveBridgeId(bridgeId: unknown, clientId: string | undefined): string {
  return bridgeId === undefined ? defaultBridgeId(clientId) : checkGatewayId(bridgeId, 'bridgeId')
}

/**
 * Publishes retained at QoS 1 and resolves with whether the broker acknowledged within
 * `timeoutMs` (false when not connected). The timer is unref'd: it never keeps a process alive.
 */
export function publishRetained(link: MqttLink, topic: string, payload: string, timeoutMs: number): Promise<boolean> {
  const client = link.client
  if (client === undefined) return Promise.resolve(false)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    timer.unref()
    client.publish(topic, payload, { qos: 1, retain: true }, (error) => {
      clearTimeout(timer)
      resolve(error === undefined || error === null)
    })
  })
}

/** The bridge's status topic, its will, and the `online` / `offline` it publishes there. */
export class BridgeStatus {
  /** `<p>/inputs/<bridge>/status` */
  readonly topic: string

  constructor(
    prefix: string,
    readonly bridgeId: string,
    private readonly clock: Clock,
  ) {
    this.topic = inputsStatusTopic(prefix, bridgeId)
  }

  /** The last will of the bridge's connection: the retained `offline` form. */
  will(): { topic: string; payload: string } {
    return { topic: this.topic, payload: statusPayload('offline', this.clock.now()) }
  }

  /** Says `online` (on every connection: a broker that lost its retained store hears it again). */
  online(link: MqttLink, timeoutMs = 5000): Promise<boolean> {
    return publishRetained(link, this.topic, statusPayload('online', this.clock.now()), timeoutMs)
  }

  /** Says `offline` before a clean disconnect (which sends no will). */
  offline(link: MqttLink, timeoutMs = 5000): Promise<boolean> {
    return publishRetained(link, this.topic, statusPayload('offline', this.clock.now()), timeoutMs)
  }
}
