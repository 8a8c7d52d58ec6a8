/**
 * One connection to a broker shared by the parts of a process: a root opens it once, each part
 * (a fleet's tracker, its foreign inputs, the map's details; a gateway's publisher) gets a client
 * of its own on it and subscribes there, and the root ends the connection last, once every part
 * has flushed and said `offline`. One connection carries one last will: the root chooses it.
 *
 * A part's client looks like an mqtt.js client, so a part takes it as its `client` option the way
 * it takes a user's own. mqtt.js hands every message to every `message` listener: a part's client
 * passes on only the topics its own subscriptions match, and an unsubscribe leaves a filter
 * another part still holds. The session is clean, so each part subscribes again on every
 * `connect` (as it does on a connection of its own).
 */

import { EventEmitter } from 'eventemitter3'
import type { MqttClientLike, OutgoingStore } from './client.js'
import type { MqttLink } from './connection.js'
import { topicMatches } from './topic-filter.js'

type Callback = (error?: Error | null) => void

/** What a subscribing part calls besides {@link MqttClientLike} (mqtt.js 5 has both). */
interface Subscriber {
  subscribe(filters: string[], opts: { qos: 0 | 1 }, callback?: Callback): unknown
  unsubscribe(filters: string[], opts: object, callback?: Callback): unknown
}

/** The connection many parts share (see the file comment). */
export class SharedConnection {
  readonly #link: MqttLink
  /** The broker's URL (it holds no password), to name it in warnings. */
  readonly url: string | undefined
  /** Per filter, the parts' clients that hold it, and the QoS each asked for. */
  readonly #holders = new Map<string, Map<SharedClient, 0 | 1>>()

  constructor(link: MqttLink, url?: string) {
    this.#link = link
    this.url = url
  }

  get connected(): boolean {
    return this.#link.connected
  }

  /** A client of its own for one part; ending it leaves the connection to the others. */
  client(): SharedClient {
    return new SharedClient(this.#link, this.#holders, this.url)
  }

  /** Ends the connection (a clean DISCONNECT within `graceMs`, so no last will); call it last. */
  close(graceMs?: number): Promise<void> {
    return this.#link.close(graceMs)
  }
}

/**
 * One part's client on a {@link SharedConnection}: the mqtt.js members the part uses, publishing
 * and subscribing on the current connection, and only the messages of its own filters. Its events
 * are mqtt.js's: `connect` (with `{ sessionPresent }`), `close`, `error`, `message` (topic,
 * payload, `{ retain }`).
 */
export class SharedClient implements MqttClientLike, OutgoingStore {
  readonly #events = new EventEmitter()
  /** Tells MqttLink.wrap that errors, takeovers and the protocol are the connection's, already told. */
  readonly shared = true
  readonly #link: MqttLink
  readonly #holders: Map<string, Map<SharedClient, 0 | 1>>
  readonly #mine = new Set<string>()
  #ended = false
  /** Takes its listeners off the connection. */
  readonly #unlisten: () => void

  constructor(
    link: MqttLink,
    holders: Map<string, Map<SharedClient, 0 | 1>>,
    /** The connection's broker URL, to name it in warnings. */
    readonly url?: string,
  ) {
    this.#link = link
    this.#holders = holders
    const onConnected = (_version: 4 | 5, sessionPresent: boolean): void => {
      this.emit('connect', { sessionPresent })
    }
    const onDisconnected = (): void => {
      this.emit('close')
    }
    const onError = (error: Error): void => {
      this.emit('error', error)
    }
    const onMessage = (topic: string, payload: Buffer, retained: boolean): void => {
      for (const filter of this.#mine)
        if (topicMatches(filter, topic)) {
          this.emit('message', topic, payload, { retain: retained })
          return
        }
    }
    link.on('connected', onConnected)
    link.on('disconnected', onDisconnected)
    link.on('error', onError)
    link.on('message', onMessage)
    this.#unlisten = () => {
      link.off('connected', onConnected)
      link.off('disconnected', onDisconnected)
      link.off('error', onError)
      link.off('message', onMessage)
    }
  }

