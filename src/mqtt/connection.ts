/**
 * The link to the broker: mqtt.js loaded lazily, MQTT 5 first and 3.1.1 when the broker refuses
 * it (aedes speaks 3.1.1 only), reconnects with a doubling, capped and jittered delay (backoff.ts),
 * and no secret kept anywhere but inside the client.
 */

import { EventEmitter } from 'eventemitter3'
import { MqttError } from '../errors.js'
import { reconnectDelay } from './backoff.js'
import type { ReconnectDelays } from './backoff.js'
import { takeoverError, TakeoverWatch } from './takeover.js'

/** The part of an mqtt.js 5 `MqttClient` the publisher uses; a connected client can be passed in. */
export interface MqttClientLike {
  readonly connected: boolean
  publish(
    topic: string,
    message: string | Buffer,
    opts: { qos: 0 | 1; retain: boolean },
    callback?: (error?: Error) => void,
  ): unknown
  end(force?: boolean, opts?: object, callback?: () => void): unknown
  on(event: 'connect' | 'close' | 'reconnect' | 'offline', listener: () => void): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  removeListener(event: string, listener: (...args: never[]) => void): unknown
}

/**
 * What mqtt.js 5 keeps of a QoS 1 publish until its PUBACK, read defensively: these are
 * mqtt.js's own members (public `removeOutgoingMessage`, the `outgoing` table it keys by packet
 * id with the caller's callback as `cb`, the socket as `stream`); a client passed in that lacks
 * them is simply not cleaned.
 */
interface OutgoingStore {
  outgoing?: Record<string, { cb?: unknown } | undefined>
  /** mqtt.js 5's public id of the last publish it numbered. */
  getLastMessageId?(): number | undefined
  options?: { clientId?: unknown }
  removeOutgoingMessage?(messageId: number): unknown
  stream?: { destroy(): void; destroyed?: boolean }
}

/**
 * The packet id mqtt.js gave a QoS 1 publish, found by its callback; call it right after
 * `publish()` (mqtt.js stores the message synchronously while connected). After a reconnect
 * mqtt.js wraps the callback of a resent message, so later only this id finds it again.
 */
export function outgoingId(client: MqttClientLike, callback: (error?: Error) => void): number | undefined {
  const c = client as MqttClientLike & OutgoingStore
  const store = c.outgoing
  if (store === undefined) return undefined
  // The publish just made is the last one numbered: found at once. Searching the whole table
  // per publish cost O(in flight) each — quadratic for many publishers on one shared client
  // (the foreign-input bridge's nodes: 37 % of its CPU, measured).
  const last = typeof c.getLastMessageId === 'function' ? c.getLastMessageId() : undefined
  if (typeof last === 'number' && store[last]?.cb === callback) return last
  for (const [id, entry] of Object.entries(store)) if (entry?.cb === callback) return Number(id)
  return undefined
}

/**
 * Takes a QoS 1 publish that waits for its PUBACK out of mqtt.js's outgoing store; mqtt.js calls
 * its callback with an error. mqtt.js keeps such a message, payload and all, until the broker
 * acknowledges it, across reconnects: one whose waiter gave up must go, or a broker that never
 * acknowledges grows the process without bound. `messageId` is {@link outgoingId}'s answer: it
 * still belongs to this message as long as its callback has not been called (mqtt.js frees an id
 * only after calling back). Returns false when the message is not there.
 */
export function withdrawPublish(
  client: MqttClientLike,
  messageId: number | undefined,
  callback: (error?: Error) => void,
): boolean {
  const store = client as MqttClientLike & OutgoingStore
  if (store.outgoing === undefined || typeof store.removeOutgoingMessage !== 'function') return false
  const id =
    messageId !== undefined && store.outgoing[messageId] !== undefined ? messageId : outgoingId(client, callback)
  if (id === undefined) return false
  store.removeOutgoingMessage(id)
  return true
}

