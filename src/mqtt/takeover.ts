/**
 * A session taken over: two clients with one client id throw each other off the broker, each
 * reconnect ending the other's connection (two `beaconkit fleet` on one host did it 35 times in
 * 22 s, silently). An MQTT 5 broker may say so (DISCONNECT reason 0x8E); Mosquitto 2.0.11 and
 * every MQTT 3.1.1 broker just close the old connection. So a takeover is recognised from the
 * pattern too: connections the broker closes soon after accepting them, several in a row, with
 * no error and no message waiting for its acknowledgement (a broker that closes the connection
 * on a message it cannot take is a poison message, inflight.ts's business, not a takeover).
 */

import { performance } from 'node:perf_hooks'
import { MqttError } from '../errors.js'

/** MQTT 5 DISCONNECT reason code "Session taken over". */
export const SESSION_TAKEN_OVER = 0x8e

/**
 * Connections in a row that the broker closed within {@link TAKEOVER_WINDOW_MS} of accepting
 * them before a takeover is reported. One or two are a broker restart or a network blip.
 */
export const TAKEOVER_DROPS = 3

/**
 * "Soon after accepting it": the other client's reconnect delay ends this client's connection,
 * 1 s for beaconkit's default, up to a few seconds for other clients. A connection that lasts
 * longer ends an episode: a later takeover is reported again.
 */
export const TAKEOVER_WINDOW_MS = 10_000

/** The error of a takeover: what happened, why, and what to do. The client id is not a secret. */
export function takeoverError(clientId: string | undefined, saidByBroker: boolean): MqttError {
  const id = clientId === undefined ? 'this client id' : `this client id (${clientId})`
  const how = saidByBroker
    ? `the broker ended this connection because another client connected with ${id} ` +
      '(MQTT 5 reason 0x8e, session taken over)'
    : `the broker closed this connection right after accepting it, ${TAKEOVER_DROPS} times in a row: ` +
      `most likely another client connected with ${id} and took the session over`
  return new MqttError(
    'session_taken_over',
    `MQTT broker: ${how}; two clients with one id throw each other off at every reconnect. ` +
      'Give each process its own client id (--client-id, or the clientId option), ' +
      'or leave it unset for a unique default',
  )
}

/**
 * Follows one link's connections and says when a takeover is to be reported: once per episode,
 * not once per reconnect.
 */
export class TakeoverWatch {
  private connectedAt: number | undefined
  private drops = 0
  private failed = false
  private reported = false

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The broker accepted a connection. */
  connected(): void {
    this.connectedAt = this.now()
    this.failed = false
  }

  /** A connection error: whatever ends this connection is that error, not a takeover. */
  error(): void {
    this.drops = 0
    this.failed = true
  }

  /** The broker sent DISCONNECT with `reasonCode`; true when a takeover is to be reported now. */
  disconnected(reasonCode: number | undefined): boolean {
    return reasonCode === SESSION_TAKEN_OVER && this.report()
  }

  /**
   * The connection closed; `busy`: QoS 1 messages were waiting for their PUBACK. True when a
   * takeover is to be reported now.
   */
  closed(busy: boolean): boolean {
    const since = this.connectedAt
    this.connectedAt = undefined
    // A connection attempt that failed: the error said why.
    if (since === undefined) return false
    if (this.now() - since >= TAKEOVER_WINDOW_MS) {
      this.drops = 0
      this.reported = false
      return false
    }
    // Neither counted nor a reason to start over: a message the broker refuses is a poison
    // message (inflight.ts), and one in flight during a takeover is rare and says nothing.
    if (this.failed || busy) return false
    this.drops++
    return this.drops >= TAKEOVER_DROPS && this.report()
  }

  private report(): boolean {
    if (this.reported) return false
    this.reported = true
    return true
  }
}
