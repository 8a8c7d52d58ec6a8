/**
 * A Home Assistant judge for tests: fed the messages a real broker delivers (discovery configs,
 * states, availability, attributes; in order, with their retain flags), it says what each
 * sensor / binary_sensor / device_tracker entity would show after each step, and can "restart
 * Home Assistant": drop every entity and re-read what the broker retains.
 *
 * The per-entity rules (and the Home Assistant sources they come from: current home-assistant/core,
 * where an MQTT device_tracker takes its zones from an `in_zones` JSON attribute and needs no
 * state_topic, and the 2026-06-15 developer blog post on device tracker entity models) are in
 * ha-entities.ts. The judge adds what mqtt/discovery.py and the MQTT client do: a retained or
 * live config on `<prefix>/<component>/[<node_id>/]<object_id>/config` creates the entity (or
 * reconfigures it; an empty one removes it), and a new subscription receives what the broker
 * retains on its filter (Mosquitto sends those in its topic-tree order; here in the order they
 * were retained). Templates render through real Jinja2 (ha-schema.ts), batched: one python3
 * run per step, not per message.
 */

import { HaEntity } from './ha-entities.js'
import type { HaComponent, HaZone } from './ha-entities.js'
import { renderTemplatesSafe } from './ha-schema.js'
import type { Rendered } from './ha-schema.js'

export type { HaComponent, HaZone } from './ha-entities.js'

/** One message as the broker delivers it. */
export interface HaMessage {
  topic: string
  payload: string
  /** Retained on the broker (an empty retained payload clears the topic). Default false. */
  retain?: boolean
}

/** Options of {@link HaJudge}. */
export interface HaJudgeOptions {
  /** Discovery prefix, default `homeassistant`. */
  discoveryPrefix?: string
  /** Zones for device_tracker coordinates; default one `zone.home` of 100 m at (0, 0). */
  zones?: HaZone[]
}

/** Whether an MQTT topic filter (`+`, `#`) matches a topic. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/')
  const t = topic.split('/')
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i < t.length || (i === t.length && i > 0)
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false
  }
  return f.length === t.length
}

const COMPONENTS: readonly HaComponent[] = ['sensor', 'binary_sensor', 'device_tracker']

/** Judges what Home Assistant shows, message by message. */
export class HaJudge {
  /** Entities by discovery topic. */
  readonly entities = new Map<string, HaEntity>()
  /** What HA would log (ignored messages, template errors, rejected states), in order. */
  readonly log: string[] = []
  private readonly retained = new Map<string, string>()
  private readonly cache = new Map<string, Rendered>()
  private readonly prefix: string
  private readonly zones: HaZone[]
  private now = 0

  constructor(options: HaJudgeOptions = {}) {
    this.prefix = options.discoveryPrefix ?? 'homeassistant'
    this.zones = options.zones ?? [{ entityId: 'zone.home', name: 'Home', latitude: 0, longitude: 0, radius: 100 }]
  }

  /** The component of a discovery config topic, or undefined when it is not one. */
  private componentOf(topic: string): HaComponent | undefined {
    if (!topic.startsWith(`${this.prefix}/`)) return undefined
    // <component>/[<node_id>/]<object_id>/config
    const levels = topic.slice(this.prefix.length + 1).split('/')
    if ((levels.length !== 3 && levels.length !== 4) || levels[levels.length - 1] !== 'config') return undefined
    const component = levels[0] as HaComponent
    return COMPONENTS.includes(component) ? component : undefined
  }

  /**
   * Delivers messages in order at time `at` (ms): first fires the expiry timers due by then,
   * then handles each message as HA would.
   */
  receive(messages: readonly HaMessage[], at: number): void {
    this.advance(at)
    this.prerender(messages)
    for (const m of messages) this.deliver(m)
  }

  /** Moves time to `at`, firing the `expire_after` timers due by then. */
  advance(at: number): void {
    this.now = Math.max(this.now, at)
    for (const e of this.entities.values()) e.tick(this.now)
  }

  /**
   * Restarts Home Assistant at `at`: every entity dropped, then the retained messages re-read
   * (the judge's own view of the broker, or `retained` read from a real one: topic → payload).
   * `expire_after` entities restore their last state if it has not expired (RestoreSensor).
   */
  restart(at: number, retained?: ReadonlyMap<string, string>): void {
    const before = new Map([...this.entities].map(([t, e]) => [t, e.snapshot()]))
    this.entities.clear()
    if (retained !== undefined) {
      this.retained.clear()
      for (const [t, p] of retained) if (p !== '') this.retained.set(t, p)
    }
    this.now = Math.max(this.now, at)
    const store = [...this.retained].map(([topic, payload]) => ({ topic, payload, retain: true }))
    this.prerender(store)
    // HA subscribes to discovery first; each entity it creates subscribes and gets what is retained.
    for (const m of store) {
      if (this.componentOf(m.topic) === undefined) continue
      this.discovery(m.topic, m.payload)
      const previous = before.get(m.topic)
      if (previous !== undefined) this.entities.get(m.topic)?.restore(previous, this.now)
    }
    for (const [topic, e] of this.entities) this.replayRetained(e, topic)
  }

