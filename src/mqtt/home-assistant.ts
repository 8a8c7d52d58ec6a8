/**
 * Home Assistant MQTT discovery (docs/mqtt.md): one device per beacon, an entity per
 * value the beacon has really reported. Configs depend only on the beacon id, the prefixes and
 * the heartbeat, so every gateway announces the same config and one entity is fed by all of them
 * through `<p>/gateways/+/beacons/<id>`.
 */

import type { Beacon } from '../reading.js'
import { HaGate, hasStableIdentity } from './ha-gate.js'
import type { HaGateOptions } from './ha-gate.js'
import { sweepRetainedConfigs } from './ha-sweep.js'
import type { SweepOwner } from './ha-sweep.js'
import type { MqttLink } from './connection.js'
import { HA_FIELDS, HA_FIELD_SPECS as FIELDS, HA_ORIGIN, haDevice, haFieldTemplate, haStatusAvailability } from './ha-fields.js'
import type { HaField } from './ha-fields.js'
import { anyGatewayBeaconTopic, anyGatewayStatusTopic, haObjectId } from './topics.js'

// The public names of the fields stay importable from here (src/index.ts).
export { HA_FIELDS } from './ha-fields.js'
export type { HaField } from './ha-fields.js'

/** Settings of the discovery configs. */
export interface HaSettings {
  /** Discovery prefix, default `homeassistant`. */
  prefix: string
  /** The beacon topic prefix `<p>`. */
  topicPrefix: string
  /** Seconds without a state message before Home Assistant marks an entity unavailable. */
  expireAfterSeconds: number
}

/** `<ha>/<component>/beaconkit_<obj>_<field>/config` */
export function haConfigTopic(settings: Pick<HaSettings, 'prefix'>, beaconId: string, field: HaField): string {
  return `${settings.prefix}/${FIELDS[field].component}/beaconkit_${haObjectId(beaconId)}_${field}/config`
}

/** The discovery config of one entity of one beacon. */
export function haConfig(settings: HaSettings, beaconId: string, field: HaField): Record<string, unknown> {
  const spec = FIELDS[field]
  const obj = haObjectId(beaconId)
  return {
    name: spec.name,
    unique_id: `beaconkit_${obj}_${field}`,
    state_topic: anyGatewayBeaconTopic(settings.topicPrefix, beaconId),
    value_template: haFieldTemplate(field),
    ...spec.config,
    expire_after: settings.expireAfterSeconds,
    availability: [haStatusAvailability(anyGatewayStatusTopic(settings.topicPrefix))],
    device: haDevice(beaconId),
    origin: HA_ORIGIN,
  }
}

/**
 * Remembers which entities each beacon has announced, so a config goes out once per value
 * (not on every state), and only for beacons the gate admits (ha-gate.ts: stable identity,
 * dwell, cap); the gate also says when a gone beacon's configs expire.
 */
export class HaAnnouncer {
  private readonly announced = new Map<string, Set<HaField>>()
  /** The dwell, the cap and the expiry. */
  readonly gate: HaGate

  constructor(
    private readonly settings: HaSettings,
    gate: HaGateOptions = {},
  ) {
    this.gate = new HaGate(gate)
  }

  /** The beacon came in range (its dwell starts; a device known by its address alone is never looked at). */
  found(beacon: Beacon, now: number): void {
    if (hasStableIdentity(beacon)) this.gate.found(beacon.id, now)
  }

  /** The beacon went (its configs expire after the gate's `expireMs`). */
  gone(beacon: Beacon, now: number): void {
    this.gate.gone(beacon.id, now)
  }

  /**
   * Configs due for this beacon: one per value it now reports and had not announced yet, once
   * the gate admits it.
   */
  due(beacon: Beacon, now: number): { topic: string; payload: string }[] {
    if (!this.gate.admit(beacon.id, hasStableIdentity(beacon), beacon.firstSeen, beacon.lastSeen, now)) return []
    let done = this.announced.get(beacon.id)
    const out: { topic: string; payload: string }[] = []
    for (const field of HA_FIELDS) {
      if (done?.has(field) === true || !FIELDS[field].has(beacon)) continue
      if (done === undefined) {
        done = new Set()
        this.announced.set(beacon.id, done)
      }
      done.add(field)
      out.push({ topic: haConfigTopic(this.settings, beacon.id, field), payload: JSON.stringify(haConfig(this.settings, beacon.id, field)) })
    }
    return out
  }

  /** Beacons whose dwell is over by `now`: their state should be looked at (and published) again. */
  woken(now: number): string[] {
    return this.gate.woken(now)
  }

  /** Empty retained configs of the beacons gone for the gate's `expireMs` by `now`. */
  expired(now: number): { topic: string; payload: string }[] {
    return this.gate.expired(now).flatMap((id) => this.removal(id))
  }

  /** Empty retained configs for every entity the beacon may have (from this run or an earlier one). */
  forget(beaconId: string): { topic: string; payload: string }[] {
    this.gate.forget(beaconId)
    return this.removal(beaconId)
  }

  /**
   * Reads the configs an earlier run left (ha-sweep.ts) and keeps or removes them; `remove`
   * publishes an empty retained message. Bounded: two configs per entity the cap allows, 2 s.
   */
  sweep(link: MqttLink, now: number, remove: (topic: string) => void): Promise<number> {
    return sweepRetainedConfigs(link, this.gate, this.sweepOwner(remove), now, { maxMessages: 2 * HA_FIELDS.length * this.gate.options.maxBeacons, windowMs: 2000 })
  }

  /**
   * Our sensor and binary_sensor topics: a config is ours exactly when its topic is the one we
   * would write for the beacon its `state_topic` names.
   */
  private sweepOwner(remove: (topic: string) => void): SweepOwner {
    const { prefix, topicPrefix } = this.settings
    const stateBase = `${anyGatewayBeaconTopic(topicPrefix, '')}`
    return {
      filters: [`${prefix}/sensor/+/config`, `${prefix}/binary_sensor/+/config`],
      beaconOf: (topic, config) => {
        const state = config.state_topic
        if (typeof state !== 'string' || !state.startsWith(stateBase)) return undefined
        const id = state.slice(stateBase.length)
        if (id === '' || /[/+#]/.test(id)) return undefined
        return HA_FIELDS.some((f) => haConfigTopic(this.settings, id, f) === topic) ? id : undefined
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

  private removal(beaconId: string): { topic: string; payload: string }[] {
    this.announced.delete(beaconId)
    return HA_FIELDS.map((field) => ({ topic: haConfigTopic(this.settings, beaconId, field), payload: '' }))
  }
}