  on(event: string, listener: (...args: never[]) => void): this {
    this.#events.on(event, listener as (...args: unknown[]) => void)
    return this
  }

  removeListener(event: string, listener: (...args: never[]) => void): this {
    this.#events.removeListener(event, listener as (...args: unknown[]) => void)
    return this
  }

  private emit(event: string, ...args: unknown[]): void {
    this.#events.emit(event, ...args)
  }

  get connected(): boolean {
    return !this.#ended && this.#link.connected
  }

  /** The connection's protocol; no client id of its own (the connection's is the one the broker knows). */
  get options(): { clientId?: unknown; protocolVersion: 4 | 5 } {
    return { protocolVersion: this.#link.protocolVersion }
  }

  /** mqtt.js's store of unacknowledged publishes, shared: a part withdraws only its own (by callback). */
  get outgoing(): OutgoingStore['outgoing'] {
    return this.#store()?.outgoing
  }

  getLastMessageId(): number | undefined {
    return this.#store()?.getLastMessageId?.()
  }

  removeOutgoingMessage(messageId: number): unknown {
    return this.#store()?.removeOutgoingMessage?.(messageId)
  }

  publish(
    topic: string,
    message: string | Buffer,
    opts: { qos: 0 | 1; retain: boolean },
    callback?: (error?: Error) => void,
  ): unknown {
    const client = this.#ended ? undefined : this.#link.client
    if (client === undefined) {
      callback?.(new Error('the shared MQTT connection is not connected'))
      return this
    }
    return client.publish(topic, message, opts, callback)
  }

  /** Subscribes on the connection (at the highest QoS any part asks of a filter); the filters become its own. */
  subscribe(filters: string[], opts: { qos: 0 | 1 }, callback?: Callback): unknown {
    const client = this.#subscriber()
    if (client === undefined) {
      callback?.(new Error('the shared MQTT connection is not connected'))
      return this
    }
    let qos: 0 | 1 = opts.qos
    for (const filter of filters) {
      this.#mine.add(filter)
      const holders = this.#holders.get(filter) ?? new Map<SharedClient, 0 | 1>()
      holders.set(this, opts.qos)
      this.#holders.set(filter, holders)
      for (const q of holders.values()) if (q > qos) qos = q
    }
    return client.subscribe(filters, { qos }, callback)
  }

  /** Lets go of the filters; unsubscribes on the connection only those no other part holds. */
  unsubscribe(filters: string[], opts: object, callback?: Callback): unknown {
    const free = this.#release(filters)
    const client = this.#subscriber()
    if (free.length === 0 || client === undefined) {
      if (client === undefined) callback?.(new Error('the shared MQTT connection is not connected'))
      else callback?.()
      return this
    }
    return client.unsubscribe(free, opts, callback)
  }

  /** Ends this part's use only: its listeners and filters go, the connection stays (the root ends it). */
  end(_force?: boolean, _opts?: object, callback?: () => void): unknown {
    if (!this.#ended) {
      this.#ended = true
      this.#unlisten()
      const free = this.#release([...this.#mine])
      const client = this.#subscriber()
      if (free.length > 0 && client !== undefined) client.unsubscribe(free, {}, () => undefined)
    }
    callback?.()
    return this
  }

  /** Drops the filters from this part; returns those that no part holds any more. */
  #release(filters: string[]): string[] {
    const free: string[] = []
    for (const filter of filters) {
      this.#mine.delete(filter)
      const holders = this.#holders.get(filter)
      holders?.delete(this)
      if (holders !== undefined && holders.size > 0) continue
      this.#holders.delete(filter)
      free.push(filter)
    }
    return free
  }

  #store(): OutgoingStore | undefined {
    return this.#link.current as (MqttClientLike & OutgoingStore) | undefined
  }

  #subscriber(): Subscriber | undefined {
    return this.#ended ? undefined : (this.#link.client as (MqttClientLike & Subscriber) | undefined)
  }
}