  /** What every entity shows now: discovery topic → state. */
  shown(): Map<string, string> {
    return new Map([...this.entities].map(([t, e]) => [t, e.shown]))
  }

  /** What the entity whose unique_id is `uniqueId` shows, or undefined when HA has no such entity. */
  show(uniqueId: string): string | undefined {
    for (const e of this.entities.values()) if (e.config.unique_id === uniqueId) return e.shown
    return undefined
  }

  /** The attributes HA shows for the entity whose unique_id is `uniqueId`, or undefined when HA has no such entity. */
  attributes(uniqueId: string): Record<string, unknown> | undefined {
    for (const e of this.entities.values()) if (e.config.unique_id === uniqueId) return e.attributes
    return undefined
  }

  private deliver(m: HaMessage): void {
    if (m.retain === true) {
      if (m.payload === '') this.retained.delete(m.topic)
      else this.retained.set(m.topic, m.payload)
    }
    if (this.componentOf(m.topic) !== undefined) {
      const existed = this.entities.get(m.topic)
      this.discovery(m.topic, m.payload)
      const e = this.entities.get(m.topic)
      if (e !== undefined && e !== existed) this.replayRetained(e, m.topic)
      return
    }
    for (const e of this.entities.values()) this.feed(e, m.topic, m.payload)
  }

  /** Hands a message to every subscription of `e` that matches its topic. */
  private feed(e: HaEntity, topic: string, payload: string): void {
    for (const s of e.subscriptions()) {
      if (topicMatches(s.filter, topic)) e.receive(s.kind, s.filter, topic, payload, this.now, (t, p) => this.render(t, p))
    }
  }

  /** A new subscription receives the retained messages on its filters (not its own config). */
  private replayRetained(e: HaEntity, configTopic: string): void {
    for (const [topic, payload] of this.retained) if (topic !== configTopic) this.feed(e, topic, payload)
  }

  private discovery(topic: string, payload: string): void {
    const component = this.componentOf(topic) as HaComponent
    const existing = this.entities.get(topic)
    if (payload === '') {
      if (existing !== undefined) this.entities.delete(topic)
      return
    }
    let config: unknown
    try {
      config = JSON.parse(payload)
    } catch {
      this.log.push(`${topic}: discovery payload is not JSON; ignored`)
      return
    }
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      this.log.push(`${topic}: discovery payload is not an object; ignored`)
      return
    }
    const c = config as Record<string, unknown>
    if (existing !== undefined) {
      if (JSON.stringify(existing.config) === JSON.stringify(c)) return
      existing.configure(c)
      existing.write(this.now)
      return
    }
    const e = new HaEntity(component, topic, c, this.zones, (line) => this.log.push(line), this.now)
    this.entities.set(topic, e)
    e.write(this.now)
  }

  private render(template: string, payload: string): Rendered {
    const key = JSON.stringify([template, payload])
    let r = this.cache.get(key)
    if (r === undefined) {
      r = renderTemplatesSafe([{ template, payload }])[0]
      this.cache.set(key, r)
    }
    return r
  }

  /**
   * Renders in one python3 run every template a batch can need: each message against every
   * template of every config known (entities, retained configs, configs in the batch).
   */
  private prerender(messages: readonly HaMessage[]): void {
    const templates = new Map<string, Set<string>>()
    const add = (filter: unknown, template: unknown): void => {
      if (typeof filter !== 'string' || typeof template !== 'string' || template === '') return
      templates.set(filter, (templates.get(filter) ?? new Set()).add(template))
    }
    const configs = [...this.entities.values()].map((e) => e.config)
    for (const [t, p] of [...this.retained, ...messages.map((m) => [m.topic, m.payload] as const)]) {
      if (this.componentOf(t) === undefined || p === '') continue
      try {
        const c = JSON.parse(p) as unknown
        if (typeof c === 'object' && c !== null) configs.push(c as Record<string, unknown>)
      } catch {
        // not JSON: discovery() logs it when delivered
      }
    }
    for (const c of configs) {
      add(c.state_topic, c.value_template)
      add(c.availability_topic, c.availability_template)
      add(c.json_attributes_topic, c.json_attributes_template)
      if (Array.isArray(c.availability)) for (const a of c.availability as Record<string, unknown>[]) add(a?.topic, a?.value_template)
    }
    const cases: { template: string; payload: string }[] = []
    const seen = new Set<string>()
    const payloads = [...messages.map((m) => [m.topic, m.payload] as const), ...this.retained]
    for (const [topic, payload] of payloads) {
      for (const [filter, set] of templates) {
        if (!topicMatches(filter, topic)) continue
        for (const template of set) {
          const key = JSON.stringify([template, payload])
          if (this.cache.has(key) || seen.has(key)) continue
          seen.add(key)
          cases.push({ template, payload })
        }
      }
    }
    renderTemplatesSafe(cases).forEach((r, i) => this.cache.set(JSON.stringify([cases[i].template, cases[i].payload]), r))
  }
}
