/**
 * What waits to go to the broker, bounded. mqtt.js queues every offline publish without limit;
 * here nothing reaches mqtt.js unless it is connected, and a small in-flight window keeps its
 * store small too. Retained messages (status, beacon states, discovery configs) are kept per
 * topic, latest wins, so a reconnect sends the current state once instead of every stale update.
 */

import type { MqttClientLike } from './client.js'
import { DEFAULT_ACK_TIMEOUT_MS, InFlight } from './inflight.js'
import type { DiskEvents } from './disk-events.js'
import { EventQueue } from './event-queue.js'
import { refusalCode } from './refusals.js'
import type { MqttRefusedReason } from './refusals.js'
import { isPublishTopic } from '../util/topic-level.js'
import type { OutboxHooks, OutboxLimits, OutMessage, RetainOptions, Undelivered } from './outbox-types.js'

/** Poison topics remembered at most. */
const MAX_POISON_TOPICS = 1024

/** Holds messages until a connected client can take them, in the order: status, retained state, events. */
export class Outbox {
  // True private: util.inspect of anything holding the outbox cannot reach the client's password.
  #client: MqttClientLike | undefined
  private readonly status = new Map<string, string>()
  private readonly retained = new Map<string, string>()
  /** Topics whose non-empty retained message the broker may hold (sent by this outbox). */
  private readonly onBroker = new Set<string>()
  private readonly events = new EventQueue<OutMessage>()
  /** With `queueDir`: where events wait instead of `events` (see disk-events.ts). */
  private disk: DiskEvents | undefined
  /** QoS 1 messages handed to mqtt.js, oldest first (see inflight.ts). */
  private readonly flights: InFlight<OutMessage>
  /** Set by {@link Outbox.abandon}: nothing goes back in the queues any more. */
  private abandoned = false
  /**
   * Topics of poison messages (bounded, oldest forgotten first): later messages on them are
   * refused at once, or each new beacon state on such a topic would cost POISON_STRIKES
   * connection losses of its own.
   */
  private readonly poisonTopics = new Set<string>()
  /** Messages dropped as refused, by reason. */
  readonly refused: Record<MqttRefusedReason, number> = { invalid_topic: 0, broker_refused: 0, poison: 0 }
  /** The iterators draining `status` and `retained` (see next()). */
  private readonly draining: { status?: MapIterator<[string, string]>; retained?: MapIterator<[string, string]> } = {}
  private idleWaiters: (() => void)[] = []

  constructor(
    private readonly limits: OutboxLimits,
    private readonly hooks: OutboxHooks,
  ) {
    this.flights = new InFlight(limits.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS, (info) => hooks.acks?.(info))
  }

  /** QoS 1 messages handed to mqtt.js and not yet acknowledged. */
  private get inflight(): number {
    return this.flights.size
  }

  /** Messages waiting (not yet handed to mqtt.js). */
  get pending(): number {
    return this.status.size + this.retained.size + this.events.size + (this.disk?.waiting ?? 0)
  }

  /** Events waiting. */
  get queuedEvents(): number {
    return this.events.size + (this.disk?.waiting ?? 0)
  }

  /**
   * From now on events wait on disk; those waiting in memory go there first, in order. The disk
   * calls {@link Outbox.wake} when events become sendable.
   */
  useDisk(disk: DiskEvents): void {
    this.disk = disk
    for (let m = this.events.shift(); m !== undefined; m = this.events.shift()) disk.push(m.topic, m.payload)
    this.pump()
  }

  /** Events became sendable on disk (or its queue shrank). */
  wake(): void {
    this.pump()
  }

  /**
   * The client to publish through while it is connected; undefined while it is not. Losing the
   * client with messages in flight is a strike against the oldest (see {@link POISON_STRIKES}).
   */
  setClient(client: MqttClientLike | undefined): void {
    this.#client = client
    // Every lost connection counts, even one lost again before the owner handed the client back
    // (mqtt.js resends its store first thing on connect, so the poison goes out again at once).
    if (client === undefined) {
      const poison = this.flights.strike()
      if (poison !== undefined) this.poisoned(poison)
    }
    this.pump()
  }

