/**
 * Home Assistant MQTT discovery of one gateway on its own (docs/mqtt.md "Home Assistant"): a
 * device per beacon, an entity per value the beacon has really reported, fed by THIS gateway
 * alone (its own state topic and status), so no two gateways ever write one entity. In a fleet
 * (a fleet tracker seen, or `beacons: false`) the tracker owns the beacons and this announces
 * none: it withdraws the configs it announced (mode 'fleet').
 */

import type { Beacon } from '../reading.js'
import { HaGate } from './ha-gate.js'
import { hasStableIdentity } from './stable-identity.js'
import type { HaGateOptions } from './ha-gate.js'
import { sweepRetainedConfigs } from './ha-sweep.js'
import type { SweepOwner } from './ha-sweep.js'
import type { MqttLink } from './connection.js'
import { HA_FIELDS, HA_FIELD_SPECS as FIELDS } from './ha-fields.js'
import type { HaField } from './ha-fields.js'
import { anyGatewayBeaconTopic, GatewayTopics } from './topics.js'
import { haConfig, haConfigTopic, haLegacyConfigTopic } from './ha-config.js'
import type { HaBeaconNames, HaSettings } from './ha-config.js'

/** Whether this gateway announces per-beacon entities now. */
export type HaBeaconsMode = 'standalone' | 'fleet'

/** A retained message to publish (`''`: clear the topic, also when an earlier run wrote it). */
export interface HaMessage {
  topic: string
  payload: string
}

/**
 * Remembers which entities each beacon has announced, so a config goes out once per value
 * (not on every state), and only for beacons the gate admits (ha-gate.ts: stable identity,
 * dwell, cap); the gate also says when a gone beacon's configs expire.
 */
export class HaAnnouncer {
  private readonly announced = new Map<string, Set<HaField>>()
  /** The name each announced beacon's configs carry, when it has one (a serial number may have named it). */
  private readonly announcedNames = new Map<string, string>()
  /** The dwell, the cap and the expiry. */
  readonly gate: HaGate
  #mode: HaBeaconsMode
  /** Legacy shared configs removed by the sweep. */
  legacyRemoved = 0
  /** Configs removed because a fleet tracker took the beacons over. */
  withdrawn = 0

  constructor(
    private readonly settings: HaSettings,
    gate: HaGateOptions = {},
    mode: HaBeaconsMode = 'standalone',
    private readonly names?: HaBeaconNames,
  ) {
    this.gate = new HaGate(gate)
    this.#mode = mode
  }

  /** 'standalone': per-beacon entities; 'fleet': none (a fleet tracker owns the beacons). */
  get mode(): HaBeaconsMode {
    return this.#mode
  }

  /**
   * A fleet tracker owns the beacons from now on: no config is announced any more, and the ones
   * this run announced (or kept from an earlier run) are returned to be removed.
   */
  toFleet(): HaMessage[] {
    this.#mode = 'fleet'
    return this.withdraw()
  }