/** How long {@link MqttLink.close} waits for a clean DISCONNECT before it drops the socket. */
export const DEFAULT_LINK_CLOSE_MS = 2000

/**
 * Ends an mqtt.js client within `graceMs`: a clean DISCONNECT when connected, and the socket
 * dropped if that does not finish in time (mqtt.js's clean end waits for every unacknowledged
 * publish and then for the broker to close its side: a silent or frozen broker would hold it for
 * ever). Withdraw unacknowledged publishes first ({@link withdrawPublish}) so the DISCONNECT
 * goes out at once.
 */
export function endClient(client: MqttClientLike, graceMs = DEFAULT_LINK_CLOSE_MS): Promise<void> {
  return new Promise((resolve) => {
    let done = false
    const finish = (): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve()
    }
    // Not unref'd: this timer keeps the process alive until the close is over, so it never runs
    // out of work with the close still pending (Node's exit 13).
    const timer = setTimeout(() => {
      // A second end() is a no-op once mqtt.js is disconnecting: drop the socket itself.
      const stream = (client as MqttClientLike & OutgoingStore).stream
      if (stream !== undefined && stream.destroyed !== true) stream.destroy()
      else client.end(true)
      finish()
    }, graceMs)
    // Still connecting: mqtt.js's graceful end waits for a connection it no longer wants and
    // leaves its socket open.
    client.end(!client.connected, {}, finish)
  })
}

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

/** mqtt.js 5 tells of a DISCONNECT from the broker (MQTT 5 only) with its packet. */
interface DisconnectingClient {
  on(event: 'disconnect', listener: (packet: { reasonCode?: number }) => void): unknown
}

/** What a subscribing link needs of a client besides {@link MqttClientLike}: mqtt.js 5 has both. */
interface SubscribingClient {
  subscribe(filters: string[], opts: { qos: 0 | 1 }, callback?: (error?: Error | null) => void): unknown
  unsubscribe(filters: string[], opts: object, callback?: (error?: Error) => void): unknown
  on(event: 'message', listener: (topic: string, payload: Buffer, packet?: { retain?: boolean }) => void): unknown
}

export interface MqttModule {
  connect(url: string, options: object): MqttClientLike & { options: { reconnectPeriod?: number } }
}

/** Kept in a variable so bundlers leave the import alone (a real `import()` in the CJS build too). */
const MQTT_MODULE = 'mqtt'

/** mqtt.js, imported on first use only: importing beaconkit must not load it. Shared with the site simulator's gateways, which own their clients to be killable. */
export async function loadMqtt(): Promise<MqttModule> {
  try {
    const mod = (await import(MQTT_MODULE)) as MqttModule & { default?: MqttModule }
    return typeof mod.connect === 'function' ? mod : (mod.default as MqttModule)
  } catch (error) {
    throw new MqttError(
      'not_installed',
      'the mqtt package (mqtt.js 5) is not installed: run `npm install mqtt@5` next to beaconkit',
      { cause: error },
    )
  }
}

/** A CONNACK refusing the protocol version: 1 in MQTT 3.1.1, 0x84 in MQTT 5. */
function refusesProtocol(error: Error): boolean {
  const code = (error as { code?: unknown }).code
  return code === 1 || code === 0x84
}

/**
 * One connection that lives until `close()`: owns the mqtt.js client, replaces it once with a
 * 3.1.1 client when the broker refuses MQTT 5, and sets mqtt.js's reconnect period before each
 * wait ({@link reconnectDelay}: doubling, capped, jittered; mqtt.js itself retries at a fixed period).
 */
export class MqttLink extends EventEmitter<LinkEvents> {
  // A true private field: util.inspect and JSON.stringify cannot reach the client's options (the password).
  #client: (MqttClientLike & { options?: { reconnectPeriod?: number } }) | undefined
  #settings: LinkSettings | undefined
  #protocolVersion: 4 | 5 = 5
  #closed = false
  #owned: boolean
  #takeover = new TakeoverWatch()