  /** The gateway status: sent before anything else. */
  putStatus(topic: string, payload: string): void {
    this.status.set(topic, payload)
    this.pump()
  }

  /**
   * A retained message; an empty payload clears the topic. A clear of a topic this outbox never
   * sent costs nothing: the pending message is simply forgotten (unless `always`: clearing
   * what an earlier run left).
   */
  putRetained(topic: string, payload: string, { always = false }: RetainOptions = {}): void {
    this.retained.delete(topic)
    if (payload === '' && !always && !this.onBroker.has(topic)) return
    this.retained.set(topic, payload)
    this.pump()
  }

  /** An event (QoS 1, not retained): queued while offline, the oldest dropped beyond the bound. */
  putEvent(topic: string, payload: string): void {
    if (this.disk !== undefined) {
      // Sendable once written: the disk wakes the outbox then.
      this.disk.push(topic, payload)
      return
    }
    this.events.push({ kind: 'event', topic, payload, qos: 1, retain: false })
    const over = this.events.size - this.limits.maxQueuedEvents
    if (over > 0) {
      for (let i = 0; i < over; i++) this.events.shift()
      this.hooks.dropped({ count: over, reason: 'queue_full', kind: 'event' })
    }
    this.pump()
  }

  /** A QoS 0 message sent now or never: stale RSSI is worth nothing after a reconnect. */
  putVolatile(topic: string, payload: Buffer, kind: 'rssi'): void {
    const client = this.#client
    if (client === undefined || !client.connected) {
      this.hooks.dropped({ count: 1, reason: 'offline', kind })
      return
    }
    client.publish(topic, payload, { qos: 0, retain: false })
    this.hooks.sent({ kind, topic, payload })
  }