  /**
   * The beacon came in range (its dwell starts, none for a named beacon; a device known by its
   * address alone is never looked at).
   */
  found(beacon: Beacon, now: number): void {
    if (this.#mode === 'standalone' && hasStableIdentity(beacon))
      this.gate.found(beacon.id, now, { vouched: this.named(beacon) })
  }

  /** The beacon went (its configs expire after the gate's `expireMs`). */
  gone(beacon: Beacon, now: number): void {
    this.gate.gone(beacon.id, now)
  }

  /**
   * Configs due for this beacon: one per value it now reports and had not announced yet, once
   * the gate admits it; none in a fleet.
   */
  due(beacon: Beacon, now: number): HaMessage[] {
    if (this.#mode !== 'standalone') return []
    // With a list of names, an unlisted beacon is not announced (its serial number may come later:
    // asked again each time).
    // A phone or watch of the IRK file was named by the user there: listed, and named by its key's name.
    const resolved = beacon.irk !== undefined && hasStableIdentity(beacon) ? beacon.irk : undefined
    if (resolved === undefined && this.names !== undefined && !this.names.listed(beacon.id, beacon.serialNumber))
      return []
    const name = this.names?.nameOf(beacon.id, beacon.serialNumber) ?? resolved
    // A beacon the user named is vouched for: announced when first heard, without the dwell.
    const vouched = name !== undefined
    if (!this.gate.admit(beacon.id, hasStableIdentity(beacon), beacon.firstSeen, beacon.lastSeen, now, vouched))
      return []
    let done = this.announced.get(beacon.id)
    if (name !== undefined) this.announcedNames.set(beacon.id, name)
    const out: HaMessage[] = []
    for (const field of HA_FIELDS) {
      if (done?.has(field) === true || !FIELDS[field].has(beacon)) continue
      if (done === undefined) {
        done = new Set()
        this.announced.set(beacon.id, done)
      }
      done.add(field)
      out.push({
        topic: haConfigTopic(this.settings, beacon.id, field),
        payload: JSON.stringify(haConfig(this.settings, beacon.id, field, name)),
      })
    }
    return out
  }

  private named(beacon: Beacon): boolean {
    return this.names?.nameOf(beacon.id, beacon.serialNumber) !== undefined || beacon.irk !== undefined
  }

  /** Beacons whose dwell is over by `now`: their state should be looked at (and published) again. */
  woken(now: number): string[] {
    return this.gate.woken(now)
  }

  /**
   * Every config announced (or kept from an earlier run) once more, as announced: for a broker
   * that lost its retained messages, or a Home Assistant that announced itself (its birth).
   */
  reannounce(): HaMessage[] {
    if (this.#mode !== 'standalone') return []
    const out: HaMessage[] = []
    for (const [id, fields] of this.announced) {
      const name = this.announcedNames.get(id) ?? this.names?.nameOf(id)
      for (const field of fields) {
        out.push({
          topic: haConfigTopic(this.settings, id, field),
          payload: JSON.stringify(haConfig(this.settings, id, field, name)),
        })
      }
    }
    return out
  }

  /** Empty retained configs of the beacons gone for the gate's `expireMs` by `now`. */
  expired(now: number): HaMessage[] {
    return this.gate.expired(now).flatMap((id) => this.removal(id))
  }

  /** Empty retained configs for every entity the beacon may have (from this run or an earlier one). */
  forget(beaconId: string): HaMessage[] {
    this.gate.forget(beaconId)
    return this.removal(beaconId)
  }

  /**
   * Reads the configs an earlier run left (ha-sweep.ts) and keeps or removes this gateway's;
   * `remove` publishes an empty retained message. Bounded: two configs per entity the cap
   * allows, plus as many legacy ones, 2 s. At the end of the window, legacy shared configs
   * are removed in standalone mode only (in a fleet the tracker may own those topics), and in
   * a fleet whatever was kept is withdrawn.
   */
  async sweep(link: MqttLink, now: number, remove: (topic: string) => void): Promise<number> {
    const legacy: string[] = []
    const perBeacon = HA_FIELDS.length * this.gate.options.maxBeacons
    const seen = await sweepRetainedConfigs(link, this.gate, this.sweepOwner(remove, legacy, perBeacon), now, {
      maxMessages: 3 * perBeacon,
      windowMs: 2000,
    })
    if (this.#mode === 'standalone') {
      for (const topic of legacy) remove(topic)
      this.legacyRemoved += legacy.length
    } else {
      for (const m of this.withdraw()) remove(m.topic)
    }
    return seen
  }

  /**
   * This gateway's sensor and binary_sensor topics (node id `beaconkit_<gw>`): a config is ours
   * exactly when its topic is the one we would write for the beacon its `state_topic` names.
   * Legacy shared configs (a `+` state topic) are collected into `legacy`, at most `maxLegacy`,
   * for the end of the window; the gate never sees them.
   */
  private sweepOwner(remove: (topic: string) => void, legacy: string[], maxLegacy: number): SweepOwner {
    const { prefix, topicPrefix, gatewayId } = this.settings
    const ownBase = new GatewayTopics(topicPrefix, gatewayId).beacon('')
    const legacyBase = anyGatewayBeaconTopic(topicPrefix, '')
    const idAfter = (state: unknown, base: string): string | undefined => {
      if (typeof state !== 'string' || !state.startsWith(base)) return undefined
      const id = state.slice(base.length)
      return id === '' || /[/+#]/.test(id) ? undefined : id
    }
    const node = `beaconkit_${gatewayId}`
    return {
      filters: [
        `${prefix}/sensor/${node}/+/config`,
        `${prefix}/binary_sensor/${node}/+/config`,
        `${prefix}/sensor/+/config`,
        `${prefix}/binary_sensor/+/config`,
      ],
      beaconOf: (topic, config) => {
        const own = idAfter(config.state_topic, ownBase)
        if (own !== undefined)
          return HA_FIELDS.some((f) => haConfigTopic(this.settings, own, f) === topic) ? own : undefined
        const shared = idAfter(config.state_topic, legacyBase)
        if (
          shared !== undefined &&
          legacy.length < maxLegacy &&
          HA_FIELDS.some((f) => haLegacyConfigTopic(prefix, shared, f) === topic)
        )
          legacy.push(topic)
        return undefined
      },
      kept: (id, topic) => {
        const field = HA_FIELDS.find((f) => haConfigTopic(this.settings, id, f) === topic)
        if (field === undefined) return
        const done = this.announced.get(id) ?? new Set<HaField>()
        done.add(field)
        this.announced.set(id, done)
      },
      remove,
    }
  }

  /** Empty retained configs of everything announced (or kept), each beacon forgotten by the gate. */
  private withdraw(): HaMessage[] {
    const out: HaMessage[] = []
    for (const [id, fields] of this.announced) {
      this.gate.forget(id)
      for (const field of fields) out.push({ topic: haConfigTopic(this.settings, id, field), payload: '' })
    }
    this.announced.clear()
    this.announcedNames.clear()
    this.withdrawn += out.length
    return out
  }

  private removal(beaconId: string): HaMessage[] {
    this.announced.delete(beaconId)
    this.announcedNames.delete(beaconId)
    return HA_FIELDS.map((field) => ({ topic: haConfigTopic(this.settings, beaconId, field), payload: '' }))
  }
}