  private constructor(client: MqttClientLike | undefined, settings: LinkSettings | undefined) {
    super()
    this.#client = client
    this.#settings = settings
    this.#owned = client === undefined
    if (client !== undefined) this.watch(client)
  }

  /** Wraps a client the caller made and keeps (its will, TLS and reconnects are the caller's). */
  static wrap(client: MqttClientLike): MqttLink {
    return new MqttLink(client, undefined)
  }

  /**
   * Loads mqtt.js and starts connecting; resolves once the client exists, not once it is
   * connected. Intended: a gateway must start scanning, and its outbox keep state, while the
   * broker is down or slow; waiting here would stall the scanner behind a broker. The
   * `connected` event says when it is up (the CLI waits for it, with a time limit).
   */
  static async open(settings: LinkSettings): Promise<MqttLink> {
    const mqtt = await loadMqtt()
    const link = new MqttLink(undefined, settings)
    link.start(mqtt, 5)
    return link
  }

  /** The client while connected, for publishing. */
  get client(): MqttClientLike | undefined {
    return this.#client?.connected === true ? this.#client : undefined
  }

  get connected(): boolean {
    return this.#client?.connected === true
  }

  /** The protocol of the current client: 5, or 4 (MQTT 3.1.1) after a refusal. */
  get protocolVersion(): 4 | 5 {
    return this.#protocolVersion
  }

  private start(mqtt: MqttModule, version: 4 | 5): void {
    const s = this.#settings as LinkSettings
    this.#protocolVersion = version
    const client = mqtt.connect(s.url, {
      clientId: s.clientId,
      protocolVersion: version,
      clean: true,
      reconnectPeriod: reconnectDelay(0, s.reconnect),
      connectTimeout: s.connectTimeoutMs,
      // Offline publishes are queued by the publisher's bounded outbox, never by mqtt.js.
      queueQoSZero: false,
      ...(s.will === undefined
        ? {}
        : { will: { topic: s.will.topic, payload: Buffer.from(s.will.payload), qos: 1, retain: true } }),
      ...(s.maxPacketBytes === undefined || version !== 5
        ? {}
        : { properties: { maximumPacketSize: s.maxPacketBytes } }),
      ...(s.username === undefined ? {} : { username: s.username }),
      ...(s.password === undefined ? {} : { password: s.password }),
      ...s.tls,
    })
    this.#client = client
    this.watch(client)
    client.on('error', (error: Error) => {
      if (version === 5 && refusesProtocol(error) && !this.#closed) {
        // The broker speaks 3.1.1 only: drop this client and its reconnect loop, start over once.
        this.unwatch()
        client.end(true)
        this.start(mqtt, 4)
      }
    })
    // mqtt.js reads the period when a connection closes (a new timer per wait): set here, it is
    // the wait after this attempt should it fail.
    let attempt = 0
    client.on('reconnect', () => {
      attempt++
      client.options.reconnectPeriod = reconnectDelay(attempt, s.reconnect)
    })
    client.on('connect', () => {
      attempt = 0
      client.options.reconnectPeriod = reconnectDelay(0, s.reconnect)
    })
  }

  private watched: { event: string; fn: (...args: never[]) => void }[] = []