  /**
   * Resolves true when nothing waits and nothing is in flight; false after `timeoutMs`, or
   * sooner when `stallMs` is given and the broker acknowledged nothing for that long (a broker
   * that is slow but working keeps the wait going; a silent one ends it).
   */
  idle(timeoutMs: number, stallMs?: number): Promise<boolean> {
    if (this.pending === 0 && this.inflight === 0) return Promise.resolve(true)
    const start = Date.now()
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const giveUp = (): void => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done)
        resolve(false)
      }
      const check = (): void => {
        const now = Date.now()
        const left = start + timeoutMs - now
        if (left <= 0) return giveUp()
        const quietFor = now - Math.max(start, this.flights.lastAck)
        if (stallMs !== undefined && quietFor >= stallMs) return giveUp()
        timer = setTimeout(check, stallMs === undefined ? left : Math.min(left, stallMs - quietFor))
      }
      const done = (): void => {
        clearTimeout(timer)
        resolve(true)
      }
      this.idleWaiters.push(done)
      check()
    })
  }

  /**
   * Gives up on everything not acknowledged (at close, after the flush deadline): what waits in
   * memory is let go, and every message in flight is withdrawn from mqtt.js's store, so the
   * client can disconnect at once and keeps no payload. Events of the disk queue stay on disk.
   * Returns what was not delivered; afterwards the outbox takes nothing back.
   */
  abandon(): Undelivered {
    let lost = this.status.size + this.retained.size + this.events.size
    let kept = this.disk?.waiting ?? 0
    const flying = this.flights.items()
    for (const m of flying) {
      if (m.record !== undefined) kept++
      else lost++
    }
    this.abandoned = true
    this.flights.withdrawAll()
    for (const m of flying) if (m.record !== undefined) this.disk?.returned(m.record)
    this.clear()
    return { lost, kept }
  }

  /** Forgets everything still waiting in memory; events lost this way are reported (those on disk stay there). */
  clear(): void {
    const events = this.events.clear()
    if (events > 0) this.hooks.dropped({ count: events, reason: 'closed', kind: 'event' })
    this.status.clear()
    this.retained.clear()
    this.draining.status = undefined
    this.draining.retained = undefined
  }

  private next(): OutMessage | undefined {
    for (const kind of ['status', 'retained'] as const) {
      const source = this[kind]
      if (source.size === 0) {
        this.draining[kind] = undefined
        continue
      }
      // One live iterator per drain, not entries() afresh per message: a fresh iterator steps
      // over every entry deleted before it (V8 keeps them until a rehash), which made
      // draining n messages cost n² steps. A live iterator also sees entries added meanwhile.
      const iterator = (this.draining[kind] ??= source.entries())
      const first = iterator.next()
      if (first.done !== true) {
        const [topic, payload] = first.value
        source.delete(topic)
        return { kind, topic, payload, qos: 1, retain: true }
      }
      // Done for good (an iterator that ended stays ended): the next message starts a new one.
      this.draining[kind] = undefined
    }
    const m = this.events.shift()
    if (m !== undefined || this.disk === undefined) return m
    const record = this.disk.take()
    if (record === undefined) return undefined
    return { kind: 'event', topic: record.record.topic, payload: record.record.payload, qos: 1, retain: false, record }
  }

  private pump(): void {
    const client = this.#client
    while (client !== undefined && client.connected && this.inflight < this.limits.maxInflight) {
      const m = this.next()
      if (m === undefined) break
      this.send(client, m)
    }
    if (this.pending === 0 && this.inflight === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters
      this.idleWaiters = []
      for (const w of waiters) w()
    }
  }

  private send(client: MqttClientLike, m: OutMessage): void {
    // Defence in depth: the callers check their ids, but one topic Mosquitto refuses closes
    // the connection and would be resent on every reconnect.
    if (!isPublishTopic(m.topic)) {
      this.refuse(m, 'invalid_topic')
      return
    }
    if (this.poisonTopics.has(m.topic)) {
      this.refuse(m, 'poison')
      return
    }
    if (m.retain) {
      if (m.payload === '') this.onBroker.delete(m.topic)
      else this.onBroker.add(m.topic)
    }
    // Every message through here is QoS 1 (QoS 0 goes through putVolatile).
    this.flights.publish(client, m.topic, m.payload, m.retain, m, (error) => {
      if (error === undefined) {
        if (m.record !== undefined) this.disk?.sent(m.record.seq)
        this.hooks.sent(m)
      } else if (refusalCode(error) !== undefined) this.refuse(m, 'broker_refused', refusalCode(error))
      else this.requeue(m)
      // Called back inside mqtt.js: pump on the next tick, not re-entrantly.
      queueMicrotask(() => this.pump())
    })
  }

  /** A message withdrawn as poison: dropped, and its topic refused from now on. */
  private poisoned(m: OutMessage): void {
    if (this.poisonTopics.size >= MAX_POISON_TOPICS)
      this.poisonTopics.delete(this.poisonTopics.values().next().value as string)
    this.poisonTopics.add(m.topic)
    this.refuse(m, 'poison')
  }

  /** Drops a message the broker will not take: counted and reported, never requeued. */
  private refuse(m: OutMessage, reason: MqttRefusedReason, reasonCode?: number): void {
    this.refused[reason]++
    if (m.retain && m.payload !== '') this.onBroker.delete(m.topic)
    // An event from the disk queue leaves it: it would be refused again on every run.
    if (m.record !== undefined) this.disk?.sent(m.record.seq)
    this.hooks.refused?.({
      reason,
      kind: m.kind,
      topicLength: m.topic.length,
      ...(reasonCode === undefined ? {} : { reasonCode }),
    })
  }

  /** A publish mqtt.js gave up on (client ended): put it back unless something newer took its place. */
  private requeue(m: OutMessage): void {
    if (m.record !== undefined) this.disk?.returned(m.record)
    else if (this.abandoned) return
    else if (m.kind === 'event') this.events.unshift(m)
    else if (m.kind === 'status' || m.kind === 'retained') {
      const map = this[m.kind]
      if (!map.has(m.topic)) map.set(m.topic, m.payload)
    }
  }
}
