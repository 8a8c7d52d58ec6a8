/**
 * The link to the broker: mqtt.js loaded lazily, MQTT 5 first and 3.1.1 when the broker refuses
 * it (aedes speaks 3.1.1 only), reconnects with a doubling, capped and jittered delay (backoff.ts),
 * and no secret kept anywhere but inside the client.
 */

import { EventEmitter } from 'eventemitter3'
import { MqttError } from '../errors.js'
import { DEFAULT_LINK_CLOSE_MS, endClient, loadMqtt } from './client.js'
import type { MqttClientLike, MqttModule, OutgoingStore } from './client.js'
import { reconnectDelay } from './backoff.js'
import { takeoverError, TakeoverWatch } from './takeover.js'
import type { LinkEvents, LinkSettings } from './link-settings.js'

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

  /**
   * The current client, connected or not: what a {@link SharedConnection} part reads mqtt.js's
   * store of unacknowledged publishes from (it outlives a reconnect). A getter, so util.inspect
   * and JSON.stringify never reach it.
   */
  get current(): MqttClientLike | undefined {
    return this.#client
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
    // A part's client on a shared connection (shared-connection.ts): the connection has already
    // told its errors and takeovers, and knows the protocol it fell back to.
    const shared = (client as { shared?: unknown }).shared === true
    const readVersion = (): void => {
      const version = (store.options as { protocolVersion?: unknown } | undefined)?.protocolVersion
      if (shared && (version === 4 || version === 5)) this.#protocolVersion = version
    }
    readVersion()
    const onConnect = (connack?: { sessionPresent?: boolean }): void => {
      readVersion()
      this.#takeover.connected()
      this.emit('connected', this.#protocolVersion, connack?.sessionPresent === true)
    }
    const onClose = (): void => {
      // mqtt.js has already failed the volatile packets (a SUBSCRIBE); QoS 1 publishes stay.
      const takenOver = !shared && this.#takeover.closed(Object.keys(store.outgoing ?? {}).length > 0)
      this.emit('disconnected')
      if (takenOver) this.emit('error', takeoverError(clientId, false))
    }
    const onError = (error: Error): void => {
      if (this.#owned && this.#protocolVersion === 5 && refusesProtocol(error)) return
      if (shared) {
        this.emit('error', error)
        return
      }
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