  private watch(client: MqttClientLike): void {
    const store = client as MqttClientLike & OutgoingStore
    const clientId =
      this.#settings?.clientId ?? (typeof store.options?.clientId === 'string' ? store.options.clientId : undefined)
    const onConnect = (connack?: { sessionPresent?: boolean }): void => {
      this.#takeover.connected()
      this.emit('connected', this.#protocolVersion, connack?.sessionPresent === true)
    }
    const onClose = (): void => {
      // mqtt.js has already failed the volatile packets (a SUBSCRIBE); QoS 1 publishes stay.
      const takenOver = this.#takeover.closed(Object.keys(store.outgoing ?? {}).length > 0)
      this.emit('disconnected')
      if (takenOver) this.emit('error', takeoverError(clientId, false))
    }
    const onError = (error: Error): void => {
      if (this.#owned && this.#protocolVersion === 5 && refusesProtocol(error)) return
      this.#takeover.error()
      this.emit('error', new MqttError('connection', `MQTT broker: ${error.message}; retrying`, { cause: error }))
    }
    const onDisconnect = (packet: { reasonCode?: number }): void => {
      if (this.#takeover.disconnected(packet.reasonCode)) this.emit('error', takeoverError(clientId, true))
    }
    // The retain flag tells a command (sent once) from a state the broker keeps for everyone.
    const onMessage = (topic: string, payload: Buffer, packet?: { retain?: boolean }): void => {
      this.emit('message', topic, payload, packet?.retain === true)
    }
    const listening = client as MqttClientLike & Partial<SubscribingClient> & Partial<DisconnectingClient>
    // mqtt.js passes the CONNACK (its sessionPresent) to 'connect' listeners.
    listening.on('connect', onConnect)
    listening.on('close', onClose)
    listening.on('error', onError)
    listening.on('disconnect', onDisconnect)
    // A publishing link subscribes to nothing, so no message ever arrives on it.
    listening.on('message', onMessage)
    this.watched = [
      { event: 'connect', fn: onConnect as (...args: never[]) => void },
      { event: 'close', fn: onClose },
      { event: 'error', fn: onError as (...args: never[]) => void },
      { event: 'disconnect', fn: onDisconnect as (...args: never[]) => void },
      { event: 'message', fn: onMessage as (...args: never[]) => void },
    ]
  }

  /**
   * Subscribes the current client at QoS `qos`. The session is clean, so a subscriber calls this
   * again on every `connected`. Rejects when not connected or when the client cannot subscribe.
   */
  subscribe(filters: string[], qos: 0 | 1 = 1): Promise<void> {
    const client = this.#client as (MqttClientLike & Partial<SubscribingClient>) | undefined
    if (client === undefined || !client.connected || typeof client.subscribe !== 'function') {
      return Promise.reject(
        new MqttError(
          'connection',
          'cannot subscribe: the MQTT client is not connected (or cannot subscribe); wait for the connection',
        ),
      )
    }
    return new Promise((resolve, reject) => {
      client.subscribe?.(filters, { qos }, (error) => {
        if (error === undefined || error === null) resolve()
        else
          reject(
            new MqttError('connection', `MQTT subscribe to ${filters.join(', ')} failed: ${error.message}`, {
              cause: error,
            }),
          )
      })
    })
  }

  /** Unsubscribes the current client; rejects when not connected. */
  unsubscribe(filters: string[]): Promise<void> {
    const client = this.#client as (MqttClientLike & Partial<SubscribingClient>) | undefined
    if (client === undefined || !client.connected || typeof client.unsubscribe !== 'function') {
      return Promise.reject(
        new MqttError('connection', 'cannot unsubscribe: the MQTT client is not connected; wait for the connection'),
      )
    }
    return new Promise((resolve, reject) => {
      client.unsubscribe?.(filters, {}, (error) => {
        if (error === undefined || error === null) resolve()
        else
          reject(
            new MqttError('connection', `MQTT unsubscribe from ${filters.join(', ')} failed: ${error.message}`, {
              cause: error,
            }),
          )
      })
    })
  }

  private unwatch(): void {
    for (const { event, fn } of this.watched) this.#client?.removeListener(event, fn)
    this.watched = []
  }

  /**
   * Disconnects. A client this link made is ended (DISCONNECT, so no last will); a wrapped
   * client is left to its owner. Bounded by `graceMs` ({@link endClient}): after it the socket is
   * dropped, and the broker sends the last will, which says the same `offline`.
   */
  close(graceMs = DEFAULT_LINK_CLOSE_MS): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.unwatch()
    if (client === undefined || !this.#owned) return Promise.resolve()
    return endClient(client, graceMs)
  }
}
