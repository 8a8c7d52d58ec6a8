/**
 * What an {@link MqttLink} is opened with (the broker, the client id, the secrets read from their
 * files, the will, the reconnect delays) and the events it tells.
 */

import type { ReconnectDelays } from './backoff.js'

/** TLS settings (an `mqtts://` URL uses them; PEM text or file paths). */
export interface MqttTlsOptions {
  /** PEM of the CA that signed the broker's certificate (instead of the system's CAs). */
  ca?: string | Buffer
  /** File holding that PEM. */
  caFile?: string
  /** Client certificate PEM, for brokers that authenticate clients by certificate. */
  cert?: string | Buffer
  certFile?: string
  /** Client key PEM; a secret, never printed. */
  key?: string | Buffer
  keyFile?: string
  /** Default true: refuse a broker whose certificate does not check out. */
  rejectUnauthorized?: boolean
}

/** What {@link MqttLink} needs to connect. */
export interface LinkSettings {
  url: string
  clientId: string
  username?: string
  password?: string
  tls: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer; rejectUnauthorized?: boolean }
  /** The last will (retained, QoS 1); none for a link that only listens. */
  will?: { topic: string; payload: string }
  reconnect: ReconnectDelays
  connectTimeoutMs: number
  /**
   * MQTT 5: the largest packet (bytes) this client accepts, announced in CONNECT so that the
   * broker never sends a larger one (it drops it for this client instead). A listening link sets
   * it; MQTT 3.1.1 has no such property.
   */
  maxPacketBytes?: number
}

/** Events of {@link MqttLink}. */
export interface LinkEvents {
  /**
   * Connected (again). `sessionPresent` is the CONNACK's: false when the broker kept no session
   * (always with the clean sessions used here, and after a broker restart without persistence),
   * so retained state and discovery configs may be gone and are worth sending again.
   */
  connected: [protocolVersion: 4 | 5, sessionPresent: boolean]
  disconnected: []
  /**
   * A connection problem (retried), or another client with the same client id taking the
   * session over (`session_taken_over`, takeover.ts): once per episode, not per reconnect.
   */
  error: [error: Error]
  /** A message on a subscribed topic; `retained` when the broker delivered it from its store. */
  message: [topic: string, payload: Buffer, retained: boolean]
}
